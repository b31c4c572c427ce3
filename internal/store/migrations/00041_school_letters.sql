-- Letters a school signs (issue 28): the place they are written in, who signs them (the
-- bursar, and the principal under "Mengetahui", each with their NIP) and the pattern of
-- their numbers ("Nomor"), kept with the school's profile. The numbers count in
-- receipt_sequences under scopes of their own ("letter:" and the rendered pattern).
-- letter_batches remembers the numbers given to one printed set of letters (a class's
-- bill letters on a day, say), so printing it again shows the same numbers instead of
-- using up new ones.

-- +goose Up
ALTER TABLE school_profile ADD COLUMN city TEXT NOT NULL DEFAULT '';
ALTER TABLE school_profile ADD COLUMN bursar_name TEXT NOT NULL DEFAULT '';
ALTER TABLE school_profile ADD COLUMN bursar_nip TEXT NOT NULL DEFAULT '';
ALTER TABLE school_profile ADD COLUMN principal_name TEXT NOT NULL DEFAULT '';
ALTER TABLE school_profile ADD COLUMN principal_nip TEXT NOT NULL DEFAULT '';
ALTER TABLE school_profile ADD COLUMN letter_pattern TEXT NOT NULL DEFAULT '';

CREATE TABLE letter_batches (
    batch_key  TEXT PRIMARY KEY,     -- a hash of the kind, the day and the students, in order
    scope      TEXT NOT NULL,        -- the sequence the numbers came from
    first      BIGINT NOT NULL,      -- the first number; the batch has count of them
    count      BIGINT NOT NULL,
    created_at TIMESTAMP NOT NULL
);

-- +goose Down
DROP TABLE letter_batches;
ALTER TABLE school_profile DROP COLUMN letter_pattern;
ALTER TABLE school_profile DROP COLUMN principal_nip;
ALTER TABLE school_profile DROP COLUMN principal_name;
ALTER TABLE school_profile DROP COLUMN bursar_nip;
ALTER TABLE school_profile DROP COLUMN bursar_name;
ALTER TABLE school_profile DROP COLUMN city;
