-- A cashier's closing of the day (tutup kas, issue 29): the counter's receipts of one
-- school day taken by one cashier, the cash they should hold, the cash they counted and
-- why the two differ, signed off and then locked. The receipts are kept as they were at
-- the sign-off (cash_closing_receipts), so the berita acara prints the same next year.
-- A locked closing is the only one of its cashier and day (the partial unique index); an
-- admin's reopening (with its reason) keeps the row as 'reopened', and the cashier may
-- then close the day again. Instants are UTC microseconds; day is the school's date.

-- +goose Up
CREATE TABLE cash_closings (
    id            TEXT PRIMARY KEY,
    day           TEXT NOT NULL,              -- the school's date, YYYY-MM-DD
    cashier       TEXT NOT NULL,              -- username
    cashier_name  TEXT NOT NULL DEFAULT '',   -- their display name then
    payments      BIGINT NOT NULL,            -- receipts (payments) counted in
    components    BIGINT NOT NULL,
    expected      BIGINT NOT NULL,            -- what the receipts add up to, rupiah
    counted       BIGINT NOT NULL,            -- the cash counted, rupiah
    reason        TEXT NOT NULL DEFAULT '',   -- why counted differs from expected
    state         TEXT NOT NULL,              -- locked, reopened
    signed_us     BIGINT NOT NULL,
    reopened_us   BIGINT NOT NULL DEFAULT 0,
    reopened_by   TEXT NOT NULL DEFAULT '',   -- the admin's username
    reopened_name TEXT NOT NULL DEFAULT '',
    reopen_reason TEXT NOT NULL DEFAULT ''
);
CREATE UNIQUE INDEX cash_closings_locked ON cash_closings (day, cashier) WHERE state = 'locked';
CREATE INDEX cash_closings_day ON cash_closings (day, cashier, signed_us);

CREATE TABLE cash_closing_receipts (
    closing_id   TEXT NOT NULL,
    seq          BIGINT NOT NULL,
    nis          TEXT NOT NULL,
    student_name TEXT NOT NULL DEFAULT '',
    class        TEXT NOT NULL DEFAULT '',
    ref_number   TEXT NOT NULL,
    paid_us      BIGINT NOT NULL,
    components   BIGINT NOT NULL,
    amount       BIGINT NOT NULL,
    PRIMARY KEY (closing_id, seq)
);

-- +goose Down
DROP TABLE cash_closing_receipts;
DROP TABLE cash_closings;
