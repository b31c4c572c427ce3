package uploads

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/store"
)

// Reasons a row was not created, as stored with the chunk (message keys under
// "uploads.fail.").
const (
	FailRejected    = "rejected"    // the service refused the row; Arg is its reason
	FailUnavailable = "unavailable" // the service kept failing; the rows can be retried
	FailRefused     = "unauthorized"
)

// compItem is a component as a chunk keeps it.
type compItem struct {
	Row     int    `json:"row"`
	NIS     string `json:"nis"`
	Code    string `json:"code"`
	Name    string `json:"name"`
	Due     string `json:"due"`
	Expiry  string `json:"expiry"`
	Active  string `json:"active,omitempty"`
	Amount  int64  `json:"amount"`
	Penalty int64  `json:"penalty,omitempty"`
	Notes   string `json:"notes,omitempty"`
}

func compItemOf(c Component) compItem {
	it := compItem{Row: c.Row, NIS: c.NIS, Code: c.AccountCode, Name: c.Name, Due: c.Due.Format(time.DateOnly),
		Expiry: c.Expiry.Format(time.DateOnly), Amount: c.Amount, Penalty: c.Penalty, Notes: c.Notes}
	if !c.Active.IsZero() {
		it.Active = c.Active.Format(time.DateOnly)
	}
	return it
}

func day(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, _ := time.Parse(time.DateOnly, s)
	return t
}

func (it compItem) input() billing.ComponentInput {
	return billing.ComponentInput{NIS: it.NIS, AccountCode: it.Code, Name: it.Name, Due: day(it.Due), Expiry: day(it.Expiry),
		Active: day(it.Active), Amount: it.Amount, Penalty: it.Penalty, Notes: it.Notes}
}

// studentItem is a student as a chunk keeps it.
type studentItem struct {
	Row   int    `json:"row"`
	NIS   string `json:"nis"`
	Name  string `json:"name"`
	Class string `json:"class,omitempty"`
	Phone string `json:"phone,omitempty"`
	Email string `json:"email,omitempty"`
}

func (it studentItem) record() billing.Student {
	return billing.Student{NIS: it.NIS, Name: it.Name, KeyName: billing.DefaultKeyName, Phone: it.Phone, Email: it.Email, Description: it.Class}
}

// loop runs committed jobs one at a time until the runner stops.
func (r *Runner) loop() {
	defer r.wg.Done()
	for !r.quitting() {
		jobs, err := r.db.UploadJobsInStates(r.ctx, StateQueued, StateChecking, StateSending)
		if err != nil {
			r.log.Error("upload jobs", "err", err)
			if !r.sleep(5 * time.Second) {
				return
			}
			continue
		}
		if len(jobs) == 0 {
			t := time.NewTimer(time.Minute)
			select {
			case <-r.wake:
			case <-t.C:
			case <-r.quit:
			}
			t.Stop()
			continue
		}
		now := r.now()
		until := now.Add(r.cfg.LeaseTTL)
		ok, err := r.db.ClaimUploadJob(r.ctx, jobs[0].ID, r.owner, until, now)
		if err != nil {
			r.log.Error("upload job: claim", "job", jobs[0].ID, "err", err)
			if !r.sleep(5 * time.Second) {
				return
			}
			continue
		}
		if !ok {
			// Another instance runs the oldest job. The later ones wait here too, as they
			// would behind it in one instance: two jobs never race on the same rows. The job
			// comes back to us when that instance ends it, or dies and its lease lapses.
			t := time.NewTimer(r.cfg.LeaseRenew)
			select {
			case <-r.wake:
			case <-t.C:
			case <-r.quit:
			}
			t.Stop()
			continue
		}
		if err := r.runLeased(jobs[0], until); err != nil && r.ctx.Err() == nil && !r.quitting() {
			r.log.Error("upload job", "job", jobs[0].ID, "err", err)
			if !r.sleep(5 * time.Second) {
				return
			}
		}
	}
}

// runLeased runs a job whose lease the runner holds until `until`: it renews the lease
// while the job runs and releases it when the job ends or the runner stops. When the
// lease is lost (renewals failed until it lapsed and another instance took it), the
// job's work is cancelled so nothing more is sent from here.
func (r *Runner) runLeased(j store.UploadJob, until time.Time) error {
	ctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		r.keepLease(ctx, cancel, j.ID, until)
	}()
	err := r.run(ctx, j)
	cancel()
	<-renewed
	// Released even when the runner is being stopped hard: another instance may go on at once.
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(r.ctx), 5*time.Second)
	defer rcancel()
	if rerr := r.db.ReleaseUploadJob(rctx, j.ID, r.owner); rerr != nil {
		r.log.Error("upload job: release lease", "job", j.ID, "err", rerr)
	}
	return err
}

