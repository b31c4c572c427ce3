package uploads

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
)

// errorsFile is the stored name of the job's error workbook in p's language.
func errorsFile(p i18n.Printer) string { return store.UploadErrorsPrefix + p.Lang.String() }

// PrepareErrorWorkbook makes sure the job's error workbook in p's language is stored and
// returns its size. It is made once per language (the first download; an analysis again
// forgets it) and then served as a file from the database: a workbook is costly to make
// (the sheet is read again, every problem is written), so it is made under the analyses'
// semaphore, never by several downloads at once in one instance.
func (r *Runner) PrepareErrorWorkbook(ctx context.Context, j store.UploadJob, p i18n.Printer) (int64, error) {
	if !j.FileKept {
		return 0, ErrFileGone
	}
	name := errorsFile(p)
	if size, err := r.db.UploadFileSize(ctx, j.ID, name); err == nil || !isNotFound(err) {
		return size, err
	}
	// Several downloads of one workbook at once wait for the same making, a background
	// work of the runner (bounded by it, waited for by Stop): it goes on when one of the
	// downloads gives up.
	ch := r.books.DoChan(j.ID+"/"+name, func() (any, error) {
		type made struct {
			size int64
			err  error
		}
		done := make(chan made, 1)
		if !r.jobs.Go(func() {
			size, err := r.makeErrorWorkbook(r.jobs.Context(), j, name, p)
			done <- made{size, err}
		}) {
			return int64(0), ErrStopped
		}
		m := <-done
		return m.size, m.err
	})
	select {
	case res := <-ch:
		if res.Err != nil {
			return 0, res.Err
		}
		return res.Val.(int64), nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// makeErrorWorkbook makes and stores the job's error workbook called name, in p's
// language, under the analyses' semaphore.
func (r *Runner) makeErrorWorkbook(ctx context.Context, j store.UploadJob, name string, p i18n.Printer) (int64, error) {
	select {
	case r.slots <- struct{}{}:
		defer func() { <-r.slots }()
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	// Another download may have made it while this one waited.
	if size, err := r.db.UploadFileSize(ctx, j.ID, name); err == nil || !isNotFound(err) {
		return size, err
	}
	tmp, err := r.tempFile("errors")
	if err != nil {
		return 0, fmt.Errorf("uploads: error workbook: %w", err)
	}
	defer removeTemp(tmp)
	err = r.withSheet(ctx, j.ID, func(path string) error {
		return WriteErrorWorkbook(ctx, tmp, path, Kind(j.Kind), r.cfg.Accounts, r.cfg.Limits, r.db.AllUploadIssues(ctx, j.ID), p)
	})
	if err != nil {
		return 0, err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return 0, fmt.Errorf("uploads: error workbook: %w", err)
	}
	size, err := r.db.PutUploadFile(ctx, j.ID, name, tmp)
	if errors.Is(err, store.ErrConflict) {
		// Another instance stored it at the same moment: serve theirs.
		return r.db.UploadFileSize(ctx, j.ID, name)
	}
	if err != nil {
		return 0, err
	}
	if now, err := r.db.UploadJobByID(ctx, j.ID); err == nil && !now.FileKept {
		// Discarded or cleaned up while it was made: nothing of it stays.
		_ = r.db.DeleteUploadFiles(ctx, j.ID, name)
		return 0, ErrFileGone
	}
	return size, nil
}

// CopyErrorWorkbook writes the stored error workbook in p's language (PrepareErrorWorkbook
// first) to w.
func (r *Runner) CopyErrorWorkbook(ctx context.Context, j store.UploadJob, p i18n.Printer, w io.Writer) error {
	_, err := r.db.CopyUploadFile(ctx, j.ID, errorsFile(p), w)
	if isNotFound(err) {
		return ErrFileGone
	}
	return err
}

// ErrorWorkbook writes the job's error workbook in p's language to w, making it first if
// it is not stored yet.
func (r *Runner) ErrorWorkbook(ctx context.Context, j store.UploadJob, w io.Writer, p i18n.Printer) error {
	if _, err := r.PrepareErrorWorkbook(ctx, j, p); err != nil {
		return err
	}
	return r.CopyErrorWorkbook(ctx, j, p, w)
}
