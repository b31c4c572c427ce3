-- The message outbox (issue 28): every message the portal sends parents on its own (a
-- payment's receipt, a reminder before a due date, an arrears follow-up, a term's bill
-- notice) is written here once, then sent by a job kind of the job runner
-- (internal/jobs) under a lease, paced, retried, surviving restarts and instances.
--
-- outbox_jobs are the batches (a receipt's one or two messages, a day's reminders, a
-- bulk follow-up, a class's notices) with the job runner's lease and wait; not_before is
-- when a batch may start (the next sending hour for all but receipts), in_hours whether
-- it goes out only within the school's sending hours.
--
-- outbox_messages are the messages, each under its idempotency key (idem_key: a receipt
-- by the payment's reference, student and channel; a reminder by component, days before
-- and channel; a follow-up by student, day and channel; a notice by class, term, student
-- and channel), so a second callback, a second click or a second instance writes nothing.
-- outbox_daily keeps every kind but receipts to one a student a day on each channel.
-- fields are the template's values (joined by the unit separator), the parent page link
-- filled in when it is sent; message_id is the messages row of its last attempt, whose
-- status the webhook and the mail server's answer move on.

-- +goose Up
CREATE TABLE outbox_jobs (
    id            TEXT PRIMARY KEY,
    kind          TEXT NOT NULL,               -- receipt, reminder, followup, notice
    label         TEXT NOT NULL DEFAULT '',    -- the payment's reference, the class and term
    state         TEXT NOT NULL,               -- queued, done
    in_hours      BOOLEAN NOT NULL,
    not_before    TIMESTAMP NOT NULL,
    actor         TEXT NOT NULL DEFAULT '',
    total         BIGINT NOT NULL DEFAULT 0,
    waiting_since TIMESTAMP,
    lease_owner   TEXT NOT NULL DEFAULT '',
    lease_until   TIMESTAMP,
    created_at    TIMESTAMP NOT NULL,
    finished_at   TIMESTAMP
);

CREATE INDEX outbox_jobs_state ON outbox_jobs (state, created_at);

CREATE TABLE outbox_messages (
    id           TEXT PRIMARY KEY,
    job_id       TEXT NOT NULL REFERENCES outbox_jobs (id) ON DELETE CASCADE,
    seq          BIGINT NOT NULL,
    chunk        BIGINT NOT NULL,
    idem_key     TEXT NOT NULL,
    kind         TEXT NOT NULL,
    channel      TEXT NOT NULL,              -- whatsapp, email
    nis          TEXT NOT NULL,
    student_name TEXT NOT NULL DEFAULT '',
    day          TEXT NOT NULL,              -- YYYY-MM-DD, the school day it goes out
    fields       TEXT NOT NULL,
    amount       BIGINT NOT NULL DEFAULT 0,  -- rupiah the message is about (a receipt's total)
    state        TEXT NOT NULL,              -- pending, sent, done, skipped, failed
    problem      TEXT NOT NULL DEFAULT '',
    message_id   TEXT NOT NULL DEFAULT '',
    attempts     BIGINT NOT NULL DEFAULT 0,
    created_at   TIMESTAMP NOT NULL,
    updated_at   TIMESTAMP NOT NULL
);

CREATE UNIQUE INDEX outbox_messages_key ON outbox_messages (idem_key);
CREATE UNIQUE INDEX outbox_daily ON outbox_messages (nis, channel, day) WHERE kind <> 'receipt';
CREATE INDEX outbox_messages_job ON outbox_messages (job_id, chunk, seq);
CREATE INDEX outbox_messages_nis ON outbox_messages (nis, created_at);

-- +goose Down
DROP TABLE outbox_messages;
DROP TABLE outbox_jobs;
