-- Corrections of components already at the service (issue 12): a correction job is a list
-- of items (a component and the values to give it, or its cancel with a reason) sent in
-- chunks under a lease like an upload, so it survives a restart, runs in one instance at a
-- time, and sends each change once. upload_created remembers which components each upload
-- created (recorded when a chunk is confirmed, reconciled ones included), so an upload can
-- be undone; a correction job of an upload's undo names it in upload_id, once.

-- +goose Up
CREATE TABLE correction_jobs (
    id            TEXT PRIMARY KEY,
    kind          TEXT NOT NULL,
    source        TEXT NOT NULL,
    upload_id     TEXT NOT NULL DEFAULT '',
    field         TEXT NOT NULL DEFAULT '',
    value         TEXT NOT NULL DEFAULT '',
    reason        TEXT NOT NULL DEFAULT '',
    selection     TEXT NOT NULL DEFAULT '',
    state         TEXT NOT NULL,
    actor_id      TEXT NOT NULL,
    actor         TEXT NOT NULL,
    actor_role    TEXT NOT NULL,
    actor_ip      TEXT NOT NULL DEFAULT '',
    total         BIGINT NOT NULL DEFAULT 0,
    left_out      BIGINT NOT NULL DEFAULT 0,
    amount_before BIGINT NOT NULL DEFAULT 0,
    amount_after  BIGINT NOT NULL DEFAULT 0,
    done_count    BIGINT NOT NULL DEFAULT 0,
    failed_count  BIGINT NOT NULL DEFAULT 0,
    skipped_count BIGINT NOT NULL DEFAULT 0,
    waiting_since TIMESTAMP,
    lease_owner   TEXT NOT NULL DEFAULT '',
    lease_until   TIMESTAMP,
    created_at    TIMESTAMP NOT NULL,
    updated_at    TIMESTAMP NOT NULL,
    finished_at   TIMESTAMP
);

CREATE INDEX correction_jobs_state ON correction_jobs (state);
CREATE UNIQUE INDEX correction_jobs_upload ON correction_jobs (upload_id) WHERE upload_id <> '';

-- One component of a job. state: pending, sent (the call is on its way: after a crash or
-- without an answer, read the component before sending again), done, skipped (paid or
-- cancelled meanwhile: left as it is, with why), failed (refused, with why).
CREATE TABLE correction_items (
    job_id       TEXT NOT NULL REFERENCES correction_jobs (id) ON DELETE CASCADE,
    seq          BIGINT NOT NULL,
    chunk        BIGINT NOT NULL,
    component_id TEXT NOT NULL,
    nis          TEXT NOT NULL DEFAULT '',
    student_name TEXT NOT NULL DEFAULT '',
    item_name    TEXT NOT NULL DEFAULT '',
    amount       BIGINT NOT NULL DEFAULT 0,
    payload      TEXT NOT NULL DEFAULT '',
    state        TEXT NOT NULL,
    attempts     BIGINT NOT NULL DEFAULT 0,
    problem      TEXT NOT NULL DEFAULT '',
    updated_at   TIMESTAMP NOT NULL,
    PRIMARY KEY (job_id, seq)
);

CREATE INDEX correction_items_state ON correction_items (job_id, state, seq);

CREATE TABLE upload_created (
    job_id       TEXT NOT NULL,
    component_id TEXT NOT NULL,
    PRIMARY KEY (job_id, component_id)
);

-- +goose Down
DROP TABLE upload_created;
DROP TABLE correction_items;
DROP TABLE correction_jobs;
