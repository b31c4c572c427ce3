package uploads

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/store"
)

// options are the reading options for a kind, as the commit uses them: components
// already there are searched at the service.
func (r *Runner) options(kind Kind) Options {
	return Options{Kind: kind, Accounts: r.cfg.Accounts, Limits: r.cfg.Limits,
		Students: &Directory{DB: r.db, Client: r.client, Concurrency: r.cfg.LookupConcurrency, Clock: r.cfg.Clock},
		Existing: &Finder{Client: r.client, Concurrency: r.cfg.LookupConcurrency}}
}

// previewOptions are the analysis's: components already there are searched in the
// ledger when the portal keeps one (no call per day of the sheet); the commit asks the
// service again before it sends anything, so a ledger behind the service costs a wrong
// count in the preview, never a component twice.
func (r *Runner) previewOptions(kind Kind) Options {
	o := r.options(kind)
	bills := &BillDirectory{Client: r.client, Concurrency: r.cfg.LookupConcurrency}
	if r.writer != nil && r.writer.Ledger != nil {
		o.Existing = &Finder{Source: r.writer.Ledger, Concurrency: r.cfg.LookupConcurrency}
		bills.Ledger = r.writer.Ledger
	}
	o.Bills = bills
	o.Roster = r.db
	o.Today = r.cfg.Calendar.Day()
	return o
}

// startAnalysis analyses a job in the background (once at a time per job).
func (r *Runner) startAnalysis(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, running := r.analyses[id]; running {
		return
	}
	ctx, cancel := context.WithCancel(r.jobs.Context())
	started := r.jobs.Go(func() {
		defer func() {
			r.mu.Lock()
			delete(r.analyses, id)
			r.mu.Unlock()
		}()
		defer cancel()
		go func() {
			select {
			case <-r.jobs.Quit():
				cancel() // an analysis is cheap to redo: stopping ends it
			case <-ctx.Done():
			}
		}()
		select {
		case r.slots <- struct{}{}:
			defer func() { <-r.slots }()
		case <-ctx.Done():
			return
		}
		if err := r.analyseLeased(ctx, id); err != nil && ctx.Err() == nil {
			r.log.Error("upload analysis", "job", id, "err", err)
		}
	})
	if !started {
		cancel()
		return
	}
	r.analyses[id] = cancel
}

// stopAnalysis stops the job's analysis if this instance runs it.
func (r *Runner) stopAnalysis(id string) {
	r.mu.Lock()
	cancel := r.analyses[id]
	r.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// watchAnalyses takes over, every LeaseRenew, the analyses whose lease is free or lapsed:
// those of an instance that stopped or died while reading a sheet, and uploads received
// by a busy instance.
func (r *Runner) watchAnalyses() {
	ctx := r.jobs.Context()
	for r.jobs.Sleep(ctx, r.cfg.LeaseRenew) {
		jobs, err := r.db.UploadJobsFreeToTake(ctx, StateAnalysing, r.now())
		if err != nil {
			if ctx.Err() == nil {
				r.log.Error("upload analyses to take over", "err", err)
			}
			continue
		}
		for _, j := range jobs {
			r.startAnalysis(j.ID)
		}
	}
}

// analysisLeases are the upload jobs' leases as an analysis holds them: at its end it
// frees the lease only if the upload was not committed meanwhile. This instance's loop
// may hold the lease again by then to send it, and that lease is not the analysis's to
// free (freed, another instance could take the job from under the sending one).
type analysisLeases struct{ store.JobLeases }

// Release implements jobs.Leases.
func (l analysisLeases) Release(ctx context.Context, id, owner string) error {
	return l.JobLeases.ReleaseUnlessIn(ctx, id, owner, StateQueued, StateChecking, StateSending)
}

// analyseLeased analyses under the job's lease, like a job's run: when several portal
// instances start together, each resumes the unfinished analyses, and only the one that
// claims an upload reads it (two would trip over each other's problem rows). One whose
// lease is held elsewhere is left to that instance, or to the next start after it lapsed.
func (r *Runner) analyseLeased(ctx context.Context, id string) error {
	l := r.jobs.Lease
	l.Leases = analysisLeases{r.db.JobLeases(store.UploadJobsTable)}
	held, err := l.Hold(ctx, id, func(ctx context.Context) error {
		err := r.analyse(ctx, id)
		if j, jerr := r.db.UploadJobByID(context.WithoutCancel(ctx), id); jerr == nil && j.State == StateDiscarded {
			// Discarded while it was read: what the analysis wrote since goes too.
			r.removeFile(context.WithoutCancel(ctx), id)
		}
		return err
	})
	if !held && err == nil {
		r.log.Info("upload analysis runs in another instance", "job", id)
	}
	return err
}

// issueBatch is how many problems are written to the database at once.
const issueBatch = 1000

// MaxIssuesKept is how many of a sheet's problems are kept, the first found: enough to
// fix a sheet by (the page lists them, the error workbook marks them), while a sheet of
// 200,000 bad rows with a million problems does not write a million rows. Every problem
// is still counted, exactly, per kind; and every bad row is remembered (a RowSet), so the
// commit skips them all.
const MaxIssuesKept = 10_000

// kindKey is a kind of problem: a code in a column.
type kindKey struct {
	col  int
	code string
}

// issueCounter counts problems per kind, keeping the first of each as its example.
type issueCounter struct {
	kinds map[kindKey]*store.UploadIssueKind
}

func (c *issueCounter) add(is store.UploadIssue) {
	k := kindKey{is.Col, is.Code}
	if kind, ok := c.kinds[k]; ok {
		kind.Count++
		return
	}
	if c.kinds == nil {
		c.kinds = map[kindKey]*store.UploadIssueKind{}
	}
	c.kinds[k] = &store.UploadIssueKind{Col: is.Col, Code: is.Code, Count: 1, Row: is.Row, Args: is.Args}
}

// list is the kinds, the most frequent first (then by column).
func (c *issueCounter) list() []store.UploadIssueKind {
	out := make([]store.UploadIssueKind, 0, len(c.kinds))
	for _, k := range c.kinds {
		out = append(out, *k)
	}
	slices.SortFunc(out, func(a, b store.UploadIssueKind) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		if a.Col != b.Col {
			return a.Col - b.Col
		}
		return strings.Compare(a.Code, b.Code)
	})
	return out
}

