package ledger

import (
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/component"
)

// The kinds of a ledger row: what decides which totals it counts in.
const (
	kindOpen    = 0 // not paid, not deleted: payable, late or expired depending on today
	kindPaid    = 1
	kindDeleted = 2 // deleted at the service: kept with its last known fields, so it is not read again as new
)

// row is one component as the ledger stores it. Instants are microseconds since 1970
// (0: none), days are day numbers (days since 1970).
type row struct {
	ID, BillID, NIS, StudentName, Account, Name string
	Amount, Penalty                             int64
	ActiveUS, DueUS, ExpiryUS                   int64
	DueDay, ExpiryDay                           int64
	Kind                                        int64
	State, RawState                             string
	AmountPaid                                  int64
	PaidUS, PaidDay                             int64 // PaidDay is meaningful when PaidUS != 0
	Ref, Notes                                  string
	CreatedUS, UpdatedUS                        int64
}

// dayNum is the day number of t's own calendar date.
func dayNum(t time.Time) int64 {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

// dayTime is the UTC midnight of day number n.
func dayTime(n int64) time.Time { return time.Unix(n*86400, 0).UTC() }

// utcDayOfUS is the UTC calendar day of instant us.
func utcDayOfUS(us int64) int64 {
	d := us / (86400 * 1e6)
	if us < 0 && us%(86400*1e6) != 0 {
		d--
	}
	return d
}

// micros is t in microseconds since 1970; the zero time is 0.
func micros(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro()
}

// instant is the time of micros us in UTC; 0 is the zero time.
func instant(us int64) time.Time {
	if us == 0 {
		return time.Time{}
	}
	return time.UnixMicro(us).UTC()
}

// kindOf places a service state in the ledger's kinds.
func kindOf(st billing.State, raw string) int64 {
	switch {
	case st == billing.StateDeleted || strings.EqualFold(strings.TrimSpace(raw), "deleted"):
		return kindDeleted
	case st == billing.StatePaid:
		return kindPaid
	}
	return kindOpen
}

// rowOf is the ledger row of a service record; paidDay places the payment in the
// ledger's zone.
func rowOf(b billing.Bill, paidDay func(int64) int64) row {
	r := row{
		ID: b.ComponentID, BillID: b.BillID, NIS: b.NIS, StudentName: b.StudentName,
		Account: b.AccountCode, Name: b.Name, Amount: b.Amount, Penalty: b.Penalty,
		ActiveUS: micros(b.Active), DueUS: micros(b.Due), ExpiryUS: micros(b.Expiry),
		Kind: kindOf(b.State, b.RawState), State: string(b.State), RawState: b.RawState,
		AmountPaid: b.AmountPaid, PaidUS: micros(b.PaidAt), Ref: b.RefNumber, Notes: b.Notes,
		CreatedUS: micros(b.CreatedAt), UpdatedUS: micros(b.UpdatedAt),
	}
	if r.Kind == kindDeleted {
		r.State = string(billing.StateDeleted)
	}
	if r.ActiveUS != 0 && utcDayOfUS(r.ActiveUS) == 0 {
		r.ActiveUS = 0 // 1970-01-01 is how the provider's libraries say "none"
	}
	r.DueDay, r.ExpiryDay = utcDayOfUS(r.DueUS), utcDayOfUS(r.ExpiryUS)
	if r.PaidUS != 0 {
		r.PaidDay = paidDay(r.PaidUS)
	}
	return r
}

// bill is the row as the billing client would read it on day today. Whether an open
// component is expired is not the state last read but the day rule's on today
// (component.On, whose SQL twin is today.go): one read as provisioned (or in a state the
// portal does not know) whose expiry day has passed is expired; one read as expired
// after its expiry day stays so.
func (r row) bill(today int64) billing.Bill {
	st, raw := billing.State(r.State), r.RawState
	switch r.Kind {
	case kindDeleted:
		st = billing.StateDeleted
	case kindPaid:
		st = billing.StatePaid
	}
	b := billing.Bill{
		ComponentID: r.ID, BillID: r.BillID, NIS: r.NIS, StudentName: r.StudentName,
		AccountCode: r.Account, Name: r.Name, Amount: r.Amount, Penalty: r.Penalty,
		Active: instant(r.ActiveUS), Due: instant(r.DueUS), Expiry: instant(r.ExpiryUS),
		State: st, RawState: raw, AmountPaid: r.AmountPaid, PaidAt: instant(r.PaidUS),
		RefNumber: r.Ref, Notes: r.Notes, CreatedAt: instant(r.CreatedUS), UpdatedAt: instant(r.UpdatedUS),
	}
	if r.Kind == kindOpen {
		// The service's answer today, not when last read: the dates decide.
		if st == "" || st == billing.StateExpired {
			b.State = billing.StateProvisioned
		}
		if component.On(b, dayTime(today)).Status == component.StatusExpired {
			b.State = billing.StateExpired
		}
		if dayState(string(b.State)) {
			b.RawState = string(b.State)
		}
	}
	return b
}

// rank orders kinds by how final they are: a component is paid or deleted once, and
// nothing takes it back.
func rank(kind int64) int { return int(kind) }

// supersedes reports whether a record read from the service (in) may replace what the
// ledger holds (old): the later updated_at wins when both have one; a record with one
// replaces a row without (a payment callback marked it paid as it came, before callbacks
// were confirmed with the service: never the service's word); otherwise (or on a tie) a
// record never moves a component back from paid or deleted. Reading is not atomic with
// writing, so a page read before a payment and written after its confirmation must not
// undo it.
func supersedes(in, old row) bool {
	if in.UpdatedUS != 0 && old.UpdatedUS != 0 && in.UpdatedUS != old.UpdatedUS {
		return in.UpdatedUS > old.UpdatedUS
	}
	if in.UpdatedUS != 0 && old.UpdatedUS == 0 {
		return true
	}
	return rank(in.Kind) >= rank(old.Kind)
}

// sameRecord reports whether two rows say the same, leaving out a state that only
// reflects the day it was read (provisioned or expired of an open component: the ledger
// works that out from expiry_day).
func sameRecord(a, b row) bool {
	if a.Kind == kindOpen && b.Kind == kindOpen && dayState(a.State) && dayState(b.State) {
		a.State, a.RawState, b.State, b.RawState = "", "", "", ""
	}
	return a == b
}

func dayState(s string) bool {
	return s == string(billing.StateProvisioned) || s == string(billing.StateExpired)
}

// nisKey sorts NIS the way people read them: numeric ones by value (9 before 10), before
// any other, which sort as text.
func nisKey(nis string) string {
	if nis != "" && strings.Trim(nis, "0123456789") == "" {
		t := strings.TrimLeft(nis, "0")
		if len(t) < 32 {
			t = strings.Repeat("0", 32-len(t)) + t
		}
		return "0" + t
	}
	return "1" + nis
}

// componentColumns are the stored fields of a row, in scanRow's order.
const componentColumns = `id, bill_id, nis, student_name, account_code, name, amount, penalty,
	active_us, due_us, expiry_us, due_day, expiry_day, kind, state, raw_state,
	amount_paid, paid_us, paid_day, ref_number, notes, created_us, updated_us`

// prefixed is componentColumns with each column qualified by alias.
func prefixed(alias string) string {
	cols := strings.Split(componentColumns, ",")
	for i, c := range cols {
		cols[i] = alias + "." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

func scanRow(s interface{ Scan(...any) error }) (row, error) {
	var r row
	var active, paid, paidDay sql.NullInt64
	err := s.Scan(&r.ID, &r.BillID, &r.NIS, &r.StudentName, &r.Account, &r.Name, &r.Amount, &r.Penalty,
		&active, &r.DueUS, &r.ExpiryUS, &r.DueDay, &r.ExpiryDay, &r.Kind, &r.State, &r.RawState,
		&r.AmountPaid, &paid, &paidDay, &r.Ref, &r.Notes, &r.CreatedUS, &r.UpdatedUS)
	if err != nil {
		return row{}, fmt.Errorf("ledger: read component: %w", err)
	}
	r.ActiveUS, r.PaidUS, r.PaidDay = active.Int64, paid.Int64, paidDay.Int64
	return r, nil
}

// args are the row's values for componentColumns (plus nis_key and written_us).
func (r row) args(written int64) []any {
	return []any{r.ID, r.BillID, r.NIS, r.StudentName, r.Account, r.Name, r.Amount, r.Penalty,
		nullInt(r.ActiveUS), r.DueUS, r.ExpiryUS, r.DueDay, r.ExpiryDay, r.Kind, r.State, r.RawState,
		r.AmountPaid, nullInt(r.PaidUS), paidDayArg(r), r.Ref, r.Notes, r.CreatedUS, r.UpdatedUS,
		nisKey(r.NIS), written}
}

func nullInt(v int64) any {
	if v == 0 {
		return nil
	}
	return v
}

func paidDayArg(r row) any {
	if r.PaidUS == 0 {
		return nil
	}
	return r.PaidDay
}
