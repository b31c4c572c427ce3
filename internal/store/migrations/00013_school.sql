-- The school's profile (the header of receipts and bill letters), its logo and the
-- receipt number sequences. All in the database, not on disk: several portal instances
-- share only the database. The logo is kept as base64 text, which both engines store the
-- same way (SQLite's BLOB and PostgreSQL's BYTEA differ).

-- +goose Up
CREATE TABLE school_profile (
    id              TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    address         TEXT NOT NULL,
    npsn            TEXT NOT NULL,
    phone           TEXT NOT NULL,
    receipt_footer  TEXT NOT NULL,
    receipt_pattern TEXT NOT NULL,
    letter_note     TEXT NOT NULL,
    updated_at      TIMESTAMP NOT NULL
);

CREATE TABLE school_logo (
    id           TEXT PRIMARY KEY,
    content_type TEXT NOT NULL,
    data_base64  TEXT NOT NULL,
    sha256       TEXT NOT NULL,
    updated_at   TIMESTAMP NOT NULL
);

-- One row per rendered prefix of the pattern ("KW/2026/11/"): numbering starts again at 1
-- when the month (or year) in the pattern changes. last only ever grows.
CREATE TABLE receipt_sequences (
    scope      TEXT PRIMARY KEY,
    last       BIGINT NOT NULL,
    updated_at TIMESTAMP NOT NULL
);

-- +goose Down
DROP TABLE receipt_sequences;
DROP TABLE school_logo;
DROP TABLE school_profile;
