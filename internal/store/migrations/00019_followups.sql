-- Follow-ups of arrears (issue 13): each time finance staff remind a student's parents
-- of what is overdue, by WhatsApp or by a printed reminder letter, one row here, so the
-- arrears report can show the last one per student. The audit log says the same in words;
-- this table is what the report reads (the newest row of a NIS through its index).
-- at_us is microseconds since 1970 (UTC), like the ledger's instants, so the ledger's
-- arrears query joins it without reading timestamps.

-- +goose Up
CREATE TABLE followups (
    id         TEXT PRIMARY KEY,
    nis        TEXT NOT NULL,
    channel    TEXT NOT NULL,              -- whatsapp, letter
    at_us      BIGINT NOT NULL,
    actor      TEXT NOT NULL,              -- username
    actor_name TEXT NOT NULL DEFAULT '',   -- how the report names them (display name then)
    components BIGINT NOT NULL DEFAULT 0,  -- the overdue components named
    total      BIGINT NOT NULL DEFAULT 0   -- and what they cost on that day, in rupiah
);

CREATE INDEX followups_nis_at ON followups (nis, at_us, id);

-- +goose Down
DROP TABLE followups;
