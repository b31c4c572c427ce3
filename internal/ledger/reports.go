package ledger

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
)

// The four reports' figures, as internal/reports defines them, read from the ledger.

// NoClass is the class filter value that selects students the roster has no class for.
const NoClass = "-"

// ErrBadRange means a date range whose start is after its end (or a missing end).
var ErrBadRange = errors.New("ledger: the range starts after it ends")

// OutstandingFilter selects open, payable components: of one class (NoClass: students
// without one), one account code, and due between DueFrom and DueTo (each optional).
// Overdue keeps only those past their due day (the arrears report's default: "Terlambat");
// without it every unpaid, payable one ("Belum dibayar", not yet due included).
type OutstandingFilter struct {
	Class          string
	Account        string
	DueFrom, DueTo time.Time
	Overdue        bool
}

// OutstandingRow is one student's open components by age: what paying them would cost
// today, per bucket and in total (Penalty is the part of Total that is penalties).
// Overdue is the part of Total past its due day (amount and penalty), and Expired what
// the student's components of the same filter that expired unpaid were for (their
// amounts; no longer payable, so not in Total). LastFollowUp is the newest reminder sent
// about them (zero: none).
type OutstandingRow struct {
	NIS          string
	Name         string
	Class        string
	Count        int
	Buckets      [NumBuckets]int64
	Penalty      int64
	Total        int64
	OldestDue    time.Time
	DaysLate     int // from OldestDue's day to today: > 0 late by so many days, else not yet late
	Overdue      int64
	OverdueCount int
	Expired      int64
	ExpiredCount int
	LastFollowUp store.FollowUp
}

func (r *OutstandingRow) addRow(o OutstandingRow) {
	r.Count += o.Count
	for i := range r.Buckets {
		r.Buckets[i] += o.Buckets[i]
	}
	r.Penalty += o.Penalty
	r.Total += o.Total
	r.Overdue += o.Overdue
	r.OverdueCount += o.OverdueCount
	r.Expired += o.Expired
	r.ExpiredCount += o.ExpiredCount
}

// OutstandingReport is the students who owe, the largest overdue amount first (then
// the largest total, the largest expired, class, name), and the totals. A student is
// listed when they have a selected component; the expired ones of a student with none
// are left out, as on the dashboard.
type OutstandingReport struct {
	Filter OutstandingFilter
	Today  time.Time
	Rows   []OutstandingRow
	Total  OutstandingRow
}

// Check validates the due range (ErrBadRange when it ends before it starts).
func (f OutstandingFilter) Check() error {
	if !f.DueFrom.IsZero() && !f.DueTo.IsZero() && f.DueTo.Before(f.DueFrom) {
		return ErrBadRange
	}
	return nil
}

