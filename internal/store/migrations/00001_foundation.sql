-- Foundation: staff accounts, settings, the audit log and sign-in attempts.
-- Portable between SQLite and PostgreSQL: ids are generated in Go, times are UTC TIMESTAMPs.

-- +goose Up
CREATE TABLE users (
    id                  TEXT PRIMARY KEY,
    username            TEXT NOT NULL UNIQUE,
    display_name        TEXT NOT NULL,
    role                TEXT NOT NULL,
    disabled            BOOLEAN NOT NULL DEFAULT FALSE,
    lang                TEXT NOT NULL DEFAULT '',
    password_hash       TEXT NOT NULL,
    created_at          TIMESTAMP NOT NULL,
    updated_at          TIMESTAMP NOT NULL,
    password_changed_at TIMESTAMP NOT NULL
);

CREATE INDEX users_role_disabled ON users (role, disabled);

CREATE TABLE settings (
    name       TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at TIMESTAMP NOT NULL
);

-- Append-only: the store has no function that updates or deletes a row.
CREATE TABLE audit_log (
    id              TEXT PRIMARY KEY,
    at              TIMESTAMP NOT NULL,
    actor           TEXT NOT NULL,
    actor_role      TEXT NOT NULL,
    action          TEXT NOT NULL,
    target          TEXT NOT NULL,
    outcome         TEXT NOT NULL,
    detail          TEXT NOT NULL,
    ip              TEXT NOT NULL,
    upstream_status BIGINT NOT NULL DEFAULT 0,
    upstream_desc   TEXT NOT NULL DEFAULT ''
);

CREATE INDEX audit_log_at ON audit_log (at, id);
CREATE INDEX audit_log_actor_at ON audit_log (actor, at);
CREATE INDEX audit_log_action_at ON audit_log (action, at);
CREATE INDEX audit_log_outcome_at ON audit_log (outcome, at);

CREATE TABLE signin_attempts (
    id       TEXT PRIMARY KEY,
    username TEXT NOT NULL,
    addr     TEXT NOT NULL,
    ok       BOOLEAN NOT NULL,
    at       TIMESTAMP NOT NULL
);

CREATE INDEX signin_attempts_username_at ON signin_attempts (username, at);
CREATE INDEX signin_attempts_addr_at ON signin_attempts (addr, at);
CREATE INDEX signin_attempts_at ON signin_attempts (at);

-- +goose Down
DROP TABLE signin_attempts;
DROP TABLE audit_log;
DROP TABLE settings;
DROP TABLE users;
