-- Fee plans (issue 26): the school year planned in the portal. A plan is a named fee with
-- its schedule (monthly, per semester or once, from one month to another, a due day, the
-- expiry a number of days after it, optionally in instalments) and its price, with
-- amounts of their own for some grades or classes. Its code is stable and short: every
-- component the plan makes carries "[plan CODE YYYY-MM]" in its notes at the service, so
-- the plan's components are known again from the service's data alone (internal/plans).
-- Discounts (potongan, beasiswa) belong to a student, for one plan or every plan, as a
-- percentage (in hundredths of a percent) or an amount of rupiah, over a range of months.

-- +goose Up
CREATE TABLE fee_plans (
    id           TEXT PRIMARY KEY,
    code         TEXT NOT NULL,
    name         TEXT NOT NULL,
    item_name    TEXT NOT NULL,
    account_code TEXT NOT NULL,
    amount       BIGINT NOT NULL,
    penalty      BIGINT NOT NULL DEFAULT 0,
    frequency    TEXT NOT NULL,
    from_month   TEXT NOT NULL,
    to_month     TEXT NOT NULL,
    due_day      BIGINT NOT NULL,
    expiry_days  BIGINT NOT NULL,
    instalments  BIGINT NOT NULL DEFAULT 1,
    created_by   TEXT NOT NULL DEFAULT '',
    created_at   TIMESTAMP NOT NULL,
    updated_at   TIMESTAMP NOT NULL
);

CREATE UNIQUE INDEX fee_plans_code ON fee_plans (code);

-- A price of its own for a grade ("7") or a class ("Kelas 7A"); a class's wins over its grade's.
CREATE TABLE fee_plan_rates (
    plan_id TEXT NOT NULL REFERENCES fee_plans (id) ON DELETE CASCADE,
    scope   TEXT NOT NULL,
    target  TEXT NOT NULL,
    amount  BIGINT NOT NULL,
    PRIMARY KEY (plan_id, scope, target)
);

CREATE TABLE discounts (
    id            TEXT PRIMARY KEY,
    nis           TEXT NOT NULL,
    plan_id       TEXT NOT NULL DEFAULT '',
    kind          TEXT NOT NULL,
    value         BIGINT NOT NULL,
    reason        TEXT NOT NULL,
    note          TEXT NOT NULL DEFAULT '',
    from_month    TEXT NOT NULL DEFAULT '',
    to_month      TEXT NOT NULL DEFAULT '',
    granted_by    TEXT NOT NULL,
    granted_by_id TEXT NOT NULL DEFAULT '',
    created_at    TIMESTAMP NOT NULL,
    updated_at    TIMESTAMP NOT NULL
);

CREATE INDEX discounts_nis ON discounts (nis, created_at);
CREATE INDEX discounts_plan ON discounts (plan_id);

-- +goose Down
DROP TABLE discounts;
DROP TABLE fee_plan_rates;
DROP TABLE fee_plans;
