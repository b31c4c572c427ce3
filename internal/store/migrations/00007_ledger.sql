-- The ledger: the portal's own read model of every bill component at the billing
-- service (internal/ledger). The service stays the source of truth; these tables are
-- what the portal reads. Students are the roster (students, 00002): the ledger's sync
-- fills it from the service's student list.
--
-- Instants are BIGINT microseconds since 1970 (UTC) and calendar days BIGINT days since
-- 1970, not TIMESTAMPs: at a million rows the ledger sorts, ranges and adds them up on
-- every page, and integers compare and index the same way, cheaply, in both engines.
-- Nothing that depends on today (late, expired) is stored: queries compute it from
-- due_day, expiry_day and today.

-- +goose Up
CREATE TABLE ledger_components (
    id           TEXT PRIMARY KEY,          -- bill_component_id
    bill_id      TEXT NOT NULL DEFAULT '',
    nis          TEXT NOT NULL,             -- bill_key
    nis_key      TEXT NOT NULL,             -- NIS sort key: numeric NIS by value, before the others
    student_name TEXT NOT NULL DEFAULT '',  -- bill_name
    account_code TEXT NOT NULL,
    name         TEXT NOT NULL,             -- bill_component_name
    amount       BIGINT NOT NULL,
    penalty      BIGINT NOT NULL,
    active_us    BIGINT,                    -- NULL: no active date
    due_us       BIGINT NOT NULL,
    expiry_us    BIGINT NOT NULL,
    due_day      BIGINT NOT NULL,           -- the UTC calendar day of due_us
    expiry_day   BIGINT NOT NULL,           -- the UTC calendar day of expiry_us
    -- kind: 0 open (not paid, not deleted), 1 paid, 2 deleted. state is the service's
    -- state when last read, folded (provisioned, expired, paid, deleted, or an unknown one
    -- as sent), raw_state as sent. Whether an open component is expired is not read
    -- from state but from expiry_day and today, so it is never stale.
    kind         BIGINT NOT NULL,
    state        TEXT NOT NULL,
    raw_state    TEXT NOT NULL DEFAULT '',
    amount_paid  BIGINT NOT NULL DEFAULT 0,
    paid_us      BIGINT,                    -- NULL until paid
    paid_day     BIGINT,                    -- the day of paid_us in the ledger's zone
    ref_number   TEXT NOT NULL DEFAULT '',
    notes        TEXT NOT NULL DEFAULT '',
    created_us   BIGINT NOT NULL,
    updated_us   BIGINT NOT NULL DEFAULT 0, -- 0: the service sent none
    written_us   BIGINT NOT NULL            -- when the ledger last changed the row
);

-- Newest first, the service's order; also the ranges a reconcile compares page by page.
CREATE INDEX ledger_components_created ON ledger_components (created_us, id);
-- The bills list: one index per sort column, per kind, newest first within equal values;
-- expiry_day rides along so the open tabs tell expired rows without the table.
CREATE INDEX ledger_components_kind_created ON ledger_components (kind, created_us, id, expiry_day);
CREATE INDEX ledger_components_kind_due ON ledger_components (kind, due_day, created_us DESC, id DESC, expiry_day);
CREATE INDEX ledger_components_kind_amount ON ledger_components (kind, amount, created_us DESC, id DESC, expiry_day);
CREATE INDEX ledger_components_kind_nis ON ledger_components (kind, nis_key, created_us DESC, id DESC, expiry_day);
CREATE INDEX ledger_components_paid ON ledger_components (paid_day, paid_us, created_us, id) WHERE kind = 1;
CREATE INDEX ledger_components_paid_at ON ledger_components (paid_us, created_us DESC, id DESC) WHERE kind = 1;
-- A student's components; a search by name or NIS goes through the roster to these, and
-- the columns the totals and the page order need ride along, so thousands of matches
-- are added up and ordered from the index alone.
CREATE INDEX ledger_components_nis ON ledger_components (nis, kind, expiry_day, due_day, amount, penalty, amount_paid, created_us, id);
-- The open components by expiry then due: what is payable today is a range of it.
CREATE INDEX ledger_components_open ON ledger_components (expiry_day, due_day, nis, amount, penalty, account_code, due_us) WHERE kind = 0;
CREATE INDEX ledger_components_ref ON ledger_components (ref_number) WHERE ref_number <> '';
CREATE INDEX ledger_components_notes ON ledger_components (notes) WHERE notes <> '';

