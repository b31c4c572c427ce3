-- How an upload was read and what its person acknowledged. reading: which sheet of the
-- file was read (the one it opens on, or another when its headings were not there), the
-- heading rows, the columns not read, the format (JSON the uploads package reads), for the
-- preview. acknowledged: the kinds of warning the person confirmed when committing (an
-- amount far below the others, dates read month-first, a total row skipped, …), kept with
-- the job beside the audit entry that says so.

-- +goose Up
ALTER TABLE upload_jobs ADD COLUMN reading TEXT NOT NULL DEFAULT '';
ALTER TABLE upload_jobs ADD COLUMN acknowledged TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE upload_jobs DROP COLUMN acknowledged;
ALTER TABLE upload_jobs DROP COLUMN reading;
