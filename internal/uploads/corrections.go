package uploads

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/store"
)

// A components sheet may correct components as well as create them: a row whose
// "ID Tagihan" names a component changes that component's fields to the row's (only those
// that differ) instead of creating one. The preview lists each changed cell, old → new;
// the job sends one update per row through changes.Writer.UpdateComponent (audited,
// recorded in the ledger) and, when an answer is lost, reads the component back
// (GetComponent) before sending again: an update whose values are already there is done.

// BillGetter finds components by id.
type BillGetter interface {
	// Bills returns the components it finds among ids; one it does not find is absent.
	// An error means some could not be looked up (the service did not answer).
	Bills(ctx context.Context, ids []string) (map[string]billing.Bill, error)
}

// BillDirectory finds components in the ledger first and asks the service
// (GET /bill_component/get/{id}) for the few it lacks.
type BillDirectory struct {
	Ledger *ledger.Ledger
	Client *billing.Client
	// Concurrency bounds the parallel calls (default 8).
	Concurrency int
}

// Bills implements BillGetter.
func (d *BillDirectory) Bills(ctx context.Context, ids []string) (map[string]billing.Bill, error) {
	out := make(map[string]billing.Bill, len(ids))
	var ask []string
	for _, id := range ids {
		if d.Ledger != nil {
			b, err := d.Ledger.Component(ctx, id)
			if err == nil {
				out[id] = b
				continue
			}
			if !errors.Is(err, billing.ErrNotFound) && !isNotFound(err) {
				return nil, fmt.Errorf("uploads: ledger component %s: %w", id, err)
			}
		}
		ask = append(ask, id)
	}
	if len(ask) == 0 || d.Client == nil {
		return out, nil
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(d.Concurrency, 1))
	var mu sync.Mutex
	for _, id := range ask {
		g.Go(func() error {
			b, err := d.Client.GetComponent(gctx, id)
			switch {
			case errors.Is(err, billing.ErrNotFound):
				return nil
			case err != nil:
				return fmt.Errorf("uploads: look up component %s: %w", id, err)
			}
			mu.Lock()
			out[id] = b
			mu.Unlock()
			return nil
		})
	}
	return out, g.Wait()
}

// Change is one correction the sheet asks for: a component and its changed cells.
type Change struct {
	Row   int          `json:"row"`
	ID    string       `json:"id"`
	NIS   string       `json:"nis"`
	Name  string       `json:"name"`
	Cells []CellChange `json:"cells"`
}

// CellChange is one changed cell: the field, the value the component has and the one the
// sheet gives. Amounts are digits, days YYYY-MM-DD, an empty day or text "".
type CellChange struct {
	Field Field  `json:"field"`
	Old   string `json:"old"`
	New   string `json:"new"`
}

// Changes is what the preview shows of a sheet's corrections.
type Changes struct {
	// Count is the rows that change a component; Unchanged those naming a component that
	// already has the row's values (nothing to send).
	Count, Unchanged int
	// First are the first MaxChangesShown changes, in row order.
	First []Change
}

// MaxChangesShown is how many changes the preview keeps to list.
const MaxChangesShown = 200

// updateFields are the fields a correction may change, in the sheet's order, with their
// name in the contract (what the chunk keeps and the audit entry says).
var updateFields = []struct {
	field Field
	name  string
}{
	{FieldName, "name"}, {FieldAccount, "account_code"}, {FieldAmount, "amount"}, {FieldPenalty, "penalty_amount"},
	{FieldDue, "due_date"}, {FieldExpiry, "expiry_date"}, {FieldActive, "active_date"}, {FieldNotes, "notes"},
}

func dayText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.DateOnly)
}

// componentValue is field f of a component as a CellChange holds it.
func componentValue(c Component, f Field) string {
	switch f {
	case FieldName:
		return c.Name
	case FieldAccount:
		return c.AccountCode
	case FieldAmount:
		return strconv.FormatInt(c.Amount, 10)
	case FieldPenalty:
		return strconv.FormatInt(c.Penalty, 10)
	case FieldDue:
		return dayText(c.Due)
	case FieldExpiry:
		return dayText(c.Expiry)
	case FieldActive:
		return dayText(c.Active)
	case FieldNotes:
		return c.Notes
	}
	return ""
}

// componentOf is a bill's fields as a sheet row would give them; its days are the UTC
// days of its timestamps (the day rule).
func componentOf(b billing.Bill) Component {
	day := func(t time.Time) time.Time {
		if t.IsZero() {
			return t
		}
		return billing.DayIn(t, time.UTC)
	}
	return Component{NIS: b.NIS, AccountCode: b.AccountCode, Name: b.Name, Due: day(b.Due), Expiry: day(b.Expiry),
		Active: day(b.Active), Amount: b.Amount, Penalty: b.Penalty, Notes: b.Notes}
}