// keepLease renews the job's lease every LeaseRenew until ctx ends, and calls lost when
// the lease is gone or may lapse before the next renewal.
func (r *Runner) keepLease(ctx context.Context, lost context.CancelFunc, id string, until time.Time) {
	t := time.NewTicker(r.cfg.LeaseRenew)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := r.now()
		ok, err := r.db.RenewUploadJob(ctx, id, r.owner, now.Add(r.cfg.LeaseTTL))
		switch {
		case err != nil && ctx.Err() != nil:
			return
		case err != nil:
			r.log.Warn("upload job: renew lease", "job", id, "err", err)
			if !now.Add(r.cfg.LeaseRenew).Before(until) {
				r.log.Error("upload job: lease about to lapse; stopping the job here", "job", id)
				lost()
				return
			}
		case !ok:
			r.log.Error("upload job: lease taken by another instance; stopping the job here", "job", id)
			lost()
			return
		default:
			until = now.Add(r.cfg.LeaseTTL)
		}
	}
}

func actorOf(j store.UploadJob) auth.Actor {
	return auth.Actor{ID: j.CommittedByID, Username: j.CommittedBy, Role: auth.Role(j.CommittedRole), IP: j.CommittedIP}
}

// run takes a job as far as it goes: prepared (checked again and cut into chunks), sent,
// finished. Stopping, or losing the lease (ctx ends), leaves it where it is, for the next
// start or the instance that holds the lease.
func (r *Runner) run(ctx context.Context, j store.UploadJob) error {
	if j.State == StateQueued || j.State == StateChecking {
		if _, err := r.db.SetUploadJobState(ctx, j.ID, StateChecking, StateQueued, StateChecking); err != nil {
			return err
		}
		if err := r.prepareWithRetries(ctx, j); err != nil {
			if r.quitting() || ctx.Err() != nil {
				return nil
			}
			var fe *FileError
			problem := "internal"
			switch {
			case errors.As(err, &fe):
				problem = fe.Code
			case errors.Is(err, ErrFileGone):
				problem = "file_gone"
			case isUpstream(err):
				problem = "upstream"
			}
			r.log.Error("upload job: prepare", "job", j.ID, "err", err)
			if err := r.db.SetUploadProblem(ctx, j.ID, problem, nil); err != nil {
				return err
			}
			return r.db.FinishUploadJob(ctx, j.ID, StateFailed, 0, 0)
		}
	}
	if err := r.send(ctx, j); err != nil {
		return err
	}
	if r.quitting() || ctx.Err() != nil {
		return nil
	}
	return r.finish(ctx, j.ID)
}

func (r *Runner) prepareWithRetries(ctx context.Context, j store.UploadJob) error {
	for attempt := 0; ; attempt++ {
		err := r.prepare(ctx, j)
		if err == nil || !isUpstream(err) || attempt+1 >= r.cfg.MaxAttempts {
			return err
		}
		r.log.Warn("upload job: checking the billing service", "job", j.ID, "attempt", attempt+1, "err", err)
		if !r.sleep(r.backoff(attempt)) {
			return err
		}
	}
}

