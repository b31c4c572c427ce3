-- Where each payment was made (issue 29): the channel a bursar reads receipts by (bank,
-- minimarket, e-wallet, the school's counter), the provider's admin fee and references,
-- and, for the counter, who took the money. The service's component records carry none
-- of it: a bank payment's comes from its callback, written only once the service
-- confirmed the payment (in the confirmation's transaction), as that payment's metadata;
-- a counter payment's from the counter itself (its row is written before the payment is
-- sent, state 'sending', and kept as 'recorded' once the service answered, dropped when
-- it refused). A paid component whose (nis, ref_number) has no row here was found by the
-- sync without a confirmed callback: its channel is not known. Figures come from the
-- ledger's components, never from here: a row only says where a payment was made.

-- +goose Up
CREATE TABLE ledger_payment_channels (
    nis          TEXT NOT NULL,              -- the payment's student (bill_key)
    ref_number   TEXT NOT NULL,              -- the payment's reference, as the service keeps it
    channel      TEXT NOT NULL,              -- bank, minimarket, ewallet, other, counter
    merchant     TEXT NOT NULL DEFAULT '',   -- the callback's merchant_name, as sent
    admin_fee    BIGINT NOT NULL DEFAULT 0,  -- the callback's admin_fee, rupiah
    merchant_ref TEXT NOT NULL DEFAULT '',   -- the callback's merchant_ref_number
    cashier      TEXT NOT NULL DEFAULT '',   -- counter: the username of who took it
    cashier_name TEXT NOT NULL DEFAULT '',   -- counter: their display name then
    state        TEXT NOT NULL,              -- recorded; counter: sending until the service answered
    recorded_us  BIGINT NOT NULL,            -- when the portal wrote it (UTC microseconds)
    PRIMARY KEY (nis, ref_number)
);
-- A cashier's counter payments of a day (the closing's payments sent without an answer).
CREATE INDEX ledger_payment_channels_counter ON ledger_payment_channels (recorded_us, cashier) WHERE channel = 'counter';

-- +goose Down
DROP TABLE ledger_payment_channels;