// diff lists the cells where the sheet's row differs from the component as it is.
func diff(is, want Component) []CellChange {
	var out []CellChange
	for _, u := range updateFields {
		o, n := componentValue(is, u.field), componentValue(want, u.field)
		if o != n {
			out = append(out, CellChange{Field: u.field, Old: o, New: n})
		}
	}
	return out
}

// idProblem is the problem with a row's component id, "" when it can be corrected.
func idProblem(b billing.Bill, found bool, nis string) (code string, args []any) {
	switch {
	case !found:
		return "id_unknown", nil
	case b.State == billing.StateDeleted:
		return "id_deleted", nil
	case b.State == billing.StatePaid:
		return "id_paid", nil
	case b.NIS != nis:
		return "id_other_nis", []any{b.NIS}
	}
	return "", nil
}

// corrections reports whether the chunk holds corrections of components or updates of
// students (they are never mixed with new rows).
func (w *chunkWork) corrections() bool {
	for _, it := range w.comps {
		return it.ID != ""
	}
	for _, it := range w.studs {
		return it.Update
	}
	return false
}

// oneRow is a pending correction: how to send it and how to tell, after a lost answer,
// whether it was applied.
type oneRow struct {
	row  int
	send func(ctx context.Context) error
	// check reports whether the change is there; gone, when it can no longer be made
	// (the component was paid or cancelled meanwhile), says why.
	check func(ctx context.Context) (applied bool, gone string, err error)
}

// pendingOnes are the chunk's pending corrections, in order.
func (r *Runner) pendingOnes(w *chunkWork, actor auth.Actor, detail string) []oneRow {
	comps, studs := w.pending()
	out := make([]oneRow, 0, len(comps)+len(studs))
	for _, it := range comps {
		out = append(out, oneRow{row: it.Row,
			send: func(ctx context.Context) error {
				_, err := r.writer.UpdateComponent(ctx, actor, it.ID, it.update(), detail)
				return err
			},
			check: func(ctx context.Context) (bool, string, error) {
				b, err := r.client.GetComponent(ctx, it.ID)
				switch {
				case err != nil:
					return false, "", err
				case it.applied(b):
					return true, "", nil
				case b.State == billing.StatePaid || b.State == billing.StateDeleted:
					return false, "id: component " + it.ID + " is " + string(b.State), nil
				}
				return false, "", nil
			}})
	}
	for _, it := range studs {
		out = append(out, oneRow{row: it.Row,
			send: func(ctx context.Context) error {
				_, err := r.writer.UpdateStudent(ctx, actor, it.record())
				return err
			},
			check: func(ctx context.Context) (bool, string, error) {
				st, err := r.client.Student(ctx, it.NIS)
				switch {
				case errors.Is(err, billing.ErrNotFound):
					return false, "bill_key: student " + it.NIS + " no longer exists", nil
				case err != nil:
					return false, "", err
				}
				want := it.record()
				if st.Name != want.Name || st.Description != want.Description || st.Phone != want.Phone || st.Email != want.Email {
					return false, "", nil
				}
				// Applied without our hearing of it: the roster learns it here, as the
				// writer would have taught it from the answer.
				err = r.db.UpsertStudents(ctx, []store.Student{{NIS: st.NIS, Name: st.Name, KeyName: st.KeyName, Phone: st.Phone,
					Email: st.Email, Description: st.Description, Source: store.SourcePortal, SyncedAt: r.now()}})
				return err == nil, "", err
			}})
	}
	return out
}

// update is the correction as the billing client sends it: only the fields in Set.
func (it compItem) update() billing.ComponentUpdate {
	var u billing.ComponentUpdate
	for _, f := range it.Set {
		switch f {
		case "name":
			u.Name = &it.Name
		case "account_code":
			u.AccountCode = &it.Code
		case "amount":
			u.Amount = &it.Amount
		case "penalty_amount":
			u.Penalty = &it.Penalty
		case "due_date":
			d := day(it.Due)
			u.Due = &d
		case "expiry_date":
			d := day(it.Expiry)
			u.Expiry = &d
		case "active_date":
			d := day(it.Active) // zero: the active date is removed
			u.Active = &d
		case "notes":
			u.Notes = &it.Notes
		}
	}
	return u
}

