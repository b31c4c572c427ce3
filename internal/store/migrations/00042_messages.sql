-- Messages the portal sends parents (issue 28): each WhatsApp message or e-mail handed to
-- the Cloud API or the mail server, with what it said, the provider's id for it (the
-- wamid the webhook's statuses name; the mail server's queue id) and its last status.
-- The admins' page of sent messages and the student page read it; the outbox (a job
-- kind of the job runner, next) writes each of its sends here.
-- status_rank orders the statuses (sent 1, delivered 2, read 3, failed 4) so a webhook
-- arriving late never moves a message back. Instants are microseconds since 1970 (UTC).

-- +goose Up
CREATE TABLE messages (
    id             TEXT PRIMARY KEY,
    channel        TEXT NOT NULL,                -- whatsapp, email
    kind           TEXT NOT NULL,                -- test, receipt, reminder, followup, notice
    nis            TEXT NOT NULL DEFAULT '',
    recipient      TEXT NOT NULL,                -- 6281… or an address
    recipient_name TEXT NOT NULL DEFAULT '',
    subject        TEXT NOT NULL DEFAULT '',
    body           TEXT NOT NULL DEFAULT '',     -- the text as the parent reads it
    template       TEXT NOT NULL DEFAULT '',     -- name:language of a WhatsApp template
    provider_id    TEXT NOT NULL DEFAULT '',
    answer         TEXT NOT NULL DEFAULT '',     -- the server's answer (SMTP)
    status         TEXT NOT NULL,                -- sent, delivered, read, failed
    status_rank    BIGINT NOT NULL,
    status_at_us   BIGINT NOT NULL,
    error_code     TEXT NOT NULL DEFAULT '',
    error          TEXT NOT NULL DEFAULT '',
    actor          TEXT NOT NULL DEFAULT '',
    created_at_us  BIGINT NOT NULL
);

CREATE INDEX messages_created ON messages (created_at_us, id);
CREATE INDEX messages_nis ON messages (nis, created_at_us);
CREATE INDEX messages_provider ON messages (provider_id);

-- +goose Down
DROP TABLE messages;
