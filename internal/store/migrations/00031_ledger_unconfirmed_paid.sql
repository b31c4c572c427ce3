-- Components the ledger holds as paid with no record of the service behind them (no
-- updated_at): what a payment callback marked paid as it came, before callbacks were
-- confirmed with the service (issue 30). A forged body's rows were such rows, and no
-- incremental sync read them again: the sync now asks the service about each one this
-- index finds (a handful, then none: every row written since is the service's own record).

-- +goose Up
CREATE INDEX ledger_components_unconfirmed_paid ON ledger_components (id) WHERE kind = 1 AND updated_us = 0;

-- +goose Down
DROP INDEX ledger_components_unconfirmed_paid;
