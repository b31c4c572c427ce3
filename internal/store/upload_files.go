package store

import (
	"context"
	"database/sql"
	"fmt"
	"io"
)

// The files an upload job keeps (UploadJob.FileKept says whether the sheet still is).
const (
	// UploadSheet is the uploaded sheet as it arrived.
	UploadSheet = "sheet"
	// UploadErrorsPrefix + a language ("id", "en") is the error workbook made in it.
	UploadErrorsPrefix = "errors."
	// UploadBadRows is the set of sheet rows with a problem (see uploads.RowSet).
	UploadBadRows = "bad-rows"
	// UploadRows are the rows the analysis found valid, as the commit sends them.
	UploadRows = "rows"
	// UploadChanges are a corrections sheet's changes as the preview lists them.
	UploadChanges = "changes"
)

// uploadFilePart is the most bytes of a file one row holds: files are written and read a
// part at a time, so a 20 MB sheet is never one value in memory.
const uploadFilePart = 1 << 20

// PutUploadFile stores what r yields as the job's file name (replacing one stored before)
// and returns its size; all or nothing.
func (db *DB) PutUploadFile(ctx context.Context, jobID, name string, r io.Reader) (int64, error) {
	var n int64
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		var err error
		n, err = putUploadFile(ctx, tx, jobID, name, r)
		return err
	})
	return n, err
}

// CreateUploadJobWithFile records a newly received upload and its sheet in one
// transaction: there is never a job without its file.
func (db *DB) CreateUploadJobWithFile(ctx context.Context, j UploadJob, sheet io.Reader) (UploadJob, error) {
	if j.ID == "" {
		j.ID = NewID()
	}
	now := db.Now()
	j.CreatedAt, j.UpdatedAt = now, now
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO upload_jobs (id, kind, file_name, file_sha256, file_size, file_kept,
			state, uploaded_by_id, uploaded_by, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`,
			j.ID, j.Kind, j.FileName, j.FileSHA256, j.FileSize, true, j.State, j.UploadedByID, j.UploadedBy, now); err != nil {
			return fmt.Errorf("store: create upload job: %w", err)
		}
		_, err := putUploadFile(ctx, tx, j.ID, UploadSheet, sheet)
		return err
	})
	j.FileKept = err == nil
	return j, err
}

func putUploadFile(ctx context.Context, tx *sql.Tx, jobID, name string, r io.Reader) (int64, error) {
	if _, err := tx.ExecContext(ctx, `DELETE FROM upload_files WHERE job_id = $1 AND name = $2`, jobID, name); err != nil {
		return 0, fmt.Errorf("store: replace upload file %s/%s: %w", jobID, name, err)
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO upload_files (job_id, name, seq, data) VALUES ($1, $2, $3, $4)`)
	if err != nil {
		return 0, fmt.Errorf("store: store upload file %s/%s: %w", jobID, name, err)
	}
	defer stmt.Close()
	buf := make([]byte, uploadFilePart)
	var total int64
	for seq := 0; ; seq++ {
		n, rerr := io.ReadFull(r, buf)
		if n > 0 || seq == 0 {
			// An empty file is one empty part, so it reads back as present.
			if _, err := stmt.ExecContext(ctx, jobID, name, seq, buf[:n]); err != nil {
				if IsUniqueViolation(err) {
					err = ErrConflict // another instance stored the same file meanwhile
				}
				return total, fmt.Errorf("store: store upload file %s/%s: %w", jobID, name, err)
			}
			total += int64(n)
		}
		switch {
		case rerr == io.EOF || rerr == io.ErrUnexpectedEOF:
			return total, nil
		case rerr != nil:
			return total, fmt.Errorf("store: read upload file %s/%s: %w", jobID, name, rerr)
		}
	}
}

// UploadFileSize is the size of the job's file name; ErrNotFound when it is not kept.
func (db *DB) UploadFileSize(ctx context.Context, jobID, name string) (int64, error) {
	var parts, size int64
	err := db.sql.QueryRowContext(ctx, `SELECT COUNT(*), CAST(COALESCE(SUM(LENGTH(data)), 0) AS BIGINT) FROM upload_files
		WHERE job_id = $1 AND name = $2`, jobID, name).Scan(&parts, &size)
	if err != nil {
		return 0, fmt.Errorf("store: upload file %s/%s: %w", jobID, name, err)
	}
	if parts == 0 {
		return 0, fmt.Errorf("store: upload file %s/%s: %w", jobID, name, ErrNotFound)
	}
	return size, nil
}

