-- A WhatsApp status can reach the webhook before the portal has recorded the message it
-- names: the Cloud API answers the send, posts "sent" moments later, and the portal writes
-- the message (with the wamid from that answer) only after the answer. A status that
-- names no recorded message is kept here and applied when the message is recorded (in
-- the same transaction), so no status is lost to that race. Statuses naming a message
-- the portal never sends (another app on the same number) stay here unread; they are
-- pruned after a week.

-- +goose Up
CREATE TABLE message_statuses_early (
    provider_id  TEXT NOT NULL,
    status       TEXT NOT NULL,
    status_rank  BIGINT NOT NULL,
    status_at_us BIGINT NOT NULL,
    error_code   TEXT NOT NULL DEFAULT '',
    error        TEXT NOT NULL DEFAULT '',
    received_us  BIGINT NOT NULL,
    PRIMARY KEY (provider_id, status_rank)
);

CREATE INDEX message_statuses_early_received ON message_statuses_early (received_us);

-- +goose Down
DROP TABLE message_statuses_early;
