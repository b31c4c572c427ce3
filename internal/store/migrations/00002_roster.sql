-- The roster: the students the portal knows. The billing service has no "list all
-- students" call, so every student the portal creates, imports or reads lands here.

-- +goose Up
CREATE TABLE students (
    nis             TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    name_search     TEXT NOT NULL,
    key_name        TEXT NOT NULL,
    phone           TEXT NOT NULL DEFAULT '',
    email           TEXT NOT NULL DEFAULT '',
    description     TEXT NOT NULL DEFAULT '',
    source          TEXT NOT NULL,
    outstanding     BIGINT,
    overdue_count   BIGINT,
    totals_at       TIMESTAMP,
    synced_at       TIMESTAMP,
    created_at      TIMESTAMP NOT NULL,
    updated_at      TIMESTAMP NOT NULL
);

CREATE INDEX students_description ON students (description, nis);
CREATE INDEX students_name_search ON students (name_search);

-- +goose Down
DROP TABLE students;
