-- Uploaded sheets live in the database, not on one instance's disk: several portal
-- instances share nothing but the database, so a job taken over by another instance, and
-- Retry, work anywhere. A file is kept as numbered parts of at most 1 MiB, written and read
-- one part at a time, so neither engine nor the portal holds a 20 MB value at once. Beside
-- the sheet itself (name 'sheet') a job keeps its error workbooks, made once per language
-- ('errors.id', 'errors.en'), and the rows the analysis found wrong ('bad-rows').
-- BYTEA is PostgreSQL's binary type; SQLite stores the bytes as a blob whatever the type name.

-- +goose Up
CREATE TABLE upload_files (
    job_id TEXT NOT NULL REFERENCES upload_jobs (id) ON DELETE CASCADE,
    name   TEXT NOT NULL,
    seq    BIGINT NOT NULL,
    data   BYTEA NOT NULL,
    PRIMARY KEY (job_id, name, seq)
);

-- +goose Down
DROP TABLE upload_files;
