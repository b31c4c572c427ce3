-- The ledger recognises a fee plan's components from the service's own data: the key
-- "[plan CODE YYYY-MM]" a plan writes into each component's notes is read by every write
-- of the ledger (the sync, the portal's own writes, a reconcile) into this table, so the
-- plan's components (to skip what exists, to fill the kartu SPP, to correct the unpaid
-- ones) are one indexed range, not a scan of every note. A portal whose database is lost
-- and filled again from the service finds them the same way. Nothing to fill here: no
-- component carried a plan's key before plans existed.

-- +goose Up
CREATE TABLE ledger_plan_components (
    component_id TEXT PRIMARY KEY,
    plan_code    TEXT NOT NULL,
    period       TEXT NOT NULL,
    nis          TEXT NOT NULL
);

CREATE INDEX ledger_plan_components_key ON ledger_plan_components (plan_code, nis, period);

-- +goose Down
DROP TABLE ledger_plan_components;
