package uploads

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/jobs"
	"github.com/sekolah/portal/internal/ledger"
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

// sendChange sends the change of what exists that row it holds: a component's
// correction, with only the fields the sheet changes, or a student's new record.
func (u *uploadJob) sendChange(ctx context.Context, ch *jobs.Chunk, w *chunkRows, it *jobs.Item) error {
	if c, ok := w.comps[it.Key]; ok {
		return u.r.steps.UpdateComponent(ctx, u.actor, c.ID, c.update(), u.detail(ch))
	}
	return u.r.steps.UpdateStudent(ctx, u.actor, w.studs[it.Key].record())
}

// checkChanges reads back the records items change and decides each (there already,
// paid or cancelled meanwhile, gone, or to be sent), through the correction steps.
func (u *uploadJob) checkChanges(ctx context.Context, ch *jobs.Chunk, w *chunkRows, items []*jobs.Item) error {
	for _, it := range items {
		var d jobs.Decision
		var err error
		if c, ok := w.comps[it.Key]; ok {
			d, err = u.r.steps.CheckUpdate(ctx, c.ID, c.update())
		} else {
			d, err = u.r.steps.CheckStudent(ctx, w.studs[it.Key].record())
		}
		if err != nil {
			return err
		}
		if d.State != jobs.Pending {
			ch.Decide(it, d)
		}
	}
	return nil
}
