-- Bulk uploads of bill components and students. An upload is a job from the moment the
-- file arrives until its last chunk is confirmed: the file itself stays on disk under the
-- data directory (large, read as a stream); the database keeps what the preview shows (the
-- counts and every problem found) and the chunks the job sends, so a job survives a
-- restart of the portal.

-- +goose Up
CREATE TABLE upload_jobs (
    id              TEXT PRIMARY KEY,
    kind            TEXT NOT NULL,
    file_name       TEXT NOT NULL,
    file_sha256     TEXT NOT NULL,
    file_size       BIGINT NOT NULL,
    file_kept       BOOLEAN NOT NULL,
    state           TEXT NOT NULL,
    problem         TEXT NOT NULL DEFAULT '',
    problem_args    TEXT NOT NULL DEFAULT '',
    uploaded_by_id  TEXT NOT NULL,
    uploaded_by     TEXT NOT NULL,
    committed_by_id TEXT NOT NULL DEFAULT '',
    committed_by    TEXT NOT NULL DEFAULT '',
    committed_role  TEXT NOT NULL DEFAULT '',
    committed_ip    TEXT NOT NULL DEFAULT '',
    rows_total      BIGINT NOT NULL DEFAULT 0,
    rows_new        BIGINT NOT NULL DEFAULT 0,
    rows_already    BIGINT NOT NULL DEFAULT 0,
    rows_error      BIGINT NOT NULL DEFAULT 0,
    issues          BIGINT NOT NULL DEFAULT 0,
    totals          TEXT NOT NULL DEFAULT '',
    to_send         BIGINT NOT NULL DEFAULT 0,
    skipped         BIGINT NOT NULL DEFAULT 0,
    created_count   BIGINT NOT NULL DEFAULT 0,
    failed_count    BIGINT NOT NULL DEFAULT 0,
    created_at      TIMESTAMP NOT NULL,
    updated_at      TIMESTAMP NOT NULL,
    analysed_at     TIMESTAMP,
    committed_at    TIMESTAMP,
    finished_at     TIMESTAMP
);

CREATE INDEX upload_jobs_created ON upload_jobs (created_at);
CREATE INDEX upload_jobs_sha256 ON upload_jobs (file_sha256);
CREATE INDEX upload_jobs_state ON upload_jobs (state);

-- One problem of one cell, as found by the analysis; messages are made at display time
-- in the reader's language from code and args.
CREATE TABLE upload_issues (
    job_id   TEXT NOT NULL REFERENCES upload_jobs (id) ON DELETE CASCADE,
    seq      BIGINT NOT NULL,
    row_num  BIGINT NOT NULL,
    col_num  BIGINT NOT NULL,
    code     TEXT NOT NULL,
    args     TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (job_id, seq)
);

CREATE INDEX upload_issues_row ON upload_issues (job_id, row_num, col_num);

-- One batch call's worth of rows. state: pending, sent (the call is on its way: after a
-- crash it is unknown), confirmed, failed, unknown (no answer: reconcile before sending
-- again). payload holds the rows as sent; pending_rows those still to send.
CREATE TABLE upload_chunks (
    job_id        TEXT NOT NULL REFERENCES upload_jobs (id) ON DELETE CASCADE,
    seq           BIGINT NOT NULL,
    state         TEXT NOT NULL,
    size          BIGINT NOT NULL,
    payload       TEXT NOT NULL,
    pending_rows  TEXT NOT NULL,
    pending_count BIGINT NOT NULL,
    failed_count  BIGINT NOT NULL DEFAULT 0,
    failures      TEXT NOT NULL DEFAULT '',
    recognised    BIGINT NOT NULL DEFAULT 0,
    attempts      BIGINT NOT NULL DEFAULT 0,
    last_error    TEXT NOT NULL DEFAULT '',
    sent_at       TIMESTAMP,
    updated_at    TIMESTAMP NOT NULL,
    PRIMARY KEY (job_id, seq)
);

-- +goose Down
DROP TABLE upload_chunks;
DROP TABLE upload_issues;
DROP TABLE upload_jobs;