-- Summary tables, kept in the same transaction as every write to ledger_components, so
-- that the dashboard and the bills list's totals add up groups, not a million rows.
-- Groups of open components by everything that decides their figures on any day.
CREATE TABLE ledger_open_totals (
    due_day      BIGINT NOT NULL,
    expiry_day   BIGINT NOT NULL,
    account_code TEXT NOT NULL,
    name         TEXT NOT NULL,
    components   BIGINT NOT NULL,
    amount       BIGINT NOT NULL,
    penalty      BIGINT NOT NULL,
    PRIMARY KEY (due_day, expiry_day, account_code, name)
);

-- Groups of paid components by payment day (-1: paid without a date), account and due day.
-- penalty_paid is the part of amount_paid above amount.
CREATE TABLE ledger_paid_totals (
    paid_day     BIGINT NOT NULL,
    account_code TEXT NOT NULL,
    due_day      BIGINT NOT NULL,
    components   BIGINT NOT NULL,
    amount       BIGINT NOT NULL,
    amount_paid  BIGINT NOT NULL,
    penalty_paid BIGINT NOT NULL,
    PRIMARY KEY (paid_day, account_code, due_day)
);

-- Payment callbacks as received, one row per ref_number however often it is delivered.
CREATE TABLE ledger_callbacks (
    ref_number       TEXT PRIMARY KEY,
    bill_key         TEXT NOT NULL,
    paid_us          BIGINT,
    total            BIGINT NOT NULL,
    components       BIGINT NOT NULL,  -- components listed
    applied          BIGINT NOT NULL,  -- of them, changed in the ledger on arrival
    pending          BIGINT NOT NULL,  -- of them, not yet in the ledger (a sync brings them)
    deliveries       BIGINT NOT NULL,
    received_at      TIMESTAMP NOT NULL,
    last_received_at TIMESTAMP NOT NULL,
    signature        TEXT NOT NULL,
    body             TEXT NOT NULL
);

CREATE INDEX ledger_callbacks_received ON ledger_callbacks (received_at);
CREATE INDEX ledger_callbacks_pending ON ledger_callbacks (pending) WHERE pending > 0;

-- Where the ledger's sync stands, shared by every instance (one row, name 'ledger').
CREATE TABLE ledger_state (
    name                TEXT PRIMARY KEY,
    zone                TEXT NOT NULL DEFAULT '',     -- the zone paid_day is computed in
    fill_state          TEXT NOT NULL DEFAULT 'empty', -- empty, filling, filled
    fill_offset         BIGINT NOT NULL DEFAULT 0,     -- where a first fill resumes
    fill_read           BIGINT NOT NULL DEFAULT 0,
    fill_started_at     TIMESTAMP,
    fill_done_at        TIMESTAMP,
    payments_since      TIMESTAMP,                     -- start of the last payments sweep that ended well
    synced_at           TIMESTAMP,                     -- the last sync of any kind that ended well
    reconciled_at       TIMESTAMP,                     -- the last reconcile that ended well
    reconcile_asked_at  TIMESTAMP,                     -- an admin asked for a reconcile
    attempt_kind        TEXT NOT NULL DEFAULT '',
    attempt_started_at  TIMESTAMP,
    attempt_ended_at    TIMESTAMP,
    attempt_ok          BIGINT NOT NULL DEFAULT 0,
    attempt_error_kind  TEXT NOT NULL DEFAULT '',      -- unavailable, unauthorized, timeout, other
    attempt_error       TEXT NOT NULL DEFAULT '',
    attempt_calls       BIGINT NOT NULL DEFAULT 0,
    attempt_summary     TEXT NOT NULL DEFAULT '',
    search_page         BIGINT NOT NULL DEFAULT 0,     -- largest page the component search has answered
    student_page        BIGINT NOT NULL DEFAULT 0,     -- largest page the student list has answered
    change_seq          BIGINT NOT NULL DEFAULT 0      -- bumped by every write: "what changed since"
);

INSERT INTO ledger_state (name) VALUES ('ledger');

-- Named leases: only the instance holding a lease does its work (the ledger's sync).
-- Same rules as an upload job's lease (00005): free, already the owner's, or lapsed.
CREATE TABLE leases (
    name        TEXT PRIMARY KEY,
    lease_owner TEXT NOT NULL DEFAULT '',
    lease_until TIMESTAMP
);

INSERT INTO leases (name) VALUES ('ledger.sync');

-- +goose Down
DROP TABLE leases;
DROP TABLE ledger_state;
DROP TABLE ledger_callbacks;
DROP TABLE ledger_paid_totals;
DROP TABLE ledger_open_totals;
DROP TABLE ledger_components;
