-- Registration (checkout): fee templates the admin defines, the registrations the portal
-- made with them, and the public form's submissions per address (its rate limit).
-- Portable between SQLite and PostgreSQL: ids are generated in Go, times are UTC TIMESTAMPs,
-- calendar days are UTC-midnight TIMESTAMPs.

-- +goose Up
CREATE TABLE fee_templates (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    -- name_key is the name folded to lower case with single spaces: names are unique
    -- as a person reads them.
    name_key   TEXT NOT NULL UNIQUE,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);

-- A line's due and expiry days are either fixed (the *_date column) or a number of days
-- after the registration day (the *_days column); exactly one of each pair is set.
CREATE TABLE fee_template_lines (
    id           TEXT PRIMARY KEY,
    template_id  TEXT NOT NULL REFERENCES fee_templates (id) ON DELETE CASCADE,
    position     BIGINT NOT NULL,
    name         TEXT NOT NULL,
    account_code TEXT NOT NULL,
    amount       BIGINT NOT NULL,
    penalty      BIGINT NOT NULL DEFAULT 0,
    due_days     BIGINT,
    due_date     TIMESTAMP,
    expiry_days  BIGINT,
    expiry_date  TIMESTAMP,
    optional     BOOLEAN NOT NULL DEFAULT FALSE,
    description  TEXT NOT NULL DEFAULT ''
);

CREATE INDEX fee_template_lines_template ON fee_template_lines (template_id, position);

-- What the portal registered, as sent and as the service answered (bill and component
-- ids). A record of the act, like the audit log: the billing service stays the truth
-- for what is paid.
CREATE TABLE registrations (
    bill_id       TEXT PRIMARY KEY,
    nis           TEXT NOT NULL,
    student_name  TEXT NOT NULL,
    contact_name  TEXT NOT NULL DEFAULT '',
    phone         TEXT NOT NULL DEFAULT '',
    email         TEXT NOT NULL DEFAULT '',
    description   TEXT NOT NULL DEFAULT '',
    template_id   TEXT NOT NULL,
    template_name TEXT NOT NULL,
    source        TEXT NOT NULL,
    actor         TEXT NOT NULL,
    ip            TEXT NOT NULL DEFAULT '',
    components    TEXT NOT NULL,
    total         BIGINT NOT NULL,
    created_at    TIMESTAMP NOT NULL
);

CREATE INDEX registrations_nis ON registrations (nis);
CREATE INDEX registrations_created_at ON registrations (created_at);

-- Submissions of the public registration form, per client address, for its rate limit.
-- A table rather than memory so every portal instance behind a load balancer counts the
-- same submissions.
CREATE TABLE registration_attempts (
    id   TEXT PRIMARY KEY,
    addr TEXT NOT NULL,
    at   TIMESTAMP NOT NULL
);

CREATE INDEX registration_attempts_addr_at ON registration_attempts (addr, at);
CREATE INDEX registration_attempts_at ON registration_attempts (at);

-- +goose Down
DROP TABLE registration_attempts;
DROP TABLE registrations;
DROP TABLE fee_template_lines;
DROP TABLE fee_templates;