// Outstanding groups the open components by student on today, in SQL: the selected
// payable ones by age, the expired ones beside them, and each student's last follow-up.
func (l *Ledger) Outstanding(ctx context.Context, f OutstandingFilter) (OutstandingReport, error) {
	if err := f.Check(); err != nil {
		return OutstandingReport{}, err
	}
	today := l.today()
	rep := OutstandingReport{Filter: f, Today: dayTime(today)}
	var w where
	d := componentsOn("c", w.arg(today))
	w.terms = append(w.terms, "c.kind = 0")
	if f.Account != "" {
		w.add("c.account_code = ?", f.Account)
	}
	if !f.DueFrom.IsZero() {
		w.add("c.due_us >= ?", micros(f.DueFrom))
	}
	if !f.DueTo.IsZero() {
		w.add("c.due_us <= ?", micros(f.DueTo))
	}
	// sel: payable today and, for the overdue report, late. Each selected component
	// counts at its price today in the bucket of its days late.
	sel := d.payable()
	if f.Overdue {
		sel = d.late()
	}
	late, price := d.daysLate(), d.price()
	bucket := func(cond string) string {
		return `SUM(CASE WHEN ` + sel + ` AND ` + cond + ` THEN ` + price + ` ELSE 0 END)`
	}
	inner := `SELECT c.nis AS nis, SUM(CASE WHEN ` + sel + ` THEN 1 ELSE 0 END) AS n,
		` + bucket(late+` <= 0`) + ` AS b0,
		` + bucket(late+` BETWEEN 1 AND 30`) + ` AS b1,
		` + bucket(late+` BETWEEN 31 AND 60`) + ` AS b2,
		` + bucket(late+` BETWEEN 61 AND 90`) + ` AS b3,
		` + bucket(late+` > 90`) + ` AS b4,
		SUM(CASE WHEN ` + sel + ` THEN ` + d.penalty() + ` ELSE 0 END) AS penalty,
		SUM(CASE WHEN ` + sel + ` AND ` + d.late() + ` THEN 1 ELSE 0 END) AS n_late,
		COALESCE(MIN(CASE WHEN ` + sel + ` THEN c.due_us END), 0) AS oldest,
		COALESCE(MAX(CASE WHEN ` + sel + ` THEN ` + late + ` END), 0) AS days_late,
		SUM(CASE WHEN ` + d.expired() + ` THEN c.amount ELSE 0 END) AS expired,
		SUM(CASE WHEN ` + d.expired() + ` THEN 1 ELSE 0 END) AS n_expired
		FROM ledger_components c` + l.indexedBy("ledger_components_open") + w.sql() + ` GROUP BY c.nis`
	named := where{terms: slices.Clone(w.terms), args: slices.Clone(w.args)}
	// The newest follow-up of each student listed, through its (nis, at_us, id) index.
	outer := `SELECT o.nis, o.n, o.b0, o.b1, o.b2, o.b3, o.b4, o.penalty, o.n_late, o.oldest, o.days_late, o.expired, o.n_expired,
		COALESCE(s.name, ''), COALESCE(s.description, ''),
		COALESCE(f.id, ''), COALESCE(f.channel, ''), COALESCE(f.at_us, 0), COALESCE(f.actor, ''), COALESCE(f.actor_name, ''),
		COALESCE(f.components, 0), COALESCE(f.total, 0)
		FROM (` + inner + `) o LEFT JOIN students s ON s.nis = o.nis
		LEFT JOIN followups f ON f.id = (SELECT f2.id FROM followups f2 WHERE f2.nis = o.nis ORDER BY f2.at_us DESC, f2.id DESC LIMIT 1)
		WHERE o.n > 0`
	switch f.Class {
	case "":
	case NoClass:
		outer += ` AND COALESCE(s.description, '') = ''`
	default:
		outer += ` AND s.description = ` + w.arg(f.Class)
	}
	err := l.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, outer, w.args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r OutstandingRow
			var n, nLate, oldest, daysLate, nExpired, fAt, fN int64
			if err := rows.Scan(&r.NIS, &n, &r.Buckets[0], &r.Buckets[1], &r.Buckets[2], &r.Buckets[3], &r.Buckets[4],
				&r.Penalty, &nLate, &oldest, &daysLate, &r.Expired, &nExpired, &r.Name, &r.Class,
				&r.LastFollowUp.ID, &r.LastFollowUp.Channel, &fAt, &r.LastFollowUp.Actor, &r.LastFollowUp.ActorName,
				&fN, &r.LastFollowUp.Total); err != nil {
				return err
			}
			r.Count, r.OverdueCount, r.ExpiredCount, r.OldestDue, r.DaysLate = int(n), int(nLate), int(nExpired), instant(oldest), int(daysLate)
			for i, b := range r.Buckets {
				r.Total += b
				if i > 0 {
					r.Overdue += b
				}
			}
			if r.LastFollowUp.ID != "" {
				r.LastFollowUp.NIS, r.LastFollowUp.At, r.LastFollowUp.Components = r.NIS, time.UnixMicro(fAt).UTC(), int(fN)
			}
			rep.Rows = append(rep.Rows, r)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		for i := range rep.Rows {
			if rep.Rows[i].Name != "" {
				continue
			}
			// Not on the roster: the name the service gives their newest such component.
			nw := where{terms: slices.Clone(named.terms), args: slices.Clone(named.args)}
			nw.add("c.nis = ?", rep.Rows[i].NIS)
			if err := tx.QueryRowContext(ctx, `SELECT c.student_name FROM ledger_components c`+nw.sql()+
				` ORDER BY c.created_us DESC, c.id DESC LIMIT 1`, nw.args...).Scan(&rep.Rows[i].Name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return OutstandingReport{}, fmt.Errorf("ledger: outstanding: %w", err)
	}
	for _, r := range rep.Rows {
		rep.Total.addRow(r)
	}
	slices.SortFunc(rep.Rows, func(a, b OutstandingRow) int {
		return cmp.Or(cmp.Compare(b.Overdue, a.Overdue), cmp.Compare(b.Total, a.Total), cmp.Compare(b.Expired, a.Expired),
			cmp.Compare(noClassLast(a.Class), noClassLast(b.Class)), i18n.CompareNatural(a.Class, b.Class),
			cmp.Compare(a.Name, b.Name), cmp.Compare(a.NIS, b.NIS))
	})
	if rep.Rows == nil {
		rep.Rows = []OutstandingRow{}
	}
	return rep, nil
}

func noClassLast(class string) int {
	if class == "" {
		return 1
	}
	return 0
}

// PaymentRow is one payment: the component paid, its amount part and penalty part (they
// add up to Paid, the amount_paid), and the reference the bank gave.
type PaymentRow struct {
	Day       time.Time // the day it was paid, in the ledger's zone
	PaidAt    time.Time
	NIS       string
	Name      string
	Class     string
	Component string
	Account   string
	Amount    int64
	Penalty   int64
	Paid      int64
	Ref       string
	// Where the payment was made (channel.go): its channel (ChannelUnknown without a
	// confirmed callback or the counter's record), the merchant's name and reference and
	// the admin fee its callback stated (the payment's, whichever of its components the
	// row is), and the cashier's display name for a counter payment.
	Channel     Channel
	Merchant    string
	MerchantRef string
	AdminFee    int64
	Cashier     string
}

// DayTotal is what came in on one day (or, as a report's Total, over the range).
type DayTotal struct {
	Day     time.Time
	Count   int
	Amount  int64
	Penalty int64
	Paid    int64
}

func checkRange(from, to time.Time) error {
	if from.IsZero() || to.IsZero() || to.Before(from) {
		return ErrBadRange
	}
	return nil
}

// PaymentDays is what came in on each day from from to to (days in the ledger's zone,
// inclusive; days without payments left out), optionally of one account, and the total:
// the payments report's summary, from the paid totals.
func (l *Ledger) PaymentDays(ctx context.Context, from, to time.Time, account string) ([]DayTotal, DayTotal, error) {
	if err := checkRange(from, to); err != nil {
		return nil, DayTotal{}, err
	}
	var w where
	w.add("components <> 0")
	w.add("paid_day >= ?", dayNum(from))
	w.add("paid_day <= ?", dayNum(to))
	if account != "" {
		w.add("account_code = ?", account)
	}
	rows, err := l.sql.QueryContext(ctx, `SELECT paid_day, SUM(components), SUM(amount_paid), SUM(penalty_paid)
		FROM ledger_paid_totals`+w.sql()+` GROUP BY paid_day HAVING SUM(components) <> 0 ORDER BY paid_day`, w.args...)
	if err != nil {
		return nil, DayTotal{}, fmt.Errorf("ledger: payment days: %w", err)
	}
	defer rows.Close()
	var days []DayTotal
	var total DayTotal
	for rows.Next() {
		var day, n int64
		var d DayTotal
		if err := rows.Scan(&day, &n, &d.Paid, &d.Penalty); err != nil {
			return nil, DayTotal{}, fmt.Errorf("ledger: payment days: %w", err)
		}
		d.Day, d.Count, d.Amount = dayTime(day), int(n), d.Paid-d.Penalty
		days = append(days, d)
		total.Count += d.Count
		total.Amount += d.Amount
		total.Penalty += d.Penalty
		total.Paid += d.Paid
	}
	if err := rows.Err(); err != nil {
		return nil, DayTotal{}, fmt.Errorf("ledger: payment days: %w", err)
	}
	return days, total, nil
}

// Payments yields every payment from from to to (days in the ledger's zone, inclusive),
// optionally of one account, in the order they were paid (then by NIS and component),
// with the roster's name and class. It reads a thousand at a time, each page one range
// of the payments index from where the last one ended, one page ahead of the caller
// (pages.go), so an export of a year streams in time linear in its rows.
func (l *Ledger) Payments(ctx context.Context, from, to time.Time, account string) iter.Seq2[PaymentRow, error] {
	if err := checkRange(from, to); err != nil {
		return func(yield func(PaymentRow, error) bool) { yield(PaymentRow{}, err) }
	}
	return func(yield func(PaymentRow, error) bool) {
		roster := rosterNames{l: l}
		for p, err := range readAhead(ctx, func(ctx context.Context, last *payment, into []payment) ([]payment, error) {
			return l.paymentsPage(ctx, dayNum(from), dayNum(to), account, last, &roster, into)
		}) {
			if !yield(p.PaymentRow, err) || err != nil {
				return
			}
		}
	}
}

// payment is a PaymentRow with its place in the payments' order: the order's columns
// (paid_day, paid_us, nis, id), the next page's start.
type payment struct {
	PaymentRow
	day, paid int64
	id        string
}

// paymentsPage reads the page of payments after last (nil: from the first day). The
// order is the index ledger_components_payments (migration 00025) and a page starts at
// last's place in it, compared as a row value: one range of the index per page, which
// SQLite is told to read (INDEXED BY: without statistics it would rather walk every paid
// component and sort them; PostgreSQL picks the index on its own). Names and classes
// come from roster.
func (l *Ledger) paymentsPage(ctx context.Context, from, to int64, account string, last *payment, roster *rosterNames, into []payment) ([]payment, error) {
	query, args := l.paymentsQuery(from, to, account, last)
	out, err := l.readPayments(ctx, into, query, args...)
	if err != nil {
		return nil, fmt.Errorf("ledger: payments: %w", err)
	}
	if err := roster.name(ctx, out); err != nil {
		return nil, fmt.Errorf("ledger: payments: %w", err)
	}
	return out, nil
}

// paymentsQuery is the query of the page of payments after last.
func (l *Ledger) paymentsQuery(from, to int64, account string, last *payment) (string, []any) {
	var w where
	w.add("c.kind = 1")
	if last == nil {
		w.add("c.paid_day >= ?", from)
	} else {
		w.add("(c.paid_day, c.paid_us, c.nis, c.id) > (?, ?, ?, ?)", last.day, last.paid, last.NIS, last.id)
	}
	w.add("c.paid_day <= ?", to)
	if account != "" {
		w.add("c.account_code = ?", account)
	}
	return `SELECT c.paid_day, c.paid_us, c.nis, c.id, c.student_name, c.name, c.account_code,
		c.amount, c.amount_paid, c.ref_number, COALESCE(m.channel, ''), COALESCE(m.merchant, ''), COALESCE(m.merchant_ref, ''),
		COALESCE(m.admin_fee, 0), COALESCE(m.cashier_name, '') FROM ledger_components c` + l.indexedBy("ledger_components_payments") + `
		LEFT JOIN ledger_payment_channels m ON m.nis = c.nis AND m.ref_number = c.ref_number` + w.sql() + `
		ORDER BY c.paid_day, c.paid_us, c.nis, c.id LIMIT ` + w.arg(iterPage), w.args
}

// readPayments runs a payments page's query, appending to out; Name is the service's
// name of the student until the roster's replaces it.
func (l *Ledger) readPayments(ctx context.Context, out []payment, query string, args ...any) ([]payment, error) {
	rows, err := l.sql.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if out == nil {
		out = make([]payment, 0, iterPage)
	}
	for rows.Next() {
		var p payment
		var amount int64
		var channel string
		if err := rows.Scan(&p.day, &p.paid, &p.NIS, &p.id, &p.Name, &p.Component, &p.Account, &amount, &p.Paid, &p.Ref,
			&channel, &p.Merchant, &p.MerchantRef, &p.AdminFee, &p.Cashier); err != nil {
			return nil, err
		}
		p.Channel = channelOfRow(channel)
		p.Day, p.PaidAt = dayTime(p.day), instant(p.paid)
		p.Penalty = penaltyPaid(amount, p.Paid)
		p.Amount = p.Paid - p.Penalty
		out = append(out, p)
	}
	return out, rows.Err()
}

// rosterNames is the roster's name and class of the students a walk of payments meets,
// read as they are met: the new students of a page in one query, or the whole roster
// once a page meets many. (Joined to every row, the roster cost two B-tree searches per
// payment, a quarter of reading a month of them.)
type rosterNames struct {
	l     *Ledger
	known map[string]rosterName
	all   bool // the whole roster is in known
}

type rosterName struct{ name, class string }

// rosterByNIS is how many new students a page may name one by one; beyond it the whole
// roster is read once (binding many parameters costs the SQLite driver more than a
// roster of thousands).
const rosterByNIS = 64

// name gives the payments the roster's name (when it has one) and class.
func (r *rosterNames) name(ctx context.Context, ps []payment) error {
	if r.known == nil {
		r.known = map[string]rosterName{}
	}
	if !r.all {
		var missing []string
		seen := map[string]bool{}
		for _, p := range ps {
			if _, ok := r.known[p.NIS]; !ok && !seen[p.NIS] {
				seen[p.NIS] = true
				missing = append(missing, p.NIS)
			}
		}
		if err := r.read(ctx, missing); err != nil {
			return err
		}
	}
	for i := range ps {
		if n, ok := r.known[ps[i].NIS]; ok {
			if n.name != "" {
				ps[i].Name = n.name
			}
			ps[i].Class = n.class
		}
	}
	return nil
}

// read adds the roster entries of nis to known (all of the roster when there are many);
// a student the roster lacks is remembered as such.
func (r *rosterNames) read(ctx context.Context, nis []string) error {
	if len(nis) == 0 {
		return nil
	}
	query, args := `SELECT nis, name, description FROM students`, []any(nil)
	if len(nis) > rosterByNIS {
		r.all = true
	} else {
		ph := make([]string, len(nis))
		for i, n := range nis {
			ph[i] = fmt.Sprintf("$%d", i+1)
			args = append(args, n)
		}
		query += ` WHERE nis IN (` + strings.Join(ph, ", ") + `)`
	}
	for _, n := range nis {
		r.known[n] = rosterName{} // not on the roster unless read below
	}
	rows, err := r.l.sql.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var nis string
		var n rosterName
		if err := rows.Scan(&nis, &n.name, &n.class); err != nil {
			return err
		}
		r.known[nis] = n
	}
	return rows.Err()
}

