-- What an upload's page shows beyond its counts, and how a job waits for the service.
-- issues_kept: a sheet can have a million problems; only the first few thousand are kept
-- in upload_issues (issues stays the exact total), and issue_kinds holds the exact count
-- of each kind of problem (JSON: column, code, count and the first one's row and
-- arguments). Uploads from before kept all theirs. sample: the first rows as they will be
-- sent (JSON), for the preview. waiting_since: when a committed job found the service
-- down (NULL when it is not waiting); hurry_at: when a person asked it to try again now.

-- +goose Up
ALTER TABLE upload_jobs ADD COLUMN issues_kept BIGINT NOT NULL DEFAULT 0;
ALTER TABLE upload_jobs ADD COLUMN issue_kinds TEXT NOT NULL DEFAULT '';
ALTER TABLE upload_jobs ADD COLUMN sample TEXT NOT NULL DEFAULT '';
ALTER TABLE upload_jobs ADD COLUMN waiting_since TIMESTAMP;
ALTER TABLE upload_jobs ADD COLUMN hurry_at TIMESTAMP;
UPDATE upload_jobs SET issues_kept = issues;

-- +goose Down
ALTER TABLE upload_jobs DROP COLUMN hurry_at;
ALTER TABLE upload_jobs DROP COLUMN waiting_since;
ALTER TABLE upload_jobs DROP COLUMN sample;
ALTER TABLE upload_jobs DROP COLUMN issue_kinds;
ALTER TABLE upload_jobs DROP COLUMN issues_kept;
