-- A lease on an upload job: several portal instances may share one database, and only
-- the instance holding a job's lease runs it (else two could send the same chunks and
-- bill twice). lease_owner is the runner's id ('' when free); lease_until is when the
-- lease lapses unless renewed, so a job whose instance died is taken up by another.

-- +goose Up
ALTER TABLE upload_jobs ADD COLUMN lease_owner TEXT NOT NULL DEFAULT '';
ALTER TABLE upload_jobs ADD COLUMN lease_until TIMESTAMP;

-- +goose Down
ALTER TABLE upload_jobs DROP COLUMN lease_until;
ALTER TABLE upload_jobs DROP COLUMN lease_owner;
