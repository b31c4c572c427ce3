package uploads

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/sekolah/portal/internal/auth"
)

// janitor forgets the sheets, error workbooks and problems of old uploads (finished jobs
// after Retention, and uploads never committed, which it discards; their history lines
// and counts stay), and the temporary copies a crash left behind.
func (r *Runner) janitor() {
	ctx := r.jobs.Context()
	for {
		r.clean(ctx)
		if !r.jobs.Sleep(ctx, time.Hour) {
			return
		}
	}
}

func (r *Runner) clean(ctx context.Context) {
	jobs, err := r.db.UploadJobsWithFilesBefore(ctx, r.now().Add(-r.cfg.Retention))
	if err != nil {
		r.log.Error("upload clean-up", "err", err)
		return
	}
	for _, j := range jobs {
		switch {
		case StateOf(j).Busy():
			continue
		case StateOf(j).Discardable():
			if err := r.Discard(ctx, j.ID, auth.SystemActor); err != nil && !errors.Is(err, ErrState) {
				r.log.Error("upload clean-up", "job", j.ID, "err", err)
			}
		default:
			r.removeFile(ctx, j.ID)
		}
	}
	// Temporary copies a crash left behind (a day is longer than any analysis or check).
	dir := r.cfg.Limits.TempDir
	if dir == "" {
		dir = os.TempDir()
	}
	left, _ := filepath.Glob(filepath.Join(dir, tempPrefix+"*"))
	for _, p := range left {
		if fi, err := os.Stat(p); err == nil && r.cfg.Clock.Since(fi.ModTime()) > 24*time.Hour {
			_ = os.Remove(p)
		}
	}
}
