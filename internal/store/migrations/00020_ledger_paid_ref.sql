-- The dashboard counts this month's payments by their reference (a receipt for two
-- components is one payment, issue 13): the month's paid components with their
-- reference, read from this index alone instead of the table.

-- +goose Up
CREATE INDEX ledger_components_paid_ref ON ledger_components (paid_day, ref_number, id) WHERE kind = 1;

-- +goose Down
DROP INDEX ledger_components_paid_ref;
