package uploads

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

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
	// ID, for a correction, is the component to change and Set the fields to change
	// (contract names); the other fields are the row's values.
	ID  string   `json:"id,omitempty"`
	Set []string `json:"set,omitempty"`
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
	// Update: the student exists and the row replaces their record (UpdateStudent) with
	// these values; KeyName is theirs, kept.
	Update  bool   `json:"update,omitempty"`
	KeyName string `json:"key_name,omitempty"`
}

func studentItemOf(s Student) studentItem {
	return studentItem{Row: s.Row, NIS: s.NIS, Name: s.Name, Class: s.Class, Phone: s.Phone, Email: s.Email}
}

func (it studentItem) record() billing.Student {
	return billing.Student{NIS: it.NIS, Name: it.Name, KeyName: cmp.Or(it.KeyName, billing.DefaultKeyName), Phone: it.Phone, Email: it.Email, Description: it.Class}
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
	if w.corrections() {
		return r.processCorrections(ctx, w, actor, detail, save)
	}

	for attempt := 0; ; attempt++ {
		if w.c.State == ChunkSent || w.c.State == ChunkUnknown {
			// No answer came: look before sending again, once the call can no longer land.
			if wait := w.c.SentAt.Add(r.cfg.Settle).Sub(r.now()); wait > 0 && !r.sleep(wait) {
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
				if serviceDown(err) && attempt+1 >= quickTries {
					return errServiceDown // still unknown: reconciled once the service answers
				}
				if attempt+1 >= r.cfg.MaxAttempts || !r.sleep(r.backoff(attempt)) {
					return nil // still unknown: reconciled on a retry or at the next start
				}
				continue
			}
			if w.kind == Components {
				r.recordFound(ctx, j.ID, w, found)
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
			var created []billing.Bill
			created, err = r.writer.CreateComponents(ctx, actor, inputs, detail)
			if err == nil {
				r.recordCreated(ctx, j.ID, created)
			}
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
			// It may still land: Settle counts from now, when the call ended.
			w.c.State, w.c.SentAt, w.c.LastError = ChunkUnknown, r.now(), truncate(err.Error(), 500)
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
			if serviceDown(err) && attempt+1 >= quickTries {
				return errServiceDown // the job waits for the service, then sends it
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
	if apiErr, ok := billing.AsAPIError(err); ok {
		return apiErr.MayBeApplied()
	}
	return changes.Ambiguous(err)
}

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
	// The items the refusal names (its data list, or the one its status_desc names).
	for _, it := range apiErr.Problems() {
		row, ok := rowAt(it.Index)
		if !ok || gone[row] {
			continue
		}
		gone[row] = true
		if w.kind == Students && it.Reason == billing.ReasonDuplicate {
			w.c.Recognised++ // the goal holds: the student is there
			continue
		}
		w.c.Failures = append(w.c.Failures, store.UploadFailure{Row: row, Code: FailRejected, Arg: strings.TrimSpace(it.Field + ": " + it.Message)})
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