// AccountRow is what one school account received in the range (Payments, Amount,
// Penalty, Paid) and what it is still to receive as of today (NotYetDue, Overdue).
type AccountRow struct {
	Account     string
	Payments    int
	Amount      int64
	Penalty     int64
	Paid        int64
	NotYetDue   int64
	Overdue     int64
	Outstanding int64
}

func (r *AccountRow) addRow(o AccountRow) {
	r.Payments += o.Payments
	r.Amount += o.Amount
	r.Penalty += o.Penalty
	r.Paid += o.Paid
	r.NotYetDue += o.NotYetDue
	r.Overdue += o.Overdue
	r.Outstanding += o.Outstanding
}

// AccountsReport is the per account code summary, by account code.
type AccountsReport struct {
	From, To time.Time
	Today    time.Time
	Rows     []AccountRow
	Total    AccountRow
}

// Accounts sums, per account code, the payments from from to to and what is still open
// and payable today, from the totals tables alone.
func (l *Ledger) Accounts(ctx context.Context, from, to time.Time) (AccountsReport, error) {
	if err := checkRange(from, to); err != nil {
		return AccountsReport{}, err
	}
	today := l.today()
	rep := AccountsReport{From: from, To: to, Today: dayTime(today)}
	rows := map[string]*AccountRow{}
	row := func(code string) *AccountRow {
		r := rows[code]
		if r == nil {
			r = &AccountRow{Account: code}
			rows[code] = r
		}
		return r
	}
	err := l.read(ctx, func(tx *sql.Tx) error {
		rs, err := tx.QueryContext(ctx, `SELECT account_code, SUM(components), SUM(amount_paid), SUM(penalty_paid)
			FROM ledger_paid_totals WHERE components <> 0 AND paid_day >= $1 AND paid_day <= $2
			GROUP BY account_code HAVING SUM(components) <> 0`, dayNum(from), dayNum(to))
		if err != nil {
			return err
		}
		for rs.Next() {
			var code string
			var n, paid, penalty int64
			if err := rs.Scan(&code, &n, &paid, &penalty); err != nil {
				rs.Close()
				return err
			}
			r := row(code)
			r.Payments, r.Paid, r.Penalty, r.Amount = int(n), paid, penalty, paid-penalty
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return err
		}
		g := groupsOn("$1")
		rs, err = tx.QueryContext(ctx, `SELECT account_code,
				SUM(CASE WHEN `+g.late()+` THEN `+g.price()+` ELSE 0 END),
				SUM(CASE WHEN `+g.notDue()+` THEN `+g.price()+` ELSE 0 END)
			FROM ledger_open_totals WHERE components <> 0 AND `+g.payable()+`
			GROUP BY account_code HAVING SUM(components) <> 0`, today)
		if err != nil {
			return err
		}
		defer rs.Close()
		for rs.Next() {
			var code string
			var overdue, notDue int64
			if err := rs.Scan(&code, &overdue, &notDue); err != nil {
				return err
			}
			r := row(code)
			r.Overdue, r.NotYetDue, r.Outstanding = overdue, notDue, overdue+notDue
		}
		return rs.Err()
	})
	if err != nil {
		return AccountsReport{}, fmt.Errorf("ledger: accounts: %w", err)
	}
	for _, r := range rows {
		rep.Rows = append(rep.Rows, *r)
		rep.Total.addRow(*r)
	}
	slices.SortFunc(rep.Rows, func(a, b AccountRow) int { return cmp.Compare(a.Account, b.Account) })
	return rep, nil
}
