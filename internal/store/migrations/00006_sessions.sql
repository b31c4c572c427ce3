-- Signed-in sessions, kept in the database so they can be ended: on sign-out, a password
-- change or reset, a disabled account or a new role, by an admin, or by the person from
-- another device. Every portal instance on the database sees the same sessions.
--
-- The cookie carries a random token; only its SHA-256 (token_hash) is stored, so a copy
-- of the database signs nobody in. id is the public handle used to list and end a session.
-- last_seen_at is written at most once a minute per session, not on every request.

-- +goose Up
CREATE TABLE sessions (
    id           TEXT PRIMARY KEY,
    token_hash   TEXT NOT NULL UNIQUE,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at   TIMESTAMP NOT NULL,
    last_seen_at TIMESTAMP NOT NULL,
    addr         TEXT NOT NULL,
    user_agent   TEXT NOT NULL
);

CREATE INDEX sessions_user_seen ON sessions (user_id, last_seen_at);
CREATE INDEX sessions_last_seen ON sessions (last_seen_at);
CREATE INDEX sessions_created ON sessions (created_at);

-- +goose Down
DROP TABLE sessions;
