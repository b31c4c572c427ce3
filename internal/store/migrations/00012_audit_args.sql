-- The audit log in words: each entry keeps the structured arguments of its action (the
-- student's name and NIS, how many components, the total, the receipt number, the upload),
-- as a JSON object of strings, so the log page can say what happened in the reader's
-- language and link to the student or the upload. Entries written before this column
-- existed keep '' and are worded from their action and target alone.

-- +goose Up
ALTER TABLE audit_log ADD COLUMN args TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE audit_log DROP COLUMN args;
