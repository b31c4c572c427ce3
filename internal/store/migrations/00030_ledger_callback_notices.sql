-- A payment callback is a notice, not a fact (issue 30). Its signature (X-IDN-CS) covers
-- only the biller code and the reference, so anyone holding one valid signature could
-- send any body under it: another student, another component, Rp 1, a date in 2099. The
-- body is now stored as it first came and the ledger records only what the service itself
-- answers for that reference, read at once (or, while the service does not answer, as
-- soon as it does). Each stored callback says where it stands (status: unconfirmed,
-- confirmed, disputed; legacy for those applied as they came before this), how often the
-- service was asked and why it did not answer, the service's own figures of the payment
-- beside the callback's, what disagreed (a JSON list the ledger writes and reads), and the
-- resends that came with another body (counted, the last one kept; the first body stays).
--
-- Callbacks stored before this were applied as they came. Those that still named
-- components the ledger did not have are asked about like new ones; the rest are history.
-- The components they marked paid that no record of the service has confirmed since are
-- checked by the incremental sync (migration 00031's index finds them).

-- +goose Up
ALTER TABLE ledger_callbacks ADD COLUMN status TEXT NOT NULL DEFAULT 'unconfirmed';
ALTER TABLE ledger_callbacks ADD COLUMN merchant TEXT NOT NULL DEFAULT '';
ALTER TABLE ledger_callbacks ADD COLUMN bill_name TEXT NOT NULL DEFAULT '';
ALTER TABLE ledger_callbacks ADD COLUMN attempts BIGINT NOT NULL DEFAULT 0;
ALTER TABLE ledger_callbacks ADD COLUMN last_attempt_at TIMESTAMP;
ALTER TABLE ledger_callbacks ADD COLUMN last_problem TEXT NOT NULL DEFAULT '';
ALTER TABLE ledger_callbacks ADD COLUMN confirmed_at TIMESTAMP;
ALTER TABLE ledger_callbacks ADD COLUMN service_bill_key TEXT NOT NULL DEFAULT '';
ALTER TABLE ledger_callbacks ADD COLUMN service_bill_name TEXT NOT NULL DEFAULT '';
ALTER TABLE ledger_callbacks ADD COLUMN service_total BIGINT NOT NULL DEFAULT 0;
ALTER TABLE ledger_callbacks ADD COLUMN service_paid_us BIGINT;
ALTER TABLE ledger_callbacks ADD COLUMN service_components BIGINT NOT NULL DEFAULT 0;
ALTER TABLE ledger_callbacks ADD COLUMN disagreements TEXT NOT NULL DEFAULT '';
ALTER TABLE ledger_callbacks ADD COLUMN other_bodies BIGINT NOT NULL DEFAULT 0;
ALTER TABLE ledger_callbacks ADD COLUMN other_body TEXT NOT NULL DEFAULT '';
ALTER TABLE ledger_callbacks ADD COLUMN other_body_at TIMESTAMP;

UPDATE ledger_callbacks SET status = CASE WHEN pending > 0 THEN 'unconfirmed' ELSE 'legacy' END;

DROP INDEX ledger_callbacks_pending;
-- The callbacks waiting for the service (the dashboard's count, the confirmer's queue).
CREATE INDEX ledger_callbacks_status ON ledger_callbacks (status, received_at);
-- The admins' Data page lists the callbacks that disagreed or came again with another body.
CREATE INDEX ledger_callbacks_flagged ON ledger_callbacks (received_at) WHERE status = 'disputed' OR other_bodies > 0;

-- +goose Down
DROP INDEX ledger_callbacks_flagged;
DROP INDEX ledger_callbacks_status;
CREATE INDEX ledger_callbacks_pending ON ledger_callbacks (pending) WHERE pending > 0;
ALTER TABLE ledger_callbacks DROP COLUMN other_body_at;
ALTER TABLE ledger_callbacks DROP COLUMN other_body;
ALTER TABLE ledger_callbacks DROP COLUMN other_bodies;
ALTER TABLE ledger_callbacks DROP COLUMN disagreements;
ALTER TABLE ledger_callbacks DROP COLUMN service_components;
ALTER TABLE ledger_callbacks DROP COLUMN service_paid_us;
ALTER TABLE ledger_callbacks DROP COLUMN service_total;
ALTER TABLE ledger_callbacks DROP COLUMN service_bill_name;
ALTER TABLE ledger_callbacks DROP COLUMN service_bill_key;
ALTER TABLE ledger_callbacks DROP COLUMN confirmed_at;
ALTER TABLE ledger_callbacks DROP COLUMN last_problem;
ALTER TABLE ledger_callbacks DROP COLUMN last_attempt_at;
ALTER TABLE ledger_callbacks DROP COLUMN attempts;
ALTER TABLE ledger_callbacks DROP COLUMN bill_name;
ALTER TABLE ledger_callbacks DROP COLUMN merchant;
ALTER TABLE ledger_callbacks DROP COLUMN status;