// prepare reads the file again, asks the service which rows exist by now (a preview left
// open for a day, or the same rows sent by another upload in between) and writes the rest
// as chunks. It can be repeated: the chunks are made afresh each time.
func (r *Runner) prepare(ctx context.Context, j store.UploadJob) error {
	if !j.FileKept {
		return ErrFileGone
	}
	errRows, err := r.db.UploadErrorRows(ctx, j.ID)
	if err != nil {
		return err
	}
	skipErr := func(row int) bool { _, found := slices.BinarySearch(errRows, row); return found }
	path := r.Path(j.ID)
	opts := r.options(Kind(j.Kind))
	exists := map[int]bool{}

	switch Kind(j.Kind) {
	case Components:
		var keys []Key
		var rows []int
		if err := ReadComponents(ctx, path, opts, skipErr, func(c Component) error {
			keys = append(keys, Key{NIS: c.NIS, Name: c.Name, Due: c.Due})
			rows = append(rows, c.Row)
			return nil
		}); err != nil {
			return err
		}
		found, err := opts.Existing.FindComponents(ctx, keys)
		if err != nil {
			return err
		}
		for i, f := range found {
			if f {
				exists[rows[i]] = true
			}
		}
	case Students:
		var nis []string
		var rows []int
		if err := ReadStudents(ctx, path, opts, skipErr, func(s Student) error {
			nis, rows = append(nis, s.NIS), append(rows, s.Row)
			return nil
		}); err != nil {
			return err
		}
		known, err := opts.Students.KnownStudents(ctx, nis)
		if err != nil {
			return err
		}
		for i, n := range nis {
			if known[n] {
				exists[rows[i]] = true
			}
		}
	}

	if err := r.db.DeleteUploadChunks(ctx, j.ID); err != nil {
		return err
	}
	skip := func(row int) bool { return skipErr(row) || exists[row] }
	var (
		seq, total int
		items      []any
		rows       []int
	)
	flush := func() error {
		if len(items) == 0 {
			return nil
		}
		payload, err := json.Marshal(items)
		if err != nil {
			return err
		}
		seq++
		total += len(items)
		err = r.db.InsertUploadChunk(ctx, store.UploadChunk{JobID: j.ID, Seq: seq, State: ChunkPending, Size: len(items),
			Payload: string(payload), PendingRows: rows})
		items, rows = items[:0], nil
		return err
	}
	add := func(row int, it any) error {
		items, rows = append(items, it), append(rows, row)
		if len(items) >= r.cfg.ChunkSize {
			return flush()
		}
		return nil
	}
	switch Kind(j.Kind) {
	case Components:
		err = ReadComponents(ctx, path, opts, skip, func(c Component) error { return add(c.Row, compItemOf(c)) })
	case Students:
		err = ReadStudents(ctx, path, opts, skip, func(s Student) error {
			return add(s.Row, studentItem{Row: s.Row, NIS: s.NIS, Name: s.Name, Class: s.Class, Phone: s.Phone, Email: s.Email})
		})
	}
	if err == nil {
		err = flush()
	}
	if err != nil {
		return err
	}
	return r.db.SetUploadSending(ctx, j.ID, StateSending, total, len(exists))
}

// send processes the job's open chunks, Concurrency at a time.
func (r *Runner) send(ctx context.Context, j store.UploadJob) error {
	j, err := r.db.UploadJobByID(ctx, j.ID)
	if err != nil {
		return err
	}
	states, err := r.db.UploadChunkStates(ctx, j.ID)
	if err != nil {
		return err
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for range r.cfg.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seq := range work {
				if err := r.processChunk(ctx, j, seq); err != nil && ctx.Err() == nil {
					r.log.Error("upload chunk", "job", j.ID, "chunk", seq, "err", err)
				}
			}
		}()
	}
