-- A fee plan applied (internal/plans): a job of internal/jobs like an upload's, its
-- components in chunks sent in batches under the job's lease, each item marked sent before
-- its call so a call without an answer is looked for at the service (by the plan's key in
-- the notes) before anything is sent again. An item keeps what the preview showed: the
-- student, the period, the full price, the discount and what is charged, the days; a
-- 100% discount is an item skipped with why (no component is made). undo_job is the
-- correction job that cancelled what the apply made (internal/corrections), once.

-- +goose Up
CREATE TABLE plan_jobs (
    id             TEXT PRIMARY KEY,
    plan_id        TEXT NOT NULL,
    plan_code      TEXT NOT NULL,
    selection      TEXT NOT NULL DEFAULT '',
    from_month     TEXT NOT NULL,
    to_month       TEXT NOT NULL,
    state          TEXT NOT NULL,
    actor_id       TEXT NOT NULL,
    actor          TEXT NOT NULL,
    actor_role     TEXT NOT NULL,
    actor_ip       TEXT NOT NULL DEFAULT '',
    total          BIGINT NOT NULL DEFAULT 0,
    amount         BIGINT NOT NULL DEFAULT 0,
    discount       BIGINT NOT NULL DEFAULT 0,
    existing       BIGINT NOT NULL DEFAULT 0,
    done_count     BIGINT NOT NULL DEFAULT 0,
    failed_count   BIGINT NOT NULL DEFAULT 0,
    skipped_count  BIGINT NOT NULL DEFAULT 0,
    recognised     BIGINT NOT NULL DEFAULT 0,
    undo_job       TEXT NOT NULL DEFAULT '',
    waiting_since  TIMESTAMP,
    hurry_at       TIMESTAMP,
    lease_owner    TEXT NOT NULL DEFAULT '',
    lease_until    TIMESTAMP,
    created_at     TIMESTAMP NOT NULL,
    updated_at     TIMESTAMP NOT NULL,
    finished_at    TIMESTAMP
);

CREATE INDEX plan_jobs_state ON plan_jobs (state, created_at);
CREATE INDEX plan_jobs_plan ON plan_jobs (plan_id, created_at);

CREATE TABLE plan_items (
    job_id        TEXT NOT NULL REFERENCES plan_jobs (id) ON DELETE CASCADE,
    seq           BIGINT NOT NULL,
    chunk         BIGINT NOT NULL,
    nis           TEXT NOT NULL,
    student_name  TEXT NOT NULL DEFAULT '',
    class         TEXT NOT NULL DEFAULT '',
    period        TEXT NOT NULL,
    item_name     TEXT NOT NULL,
    full_amount   BIGINT NOT NULL,
    amount        BIGINT NOT NULL,
    penalty       BIGINT NOT NULL DEFAULT 0,
    due_day       TEXT NOT NULL,
    expiry_day    TEXT NOT NULL,
    active_day    TEXT NOT NULL DEFAULT '',
    discount_id   TEXT NOT NULL DEFAULT '',
    state         TEXT NOT NULL,
    problem       TEXT NOT NULL DEFAULT '',
    component_id  TEXT NOT NULL DEFAULT '',
    attempts      BIGINT NOT NULL DEFAULT 0,
    updated_at    TIMESTAMP NOT NULL,
    PRIMARY KEY (job_id, seq)
);

-- A chunk is loaded by its number; an item's state is not indexed: it changes twice per
-- item while the job sends, and only a job's page and its start read by state.
CREATE INDEX plan_items_chunk ON plan_items (job_id, chunk, seq);

-- +goose Down
DROP TABLE plan_items;
DROP TABLE plan_jobs;
