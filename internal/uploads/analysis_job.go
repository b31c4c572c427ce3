package uploads

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/store"
)

// options are the reading options for a kind.
func (r *Runner) options(kind Kind) Options {
	return Options{Kind: kind, Accounts: r.cfg.Accounts, Limits: r.cfg.Limits,
		Students: &Directory{DB: r.db, Client: r.client, Concurrency: r.cfg.LookupConcurrency, Now: r.now},
		Existing: &Finder{Client: r.client, Concurrency: r.cfg.LookupConcurrency}}
}

// startAnalysis analyses a job in the background (once at a time per job).
func (r *Runner) startAnalysis(id string) {
	r.mu.Lock()
	if r.analyses[id] || r.stopped || r.ctx == nil {
		r.mu.Unlock()
		return
	}
	r.analyses[id] = true
	r.wg.Add(1)
	r.mu.Unlock()
	go func() {
		defer func() {
			r.mu.Lock()
			delete(r.analyses, id)
			r.mu.Unlock()
			r.wg.Done()
		}()
		ctx, cancel := context.WithCancel(r.ctx)
		defer cancel()
		go func() {
			select {
			case <-r.quit:
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
		if err := r.analyseLeased(ctx, cancel, id); err != nil && ctx.Err() == nil {
			r.log.Error("upload analysis", "job", id, "err", err)
		}
	}()
}

// analyseLeased analyses under the job's lease, like a job's run: when several portal
// instances start together, each resumes the unfinished analyses, and only the one that
// claims an upload reads it (two would trip over each other's problem rows). One whose
// lease is held elsewhere is left to that instance, or to the next start after it lapsed.
func (r *Runner) analyseLeased(ctx context.Context, cancel context.CancelFunc, id string) error {
	now := r.now()
	until := now.Add(r.cfg.LeaseTTL)
	ok, err := r.db.ClaimUploadJob(ctx, id, r.owner, until, now)
	if err != nil {
		return fmt.Errorf("claim: %w", err)
	}
	if !ok {
		r.log.Info("upload analysis runs in another instance", "job", id)
		return nil
	}
	leaseCtx, stopLease := context.WithCancel(ctx)
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		r.keepLease(leaseCtx, cancel, id, until)
	}()
	err = r.analyse(ctx, id)
	stopLease()
	<-renewed
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer rcancel()
	if rerr := r.db.ReleaseUploadJob(rctx, id, r.owner); rerr != nil {
		r.log.Error("upload analysis: release lease", "job", id, "err", rerr)
	}
	return err
}

// issueBatch is how many problems are written to the database at once.
const issueBatch = 1000

func (r *Runner) analyse(ctx context.Context, id string) error {
	j, err := r.db.UploadJobByID(ctx, id)
	if err != nil {
		return err
	}
	if j.State != StateAnalysing {
		return nil
	}
	if err := r.db.DeleteUploadIssues(ctx, id); err != nil {
		return err
	}
	var batch []store.UploadIssue
	seq := 0
	flush := func() error {
		err := r.db.InsertUploadIssues(ctx, id, seq, batch)
		seq += len(batch)
		batch = batch[:0]
		return err
	}
	var sum Summary
	err = r.withSheet(ctx, id, func(path string) error {
		var err error
		sum, err = Analyse(ctx, path, r.options(Kind(j.Kind)), func(is Issue) error {
			batch = append(batch, is.Stored())
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
	if ctx.Err() != nil {
		return ctx.Err() // stopping: analysed again at the next start
	}
	a := store.UploadAnalysis{State: StateReady, RowsTotal: sum.Rows, RowsNew: sum.New, RowsAlready: sum.Already,
		RowsError: sum.Errors, Issues: sum.Issues}
	for _, t := range sum.Totals {
		a.Totals = append(a.Totals, store.UploadTotal{AccountCode: t.AccountCode, Rows: t.Rows, Amount: t.Amount})
	}
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
	if _, serr := r.db.SaveUploadAnalysis(context.WithoutCancel(ctx), id, StateAnalysing, a); serr != nil {
		return serr
	}
	return err
}

// isUpstream reports whether err came from talking to the billing service.
func isUpstream(err error) bool {
	var apiErr *billing.APIError
	return errors.As(err, &apiErr) || errors.Is(err, billing.ErrTimeout) || errors.Is(err, billing.ErrUnavailable) ||
		errors.Is(err, billing.ErrUnauthorized)
}