feed:
	for _, s := range states {
		if s.State == ChunkConfirmed || s.State == ChunkFailed {
			continue
		}
		select {
		case work <- s.Seq:
		case <-r.quit:
			break feed
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	return nil
}

// finish records the job's outcome once no chunk is open.
func (r *Runner) finish(ctx context.Context, id string) error {
	p, err := r.db.UploadProgressOf(ctx, id, ChunkConfirmed, ChunkFailed, ChunkSent, ChunkUnknown)
	if err != nil {
		return err
	}
	if open := p.Chunks - p.Confirmed - p.Failed - p.Unknown; open > 0 {
		// The loop takes the job up again after a pause.
		return fmt.Errorf("%d chunks still pending", open)
	}
	state := StateDone
	switch {
	case p.Done() == 0 && p.Rows > 0:
		state = StateFailed
	case p.Pending > 0 || p.FailedRows > 0:
		state = StatePartial
	}
	return r.db.FinishUploadJob(ctx, id, state, p.Done(), p.FailedRows)
}

// chunkWork is one chunk being processed, with its rows by row number.
type chunkWork struct {
	c     store.UploadChunk
	kind  Kind
	comps map[int]compItem
	studs map[int]studentItem
}

func (w *chunkWork) pending() (comps []compItem, studs []studentItem) {
	for _, row := range w.c.PendingRows {
		if it, ok := w.comps[row]; ok {
			comps = append(comps, it)
		}
		if it, ok := w.studs[row]; ok {
			studs = append(studs, it)
		}
	}
	return comps, studs
}

func (w *chunkWork) drop(rows map[int]bool) {
	w.c.PendingRows = slices.DeleteFunc(w.c.PendingRows, func(r int) bool { return rows[r] })
}

// processChunk takes one chunk to confirmed or failed, or leaves it unknown or pending
// when the runner stops or the attempts run out.
func (r *Runner) processChunk(ctx context.Context, j store.UploadJob, seq int) error {
	c, err := r.db.UploadChunk(ctx, j.ID, seq)
	if err != nil {
		return err
	}
	w := &chunkWork{c: c, kind: Kind(j.Kind)}
	switch w.kind {
	case Components:
		var items []compItem
		if err := json.Unmarshal([]byte(c.Payload), &items); err != nil {
			return fmt.Errorf("chunk payload: %w", err)
		}
		w.comps = make(map[int]compItem, len(items))
		for _, it := range items {
			w.comps[it.Row] = it
		}
	case Students:
		var items []studentItem
		if err := json.Unmarshal([]byte(c.Payload), &items); err != nil {
			return fmt.Errorf("chunk payload: %w", err)
		}
		w.studs = make(map[int]studentItem, len(items))
		for _, it := range items {
			w.studs[it.Row] = it
		}
	}
	save := func() error {
		// Saved even when the runner is being stopped: the state must say what happened.
		return r.db.SaveUploadChunk(context.WithoutCancel(ctx), w.c)
	}
	detail := fmt.Sprintf("upload %s chunk %d", j.ID, seq)
	actor := actorOf(j)

	for attempt := 0; ; attempt++ {
		if w.c.State == ChunkSent || w.c.State == ChunkUnknown {
			// No answer came: look before sending again, once the call can no longer land.
			if wait := time.Until(w.c.SentAt.Add(r.cfg.Settle)); wait > 0 && !r.sleep(wait) {
				return nil
			}
			if ctx.Err() != nil {
				return nil
			}
			found, err := r.reconcile(ctx, w)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				w.c.State, w.c.LastError = ChunkUnknown, truncate(err.Error(), 500)
				if err := save(); err != nil {
					return err
				}
				if attempt+1 >= r.cfg.MaxAttempts || !r.sleep(r.backoff(attempt)) {
					return nil // still unknown: reconciled on a retry or at the next start
				}
				continue
			}
			w.drop(found)
			w.c.Recognised += len(found)
			w.c.State = ChunkPending
			if err := save(); err != nil {
				return err
			}
		}
		if w.c.State != ChunkPending {
			return nil
		}
		if len(w.c.PendingRows) == 0 {
			w.c.State = ChunkConfirmed
			if len(w.c.Failures) > 0 {
				w.c.State = ChunkFailed
			}
			return save()
		}
		if attempt >= r.cfg.MaxAttempts {
			// The service kept failing: give up for now; Retry sends these rows later.
			w.c.State = ChunkFailed
			return save()
		}
		if r.quitting() || ctx.Err() != nil {
			return nil
		}

		// Mark the chunk sent before the call leaves: if the portal dies during the call,
		// the next start knows to reconcile it.
		w.c.State, w.c.SentAt = ChunkSent, r.now()
		w.c.Attempts++
		if err := save(); err != nil {
			return err
		}
		comps, studs := w.pending()
		switch w.kind {
		case Components:
			inputs := make([]billing.ComponentInput, len(comps))
			for i, it := range comps {
				inputs[i] = it.input()
			}
			_, err = r.writer.CreateComponents(ctx, actor, inputs, detail)
		case Students:
			records := make([]billing.Student, len(studs))
			for i, it := range studs {
				records[i] = it.record()
			}
			var created []billing.Student
			created, err = r.writer.CreateStudents(ctx, actor, records, store.SourceUpload)
			if err != nil && created != nil {
				// Created at the service; only the roster mirror failed. The rows are done.
				r.log.Error("upload students: roster", "job", j.ID, "chunk", seq, "err", err)
				err = nil
			}
		}
		var apiErr *billing.APIError
		switch {
		case err == nil:
			w.c.PendingRows, w.c.State, w.c.LastError = nil, ChunkConfirmed, ""
			if len(w.c.Failures) > 0 {
				w.c.State = ChunkFailed
			}
			return save()
		case ambiguous(err):
			w.c.State, w.c.LastError = ChunkUnknown, truncate(err.Error(), 500)
			if err := save(); err != nil {
				return err
			}
			if ctx.Err() != nil {
				return nil
			}
			continue
		case errors.As(err, &apiErr) && errors.Is(err, billing.ErrValidation):
			w.refuse(apiErr, comps, studs)
			w.c.State, w.c.LastError = ChunkPending, truncate(err.Error(), 500)
			if err := save(); err != nil {
				return err
			}
			continue // the rest of the batch was not applied: send it again at once
		case errors.Is(err, billing.ErrUnauthorized):
			w.c.State, w.c.LastError = ChunkFailed, FailRefused
			return save()
		default:
			// The service answered that it failed (503 and the like): nothing applied.
			w.c.State, w.c.LastError = ChunkPending, truncate(err.Error(), 500)
			if err := save(); err != nil {
				return err
			}
			if !r.sleep(r.backoff(attempt)) {
				return nil
			}
		}
	}
}

