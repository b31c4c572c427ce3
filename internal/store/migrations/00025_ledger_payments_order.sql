-- The payments report and its exports read the paid components of a range in payment
-- order (day, instant, NIS, id) a thousand at a time, each page starting exactly after
-- the last row it read. This index is that order, so a page is one range of it whatever
-- the planner's statistics say: without it SQLite walked the whole range and sorted it
-- for every page (a month of 100,000 payments took 9 s to export instead of 1), and
-- PostgreSQL started each page at its day's first payment and sorted the day.
-- It replaces two indexes that led with paid_day: ledger_components_paid (paid_day,
-- paid_us, created_us, id), whose ranges of payment days it serves as well (the bills
-- list's and the iterator's payment filters), and ledger_components_paid_ref (paid_day,
-- ref_number, id, migration 00020), whose month of references it carries (ref_number
-- rides along) for the dashboard's count of payments, read from the index alone. One
-- index fewer for every write of a paid component.

-- +goose Up
CREATE INDEX ledger_components_payments ON ledger_components (paid_day, paid_us, nis, id, ref_number) WHERE kind = 1;
DROP INDEX ledger_components_paid;
DROP INDEX ledger_components_paid_ref;

-- +goose Down
CREATE INDEX ledger_components_paid ON ledger_components (paid_day, paid_us, created_us, id) WHERE kind = 1;
CREATE INDEX ledger_components_paid_ref ON ledger_components (paid_day, ref_number, id) WHERE kind = 1;
DROP INDEX ledger_components_payments;