// CopyUploadFile writes the job's file name to w, a part at a time, and returns its
// size; ErrNotFound when it is not kept.
func (db *DB) CopyUploadFile(ctx context.Context, jobID, name string, w io.Writer) (int64, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT data FROM upload_files WHERE job_id = $1 AND name = $2 ORDER BY seq`, jobID, name)
	if err != nil {
		return 0, fmt.Errorf("store: read upload file %s/%s: %w", jobID, name, err)
	}
	defer rows.Close()
	var total int64
	parts := 0
	for rows.Next() {
		var b sql.RawBytes
		if err := rows.Scan(&b); err != nil {
			return total, fmt.Errorf("store: read upload file %s/%s: %w", jobID, name, err)
		}
		parts++
		n, err := w.Write(b)
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
	if err := rows.Err(); err != nil {
		return total, fmt.Errorf("store: read upload file %s/%s: %w", jobID, name, err)
	}
	if parts == 0 {
		return 0, fmt.Errorf("store: upload file %s/%s: %w", jobID, name, ErrNotFound)
	}
	return total, nil
}

// DeleteUploadFiles forgets the job's files with the given names, or all of them when no
// name is given.
func (db *DB) DeleteUploadFiles(ctx context.Context, jobID string, names ...string) error {
	var err error
	if len(names) == 0 {
		_, err = db.sql.ExecContext(ctx, `DELETE FROM upload_files WHERE job_id = $1`, jobID)
	}
	for _, name := range names {
		if err == nil {
			_, err = db.sql.ExecContext(ctx, `DELETE FROM upload_files WHERE job_id = $1 AND name = $2`, jobID, name)
		}
	}
	if err != nil {
		return fmt.Errorf("store: delete upload files %s: %w", jobID, err)
	}
	return nil
}

// ForgetUploadFiles forgets, in one transaction, the job's sheet and everything made from
// it (every file, the problems found) and records that the sheet is gone; the job's history
// line and its counts stay. Readers see the job either whole or forgotten, never a job said
// to be forgotten whose files are still there, nor files kept that nothing will remove.
func (db *DB) ForgetUploadFiles(ctx context.Context, jobID string) error {
	return db.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE upload_jobs SET file_kept = $1, issues_kept = 0 WHERE id = $2`,
			false, jobID); err != nil {
			return fmt.Errorf("store: forget upload files %s: %w", jobID, err)
		}
		for _, table := range []string{"upload_files", "upload_issues"} {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE job_id = $1`, jobID); err != nil {
				return fmt.Errorf("store: forget upload files %s: %w", jobID, err)
			}
		}
		return nil
	})
}

// DeleteUploadFilesLike forgets the job's files whose names start with prefix (every
// language's error workbook).
func (db *DB) DeleteUploadFilesLike(ctx context.Context, jobID, prefix string) error {
	// The prefixes used are plain names: no % or _ for LIKE to read as patterns.
	if _, err := db.sql.ExecContext(ctx, `DELETE FROM upload_files WHERE job_id = $1 AND name LIKE $2`,
		jobID, prefix+"%"); err != nil {
		return fmt.Errorf("store: delete upload files %s/%s*: %w", jobID, prefix, err)
	}
	return nil
}

// UploadJobsMissingSheet returns the jobs said to keep their sheet that have none in the
// database: uploads from before sheets were kept there, whose files are still on disk.
func (db *DB) UploadJobsMissingSheet(ctx context.Context) ([]UploadJob, error) {
	return db.queryUploadJobs(ctx, "upload jobs missing their sheet", `SELECT `+uploadJobColumns+` FROM upload_jobs
		WHERE file_kept = $1 AND NOT EXISTS (SELECT 1 FROM upload_files f WHERE f.job_id = upload_jobs.id AND f.name = $2)
		ORDER BY created_at`, true, UploadSheet)
}