// ambiguous reports a call that may have been applied without our hearing of it: no
// answer, or a gateway saying it gave up waiting for the service.
func ambiguous(err error) bool {
	var apiErr *billing.APIError
	if errors.As(err, &apiErr) {
		return apiErr.StatusCode == 502 || apiErr.StatusCode == 504
	}
	return changes.Ambiguous(err)
}

var itemIndex = regexp.MustCompile(`\[(\d+)\]`)

// refuse moves the rows the service named in a rejected batch to the chunk's failures.
// A batch is all or nothing, so the other rows were not applied and are sent again. When
// the answer names no row, the whole batch is refused with its reason.
func (w *chunkWork) refuse(apiErr *billing.APIError, comps []compItem, studs []studentItem) {
	rowAt := func(i int) (int, bool) {
		switch {
		case w.kind == Components && i >= 0 && i < len(comps):
			return comps[i].Row, true
		case w.kind == Students && i >= 0 && i < len(studs):
			return studs[i].Row, true
		}
		return 0, false
	}
	gone := map[int]bool{}
	for _, it := range apiErr.Items {
		row, ok := rowAt(it.Index)
		if !ok || gone[row] {
			continue
		}
		gone[row] = true
		if w.kind == Students && strings.Contains(it.Message, "already exists") {
			w.c.Recognised++ // the goal holds: the student is there
			continue
		}
		w.c.Failures = append(w.c.Failures, store.UploadFailure{Row: row, Code: FailRejected, Arg: strings.TrimSpace(it.Field + ": " + it.Message)})
	}
	if len(gone) == 0 {
		if m := itemIndex.FindStringSubmatch(apiErr.StatusDesc); m != nil {
			if i, err := strconv.Atoi(m[1]); err == nil {
				if row, ok := rowAt(i); ok {
					gone[row] = true
					w.c.Failures = append(w.c.Failures, store.UploadFailure{Row: row, Code: FailRejected, Arg: apiErr.StatusDesc})
				}
			}
		}
	}
	if len(gone) == 0 {
		reason := apiErr.StatusDesc
		if reason == "" {
			reason = apiErr.Status
		}
		for _, row := range w.c.PendingRows {
			gone[row] = true
			w.c.Failures = append(w.c.Failures, store.UploadFailure{Row: row, Code: FailRejected, Arg: reason})
		}
	}
	w.drop(gone)
}

// reconcile finds which of the chunk's pending rows exist at the service.
func (r *Runner) reconcile(ctx context.Context, w *chunkWork) (map[int]bool, error) {
	comps, studs := w.pending()
	found := map[int]bool{}
	switch w.kind {
	case Components:
		keys := make([]Key, len(comps))
		for i, it := range comps {
			keys[i] = Key{NIS: it.NIS, Name: it.Name, Due: day(it.Due)}
		}
		f := &Finder{Client: r.client, Concurrency: r.cfg.LookupConcurrency}
		ok, err := f.FindComponents(ctx, keys)
		if err != nil {
			return nil, err
		}
		for i, yes := range ok {
			if yes {
				found[comps[i].Row] = true
			}
		}
	case Students:
		// Asked at the service, not the roster: the roster learns of a student only from a
		// confirmed answer, which is exactly what is missing here.
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(r.cfg.LookupConcurrency)
		var mu sync.Mutex
		var roster []store.Student
		for _, it := range studs {
			g.Go(func() error {
				st, err := r.client.Student(gctx, it.NIS)
				if errors.Is(err, billing.ErrNotFound) {
					return nil
				}
				if err != nil {
					return err
				}
				mu.Lock()
				found[it.Row] = true
				roster = append(roster, store.Student{NIS: st.NIS, Name: st.Name, KeyName: st.KeyName, Phone: st.Phone,
					Email: st.Email, Description: st.Description, Source: store.SourceUpload, SyncedAt: r.now()})
				mu.Unlock()
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
		if err := r.db.UpsertStudents(ctx, roster); err != nil {
			return nil, err
		}
	}
	return found, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
