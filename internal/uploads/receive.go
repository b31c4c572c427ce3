package uploads

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/store"
)

// Received is a stored upload, and the earlier uploads of the same file if any.
type Received struct {
	Job     store.UploadJob
	Earlier []store.UploadJob
}

// Receive stores the file read from src (at most MaxBytes, else ErrTooBig) with its
// SHA-256 in the database, records the upload (audited as actor's) and starts its
// analysis. When the same file
// was uploaded before, the upload is held instead, until the person confirms.
func (r *Runner) Receive(ctx context.Context, actor auth.Actor, kind Kind, name string, src io.Reader) (Received, error) {
	// The picker offers the four formats; what a file is, is found from its content when
	// it is read (an .xls that is a web page, a .csv that is a PDF say so then).
	if !slices.Contains(Formats, strings.ToLower(filepath.Ext(name))) {
		return Received{}, &FileError{Code: "not_spreadsheet"}
	}
	// A temporary copy first: the hash decides the upload's state before it is recorded,
	// and the job and its sheet are then written in one transaction.
	tmp, err := r.tempFile("receive")
	if err != nil {
		return Received{}, fmt.Errorf("uploads: store file: %w", err)
	}
	defer removeTemp(tmp)
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(src, r.cfg.MaxBytes+1))
	if err != nil {
		return Received{}, fmt.Errorf("uploads: store file: %w", err)
	}
	if n > r.cfg.MaxBytes {
		return Received{}, ErrTooBig
	}
	if n == 0 {
		return Received{}, &FileError{Code: "empty_file"}
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return Received{}, fmt.Errorf("uploads: store file: %w", err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	earlier, err := r.db.UploadJobsWithHash(ctx, sum, "", StateDiscarded)
	if err != nil {
		return Received{}, err
	}
	state := StateAnalysing
	if len(earlier) > 0 {
		state = StateHeld
	}
	job, err := r.db.CreateUploadJobWithFile(ctx, store.UploadJob{Kind: string(kind), FileName: cleanName(name), FileSHA256: sum,
		FileSize: n, State: state, UploadedByID: actor.ID, UploadedBy: actor.Username}, tmp)
	if err != nil {
		return Received{}, fmt.Errorf("uploads: store file: %w", err)
	}
	r.audit(ctx, actor, ActionReceive, job)
	if state == StateAnalysing {
		r.startAnalysis(job.ID)
	}
	return Received{Job: job, Earlier: earlier}, nil
}

// cleanName keeps the base name of what the browser sent, for the history only.
func cleanName(name string) string {
	name = filepath.Base(strings.ReplaceAll(name, `\`, "/"))
	if len(name) > 200 {
		name = name[:200]
	}
	return name
}

// tempPrefix starts the names of the runner's temporary files, so the janitor finds those
// a crash left behind.
const tempPrefix = "portal-upload-"

// tempFile makes a temporary file for a copy of a sheet or a workbook being written, in
// Limits.TempDir (the system's temporary directory unless configured).
func (r *Runner) tempFile(what string) (*os.File, error) {
	return os.CreateTemp(r.cfg.Limits.TempDir, tempPrefix+what+"-*")
}

func removeTemp(f *os.File) {
	_ = f.Close()
	_ = os.Remove(f.Name())
}

// withSheet copies the job's sheet from the database to a temporary file (internal/sheets
// reads a file in place, a part or a record at a time), calls fn with its path and
// removes it. ErrFileGone when the sheet is no longer kept.
func (r *Runner) withSheet(ctx context.Context, id string, fn func(path string) error) error {
	tmp, err := r.tempFile("sheet")
	if err != nil {
		return fmt.Errorf("uploads: copy sheet: %w", err)
	}
	defer removeTemp(tmp)
	if _, err := r.db.CopyUploadFile(ctx, id, store.UploadSheet, tmp); err != nil {
		if isNotFound(err) {
			return ErrFileGone
		}
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("uploads: copy sheet: %w", err)
	}
	return fn(tmp.Name())
}