func (r *Runner) analyse(ctx context.Context, id string) error {
	j, err := r.db.UploadJobByID(ctx, id)
	if err != nil {
		return err
	}
	if j.State != StateAnalysing {
		return nil
	}
	// What an earlier, interrupted or repeated, analysis left.
	if err := r.db.DeleteUploadIssues(ctx, id); err != nil {
		return err
	}
	if err := r.db.DeleteUploadFiles(ctx, id, store.UploadBadRows); err != nil {
		return err
	}
	if err := r.db.DeleteUploadFilesLike(ctx, id, store.UploadErrorsPrefix); err != nil {
		return err
	}
	var (
		batch   []store.UploadIssue
		kept    int
		counter issueCounter
	)
	flush := func() error {
		err := r.db.InsertUploadIssues(ctx, id, kept, batch)
		kept += len(batch)
		batch = batch[:0]
		return err
	}
	if err := r.db.DeleteUploadFiles(ctx, id, store.UploadRows, store.UploadChanges, uploadAid); err != nil {
		return err
	}
	rowsFile, err := r.tempFile("rows")
	if err != nil {
		return fmt.Errorf("uploads: keep rows: %w", err)
	}
	defer removeTemp(rowsFile)
	keep := bufio.NewWriterSize(rowsFile, 64<<10)
	var sum Summary
	err = r.withSheet(ctx, id, func(path string) error {
		var err error
		o := r.previewOptions(Kind(j.Kind))
		o.Keep = func(row int, item any) error { return keepRow(keep, item) }
		sum, err = Analyse(ctx, path, o, func(is Issue) error {
			st := is.Stored()
			counter.add(st)
			if kept+len(batch) >= r.cfg.MaxIssues {
				return nil // counted, not kept
			}
			batch = append(batch, st)
			if len(batch) >= issueBatch {
				return flush()
			}
			return nil
		})
		return err
	})
	if err == nil {
		err = flush()
	}
	if err == nil {
		err = r.saveBadRows(ctx, id, sum.BadRows)
	}
	if err == nil {
		err = r.saveKeptRows(ctx, id, keep, rowsFile)
	}
	if err == nil && len(sum.Aid) > 0 {
		err = r.saveAid(ctx, id, sum.Aid)
	}
	if err == nil && sum.Changes.Count+sum.Changes.Unchanged > 0 {
		var b []byte
		if b, err = json.Marshal(sum.Changes); err == nil {
			_, err = r.db.PutUploadFile(ctx, id, store.UploadChanges, bytes.NewReader(b))
		}
	}
	if ctx.Err() != nil {
		return ctx.Err() // stopping: analysed again at the next start
	}
	a := store.UploadAnalysis{State: StateReady, RowsTotal: sum.Rows, RowsNew: sum.New, RowsAlready: sum.Already,
		RowsError: sum.Errors, Issues: sum.Issues, IssuesKept: kept, IssueKinds: counter.list()}
	if b, jerr := json.Marshal(sum.Reading); jerr == nil && sum.Reading.Format != "" {
		a.Reading = string(b)
	}
	for _, t := range sum.Totals {
		a.Totals = append(a.Totals, store.UploadTotal{AccountCode: t.AccountCode, Rows: t.Rows, Amount: t.Amount})
	}
	sample, serr := EncodeSample(sum.Sample)
	if serr != nil {
		return serr
	}
	a.Sample = sample
	var fe *FileError
	switch {
	case errors.Is(err, ErrFileGone):
		a = store.UploadAnalysis{State: StateInvalid, Problem: "file_gone"}
		err = nil
	case errors.As(err, &fe):
		a = store.UploadAnalysis{State: StateInvalid, Problem: fe.Code, ProblemArgs: fe.Args}
		err = nil
	case err != nil && isUpstream(err):
		r.log.Warn("upload analysis: billing service", "job", id, "err", err)
		a = store.UploadAnalysis{State: StateInvalid, Problem: "upstream"}
		err = nil
	case err != nil:
		a = store.UploadAnalysis{State: StateInvalid, Problem: "internal"}
	}
	if a.State == StateInvalid {
		// A file that cannot be used keeps no problems of its cells.
		if derr := r.db.DeleteUploadIssues(context.WithoutCancel(ctx), id); derr != nil {
			return derr
		}
	}
	if _, serr := r.db.SaveUploadAnalysis(context.WithoutCancel(ctx), id, StateAnalysing, a); serr != nil {
		return serr
	}
	return err
}

