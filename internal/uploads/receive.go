package uploads

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
// SHA-256, records the upload and starts its analysis. When the same file was uploaded
// before, the upload is held instead, until the person confirms.
func (r *Runner) Receive(ctx context.Context, actor auth.Actor, kind Kind, name string, src io.Reader) (Received, error) {
	ext := strings.ToLower(filepath.Ext(name))
	switch {
	case ext == ".xls":
		return Received{}, &FileError{Code: "old_or_protected"}
	case ext != ".xlsx":
		return Received{}, &FileError{Code: "not_xlsx"}
	}
	if err := os.MkdirAll(r.cfg.Dir, 0o750); err != nil {
		return Received{}, fmt.Errorf("uploads: create upload directory: %w", err)
	}
	tmp, err := os.CreateTemp(r.cfg.Dir, "receive-*.part")
	if err != nil {
		return Received{}, fmt.Errorf("uploads: store file: %w", err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(src, r.cfg.MaxBytes+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Received{}, fmt.Errorf("uploads: store file: %w", err)
	}
	if n > r.cfg.MaxBytes {
		return Received{}, ErrTooBig
	}
	if n == 0 {
		return Received{}, &FileError{Code: "empty_file"}
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
	job, err := r.db.CreateUploadJob(ctx, store.UploadJob{Kind: string(kind), FileName: cleanName(name), FileSHA256: sum,
		FileSize: n, FileKept: true, State: state, UploadedByID: actor.ID, UploadedBy: actor.Username})
	if err != nil {
		return Received{}, err
	}
	if err := os.Rename(tmp.Name(), r.Path(job.ID)); err != nil {
		_, _ = r.db.SetUploadJobState(ctx, job.ID, StateDiscarded, state)
		_ = r.db.SetUploadFileKept(ctx, job.ID, false)
		return Received{}, fmt.Errorf("uploads: store file: %w", err)
	}
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
