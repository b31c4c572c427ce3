-- The ledger's sync as every instance sees it (issue 11, part 2). Each run (a first
-- fill, an incremental sync, a reconcile) is a row of ledger_runs: which instance ran
-- it, when it started and ended, how it ended and what it changed, so the admins' data
-- page shows the last incremental sync and the last reconcile whichever instance ran
-- them, and the students page shows the same sync state on every instance. Counts, not
-- sentences: the page words them in the reader's language.
--
-- ledger_state gains how many components the first fill expects (its progress in
-- percent) and a person's request to sync now, which the instance holding the sync's
-- lease picks up within seconds.

-- +goose Up
CREATE TABLE ledger_runs (
    id                 TEXT PRIMARY KEY,
    kind               TEXT NOT NULL,              -- fill, incremental, reconcile
    instance           TEXT NOT NULL,              -- the lease owner that ran it
    asked_by           TEXT NOT NULL DEFAULT '',   -- who asked for it ('' : the schedule)
    started_at         TIMESTAMP NOT NULL,
    ended_at           TIMESTAMP,                  -- NULL while it runs (or if its instance died)
    ok                 BIGINT NOT NULL DEFAULT 0,
    problem            TEXT NOT NULL DEFAULT '',   -- unavailable, timeout, unauthorized, other, stopped
    error              TEXT NOT NULL DEFAULT '',
    calls              BIGINT NOT NULL DEFAULT 0,
    new_components     BIGINT NOT NULL DEFAULT 0,
    changed_components BIGINT NOT NULL DEFAULT 0,
    students           BIGINT NOT NULL DEFAULT 0,
    removed            BIGINT NOT NULL DEFAULT 0,
    looked_up          BIGINT NOT NULL DEFAULT 0,
    corrected          BIGINT NOT NULL DEFAULT 0,
    callbacks          BIGINT NOT NULL DEFAULT 0
);

CREATE INDEX ledger_runs_kind ON ledger_runs (kind, started_at);

ALTER TABLE ledger_state ADD COLUMN fill_total BIGINT NOT NULL DEFAULT 0;
ALTER TABLE ledger_state ADD COLUMN sync_asked_at TIMESTAMP;
ALTER TABLE ledger_state ADD COLUMN sync_asked_by TEXT NOT NULL DEFAULT '';
ALTER TABLE ledger_state ADD COLUMN reconcile_asked_by TEXT NOT NULL DEFAULT '';
-- Bumped by every request to sync or reconcile now: the instance syncing runs when it
-- sees a number it has not served.
ALTER TABLE ledger_state ADD COLUMN ask_seq BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE ledger_state DROP COLUMN ask_seq;
ALTER TABLE ledger_state DROP COLUMN reconcile_asked_by;
ALTER TABLE ledger_state DROP COLUMN sync_asked_by;
ALTER TABLE ledger_state DROP COLUMN sync_asked_at;
ALTER TABLE ledger_state DROP COLUMN fill_total;
DROP TABLE ledger_runs;