// saveBadRows keeps the rows found wrong, for the commit to skip.
func (r *Runner) saveBadRows(ctx context.Context, id string, rows RowSet) error {
	b, err := rows.MarshalBinary()
	if err != nil {
		return err
	}
	_, err = r.db.PutUploadFile(ctx, id, store.UploadBadRows, bytes.NewReader(b))
	return err
}

// keepRow writes a valid row as the commit will send it: one JSON item a line.
func keepRow(w *bufio.Writer, item any) error {
	var it any
	switch v := item.(type) {
	case Component:
		it = compItemOf(v)
	case Correction:
		c := compItemOf(v.Component)
		c.ID, c.Set = v.ID, v.Set
		it = c
	case Student:
		it = studentItemOf(v)
	case StudentUpdate:
		st := studentItemOf(v.Student)
		st.Update, st.KeyName = true, v.KeyName
		it = st
	default:
		return fmt.Errorf("uploads: keep a row of type %T", item)
	}
	b, err := json.Marshal(it)
	if err != nil {
		return err
	}
	_, _ = w.Write(b)
	return w.WriteByte('\n')
}

// Changes are the corrections an analysed components sheet asks for (zero when none).
func (r *Runner) Changes(ctx context.Context, id string) (Changes, error) {
	var buf bytes.Buffer
	var ch Changes
	if _, err := r.db.CopyUploadFile(ctx, id, store.UploadChanges, &buf); err != nil {
		if isNotFound(err) {
			return ch, nil
		}
		return ch, err
	}
	err := json.Unmarshal(buf.Bytes(), &ch)
	return ch, err
}

// saveKeptRows stores the rows written to f through w, for the commit.
func (r *Runner) saveKeptRows(ctx context.Context, id string, w *bufio.Writer, f *os.File) error {
	if err := w.Flush(); err != nil {
		return fmt.Errorf("uploads: keep rows: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("uploads: keep rows: %w", err)
	}
	_, err := r.db.PutUploadFile(ctx, id, store.UploadRows, bufio.NewReaderSize(f, 64<<10))
	return err
}

// badRows are the rows the analysis found wrong. Uploads analysed before the rows were
// kept as a set kept all their problems: their rows are those of the problems.
func (r *Runner) badRows(ctx context.Context, id string) (func(row int) bool, error) {
	var buf bytes.Buffer
	_, err := r.db.CopyUploadFile(ctx, id, store.UploadBadRows, &buf)
	if isNotFound(err) {
		rows, err := r.db.UploadErrorRows(ctx, id)
		if err != nil {
			return nil, err
		}
		return func(row int) bool { _, found := slices.BinarySearch(rows, row); return found }, nil
	}
	if err != nil {
		return nil, err
	}
	var set RowSet
	if err := set.UnmarshalBinary(buf.Bytes()); err != nil {
		return nil, err
	}
	return set.Has, nil
}

// isUpstream reports whether err came from talking to the billing service.
func isUpstream(err error) bool {
	var apiErr *billing.APIError
	return errors.As(err, &apiErr) || errors.Is(err, billing.ErrTimeout) || errors.Is(err, billing.ErrUnavailable) ||
		errors.Is(err, billing.ErrUnauthorized)
}