// applied reports whether b already has every value the correction sets.
func (it compItem) applied(b billing.Bill) bool {
	is := componentOf(b)
	want := Component{NIS: it.NIS, AccountCode: it.Code, Name: it.Name, Due: day(it.Due), Expiry: day(it.Expiry),
		Active: day(it.Active), Amount: it.Amount, Penalty: it.Penalty, Notes: it.Notes}
	for _, f := range it.Set {
		field := FieldNIS
		for _, u := range updateFields {
			if u.name == f {
				field = u.field
			}
		}
		if componentValue(is, field) != componentValue(want, field) {
			return false
		}
	}
	return true
}

// processCorrections takes a chunk of corrections to confirmed or failed: one update call
// per row, the chunk saved after each, so a restart resumes at the row it stopped at. A
// call without an answer leaves the chunk unknown, and before anything is sent again
// every pending row's component is read back: one that has the row's values is done.
func (r *Runner) processCorrections(ctx context.Context, w *chunkWork, actor auth.Actor, detail string, save func() error) error {
	ones := func() []oneRow { return r.pendingOnes(w, actor, detail) }
	for attempt := 0; ; attempt++ {
		if w.c.State == ChunkSent || w.c.State == ChunkUnknown {
			if wait := w.c.SentAt.Add(r.cfg.Settle).Sub(r.now()); wait > 0 && !r.sleep(wait) {
				return nil
			}
			if ctx.Err() != nil {
				return nil
			}
			if err := reconcileOne(ctx, w, ones()); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				w.c.State, w.c.LastError = ChunkUnknown, truncate(err.Error(), 500)
				if err := save(); err != nil {
					return err
				}
				if serviceDown(err) && attempt+1 >= quickTries {
					return errServiceDown
				}
				if attempt+1 >= r.cfg.MaxAttempts || !r.sleep(r.backoff(attempt)) {
					return nil
				}
				continue
			}
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
			w.c.State = ChunkFailed
			return save()
		}
		if r.quitting() || ctx.Err() != nil {
			return nil
		}
		before := len(w.c.PendingRows)
		var err error
		for _, it := range ones() {
			if r.quitting() || ctx.Err() != nil {
				w.c.State = ChunkPending
				return save()
			}
			// Marked sent before each call leaves: a crash during it is reconciled.
			w.c.State, w.c.SentAt = ChunkSent, r.now()
			w.c.Attempts++
			if err = save(); err != nil {
				return err
			}
			err = it.send(ctx)
			var apiErr *billing.APIError
			switch {
			case err == nil:
				w.drop(map[int]bool{it.row: true})
				continue
			case ambiguous(err):
			case errors.As(err, &apiErr) && (errors.Is(err, billing.ErrValidation) || errors.Is(err, billing.ErrNotFound)):
				// Paid, cancelled or refused since the preview: this row fails with the
				// service's reason; the others go on.
				reason := strings.TrimSpace(cmp.Or(apiErr.StatusDesc, apiErr.Status))
				w.c.Failures = append(w.c.Failures, store.UploadFailure{Row: it.row, Code: FailRejected, Arg: reason})
				w.drop(map[int]bool{it.row: true})
				err = nil
				continue
			}
			break
		}
		if len(w.c.PendingRows) < before {
			// Calls went through before this one failed: the count of failures in a
			// row, which decides waiting for the service, starts again.
			attempt = 0
		}
		switch {
		case err == nil:
			w.c.State, w.c.LastError = ChunkPending, ""
			if err := save(); err != nil {
				return err
			}
			continue // confirmed (or failed rows) on the next turn
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
		case errors.Is(err, billing.ErrUnauthorized):
			w.c.State, w.c.LastError = ChunkFailed, FailRefused
			return save()
		default:
			w.c.State, w.c.LastError = ChunkPending, truncate(err.Error(), 500)
			if err := save(); err != nil {
				return err
			}
			if serviceDown(err) && attempt+1 >= quickTries {
				return errServiceDown
			}
			if !r.sleep(r.backoff(attempt)) {
				return nil
			}
		}
	}
}

// reconcileOne looks at the first pending correction: the rows are sent one at a time
// and each is dropped once answered, so only that one can have been sent without an
// answer. Applied, it is done (recognised); no longer possible, it fails.
func reconcileOne(ctx context.Context, w *chunkWork, ones []oneRow) error {
	if len(ones) == 0 {
		return nil
	}
	it := ones[0]
	applied, gone, err := it.check(ctx)
	switch {
	case err != nil:
		return err
	case applied:
		w.c.Recognised++
	case gone != "":
		w.c.Failures = append(w.c.Failures, store.UploadFailure{Row: it.row, Code: FailRejected, Arg: gone})
	default:
		return nil
	}
	w.drop(map[int]bool{it.row: true})
	return nil
}
