-- Instalments (cicilan): an unpaid component replaced by N dated parts whose sum is the
-- original, by a correction job (kind "replace"), and undone by another that makes the
-- original again and cancels the parts. One row per component split, keyed by it, so two
-- people (or two instances) never split one component twice, nor undo one split twice.
-- The parts themselves carry their key in their notes at the service ("[cicilan <id> k/N]"),
-- so the page groups them and an undo is offered from the service's own data; this row
-- only keeps the jobs. void: the split made nothing (the service refused the parts, or the
-- original was paid meanwhile and the parts were cancelled again): it may be split again.

-- +goose Up
CREATE TABLE instalment_splits (
    original_id TEXT PRIMARY KEY,
    nis         TEXT NOT NULL,
    name        TEXT NOT NULL DEFAULT '',
    amount      BIGINT NOT NULL DEFAULT 0,
    parts       BIGINT NOT NULL DEFAULT 0,
    job_id      TEXT NOT NULL DEFAULT '',
    undo_job_id TEXT NOT NULL DEFAULT '',
    void        BOOLEAN NOT NULL DEFAULT FALSE,
    created_at  TIMESTAMP NOT NULL,
    updated_at  TIMESTAMP NOT NULL
);

CREATE INDEX instalment_splits_nis ON instalment_splits (nis);

-- +goose Down
DROP TABLE instalment_splits;
