package uploads

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sekolah/portal/internal/store"
)

// moveLegacySheets moves into the database the sheets earlier versions kept on disk
// (<LegacyDir>/<job id>.xlsx) and removes the files. A job whose sheet is in neither
// place (its instance's disk is elsewhere, or it was lost) is marked as no longer keeping
// it: its history stays, its error workbook and commit say the file is gone. Several
// instances starting at once may race here; each file is moved once (the database write is
// checked again before a file is declared lost).
func (r *Runner) moveLegacySheets(ctx context.Context) error {
	jobs, err := r.db.UploadJobsMissingSheet(ctx)
	if err != nil || len(jobs) == 0 {
		return err
	}
	moved, lost := 0, 0
	for _, j := range jobs {
		ok, err := r.moveLegacySheet(ctx, j)
		if err != nil {
			return fmt.Errorf("uploads: move sheet of upload %s into the database: %w", j.ID, err)
		}
		if ok {
			moved++
		} else {
			lost++
		}
	}
	if r.cfg.LegacyDir != "" {
		_ = os.Remove(filepath.Join(r.cfg.LegacyDir, "tmp"))
		_ = os.Remove(r.cfg.LegacyDir) // only when empty
	}
	r.log.Info("uploaded sheets moved from the data directory into the database", "moved", moved, "not found", lost)
	return nil
}

func (r *Runner) moveLegacySheet(ctx context.Context, j store.UploadJob) (bool, error) {
	path := ""
	if r.cfg.LegacyDir != "" {
		path = filepath.Join(r.cfg.LegacyDir, j.ID+".xlsx")
	}
	f, err := os.Open(path)
	if err == nil {
		defer f.Close()
		if _, err := r.db.PutUploadFile(ctx, j.ID, store.UploadSheet, f); err != nil && !errors.Is(err, store.ErrConflict) {
			return false, err
		}
		f.Close()
		if err := os.Remove(path); err != nil {
			r.log.Warn("remove an uploaded sheet moved into the database", "file", path, "err", err)
		}
		return true, nil
	}
	if !errors.Is(err, os.ErrNotExist) && path != "" {
		return false, err
	}
	// Another instance may have moved it just now.
	if _, err := r.db.UploadFileSize(ctx, j.ID, store.UploadSheet); err == nil {
		return true, nil
	}
	r.log.Warn("an upload's sheet is neither in the database nor in the data directory: it is marked as gone", "job", j.ID, "file", j.FileName)
	return false, r.db.SetUploadFileKept(ctx, j.ID, false)
}
