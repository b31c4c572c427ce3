package ledger

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/sekolah/portal/internal/component"
)

// The figures below are the ones internal/reports computed by walking the service, with
// the same names and the same rules; here they come from the totals tables and one
// indexed range of the open components, so a dashboard at a million components reads a
// few thousand rows.

// Sum is an amount of rupiah and how many components make it up.
type Sum struct {
	Amount int64
	Count  int
}

func (s *Sum) addN(amount int64, n int64) {
	s.Amount += amount
	s.Count += int(n)
}

// Bucket is one age bucket of the outstanding amounts: components whose due day lies
// between DueFrom and DueTo (either may be zero: open-ended).
type Bucket struct {
	Key            string // not_due, late_1_30, late_31_60, late_61_90, late_over_90
	Sum            Sum
	DueFrom, DueTo time.Time
}

// The age buckets, in the order the dashboard and the outstanding report show them.
const (
	BucketNotDue = iota
	Bucket1to30
	Bucket31to60
	Bucket61to90
	BucketOver90
	NumBuckets
)

var bucketKeys = [NumBuckets]string{"not_due", "late_1_30", "late_31_60", "late_61_90", "late_over_90"}

// BucketKeys names the age buckets in order.
func BucketKeys() [NumBuckets]string { return bucketKeys }

// bucketOf places a component daysLate after its due day (<= 0: not yet due).
func bucketOf(daysLate int64) int {
	switch {
	case daysLate <= 0:
		return BucketNotDue
	case daysLate <= 30:
		return Bucket1to30
	case daysLate <= 60:
		return Bucket31to60
	case daysLate <= 90:
		return Bucket61to90
	}
	return BucketOver90
}

// buckets returns the empty buckets with the due ranges they stand for on today.
func buckets(today time.Time) [NumBuckets]Bucket {
	d := func(n int) time.Time { return today.AddDate(0, 0, -n) }
	return [NumBuckets]Bucket{
		{Key: bucketKeys[0], DueFrom: today},
		{Key: bucketKeys[1], DueFrom: d(30), DueTo: d(1)},
		{Key: bucketKeys[2], DueFrom: d(60), DueTo: d(31)},
		{Key: bucketKeys[3], DueFrom: d(90), DueTo: d(61)},
		{Key: bucketKeys[4], DueTo: d(91)},
	}
}

// MonthCollections is what came in during one month of the school year, per account code
// (aligned with Dashboard.Accounts).
type MonthCollections struct {
	Month     time.Time // first day
	ByAccount []int64
	Total     int64
}

// ClassArrears is the overdue amount of one class (Class empty: students without a class).
type ClassArrears struct {
	Class    string
	Amount   int64
	Students int
}

// StudentArrears is one student's overdue amount.
type StudentArrears struct {
	NIS, Name, Class string
	Amount           int64
	Count            int
	OldestDue        time.Time
	DaysLate         int // how late the oldest is, in days
}

// DueGroup is the unpaid components with the same due day, name and account code.
type DueGroup struct {
	Due      time.Time
	DaysLate int // from the due day to today: 0 due today, < 0 due in so many days
	Name     string
	Account  string
	Sum      Sum
	Reminder time.Time // when the service reminds the students (two days before)
}

// Dashboard is every figure of the principal's dashboard. Collected amounts are what was
// paid (amount_paid) on days in the school's zone; outstanding amounts are what paying
// would cost today (amount, plus the penalty once late); expired components cannot be
// paid any more and count at their face amount.
type Dashboard struct {
	Today      time.Time
	MonthStart time.Time
	YearStart  time.Time
	Bills      int // components (deleted ones left out)

	CollectedToday Sum
	CollectedMonth Sum
	CollectedYear  Sum

	// PaymentsToday and PaymentsMonth count payments, not components: the components
	// paid under one reference (one receipt, one bank payment) are one payment; a
	// component paid without a reference counts on its own.
	PaymentsToday int
	PaymentsMonth int

	NotYetDue       Sum
	Overdue         Sum   // amount + penalty of the late components
	OverduePenalty  int64 // the penalties within Overdue
	OverdueStudents int   // the students who owe Overdue
	Outstanding     Sum   // NotYetDue + Overdue
	Expired         Sum   // unpaid past their expiry: still owed, at their amount
	ExpiredStudents int   // the students who owe Expired

	// Arrears is what students owe past due: Overdue (priced today) and Expired (at their
	// amount) together; ArrearsStudents the students who owe any of it.
	Arrears         Sum
	ArrearsStudents int

	// DueMonth is the components due this month (their amounts); PaidDueMonth those of
	// them already paid. Their ratio is the collection rate.
	DueMonth     Sum
	PaidDueMonth Sum

	Accounts   []string // account codes of the year's collections, largest first
	Months     []MonthCollections
	Buckets    [NumBuckets]Bucket
	TopClasses []ClassArrears
	DueSoon    []DueGroup
	TopArrears []StudentArrears
}

// RatePermille is the collection rate of this month in tenths of a percent; ok is false
// when nothing is due this month.
func (d Dashboard) RatePermille() (permille int64, ok bool) {
	if d.DueMonth.Amount <= 0 {
		return 0, false
	}
	return d.PaidDueMonth.Amount * 1000 / d.DueMonth.Amount, true
}

// How long the dashboard lists are.
const (
	topArrearsLen = 10
	topClassesLen = 8
	dueSoonDays   = 7
)

// SchoolYearStart is 1 July of the school year (July–June) that contains day.
func SchoolYearStart(day time.Time) time.Time {
	y := day.Year()
	if day.Month() < time.July {
		y--
	}
	return time.Date(y, time.July, 1, 0, 0, 0, 0, time.UTC)
}

// MonthStart is the first day of day's month.
func MonthStart(day time.Time) time.Time {
	return time.Date(day.Year(), day.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// MonthEnd is the last day of day's month.
func MonthEnd(day time.Time) time.Time {
	return time.Date(day.Year(), day.Month()+1, 0, 0, 0, 0, 0, time.UTC)
}

// Dashboard computes the dashboard of today from the ledger.
func (l *Ledger) Dashboard(ctx context.Context) (Dashboard, error) {
	return l.DashboardOn(ctx, l.Today())
}

// DashboardOn computes the dashboard of day today (a UTC-midnight day in the ledger's
// zone) from what the ledger holds, in one read transaction so the figures agree.
func (l *Ledger) DashboardOn(ctx context.Context, today time.Time) (Dashboard, error) {
	d := Dashboard{Today: today, MonthStart: MonthStart(today), YearStart: SchoolYearStart(today), Buckets: buckets(today)}
	err := l.read(ctx, func(tx *sql.Tx) error {
		if err := l.dashboardOpen(ctx, tx, &d); err != nil {
			return err
		}
		if err := l.dashboardPaid(ctx, tx, &d); err != nil {
			return err
		}
		if err := l.dashboardPayments(ctx, tx, &d); err != nil {
			return err
		}
		return l.dashboardArrears(ctx, tx, &d)
	})
	if err != nil {
		return Dashboard{}, fmt.Errorf("ledger: dashboard: %w", err)
	}
	return d, nil
}

// read runs fn in a read-only transaction: one snapshot for every query of a page
// (SQLite's transactions are one snapshot; PostgreSQL's need repeatable read for that).
func (l *Ledger) read(ctx context.Context, fn func(tx *sql.Tx) error) error {
	opts := &sql.TxOptions{ReadOnly: true}
	if l.postgre {
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := l.sql.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // read only: nothing to keep
	return fn(tx)
}

// dashboardOpen adds up the open components' groups: outstanding by age, expired, due
// soon, and the open part of what is due this month. What each group is today and what
// it costs are the SQL rule's (today.go); the buckets and lists are placed here.
func (l *Ledger) dashboardOpen(ctx context.Context, tx *sql.Tx, d *Dashboard) error {
	todayN, monthN, monthEndN := dayNum(d.Today), dayNum(d.MonthStart), dayNum(MonthEnd(d.Today))
	g := groupsOn("$1")
	rows, err := tx.QueryContext(ctx, `SELECT due_day, account_code, name, components, amount, `+g.status()+`, `+g.price()+`,
		`+g.penalty()+`, `+g.daysLate()+` FROM ledger_open_totals WHERE components <> 0`, todayN)
	if err != nil {
		return err
	}
	defer rows.Close()
	type dueKey struct {
		due           int64
		name, account string
	}
	dueSoon := map[dueKey]*DueGroup{}
	for rows.Next() {
		var due, n, amount, owed, penalty, late int64
		var account, name, status string
		if err := rows.Scan(&due, &account, &name, &n, &amount, &status, &owed, &penalty, &late); err != nil {
			return err
		}
		d.Bills += int(n)
		if due >= monthN && due <= monthEndN {
			d.DueMonth.addN(amount, n)
		}
		switch component.Status(status) {
		case component.StatusExpired:
			d.Expired.addN(amount, n)
			continue
		case component.StatusOverdue:
			d.Overdue.addN(owed, n)
			d.OverduePenalty += penalty
		default:
			d.NotYetDue.addN(owed, n)
			if -late <= dueSoonDays {
				k := dueKey{due, name, account}
				g := dueSoon[k]
				if g == nil {
					day := dayTime(due)
					g = &DueGroup{Due: day, DaysLate: int(late), Name: name, Account: account, Reminder: day.AddDate(0, 0, -2)}
					dueSoon[k] = g
				}
				g.Sum.addN(owed, n)
			}
		}
		d.Outstanding.addN(owed, n)
		d.Buckets[bucketOf(late)].Sum.addN(owed, n)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, g := range dueSoon {
		d.DueSoon = append(d.DueSoon, *g)
	}
	slices.SortFunc(d.DueSoon, func(a, b DueGroup) int {
		return cmp.Or(a.Due.Compare(b.Due), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Account, b.Account))
	})
	return nil
}

// dashboardPaid adds up the paid groups: collections of the year by month and account,
// and the paid part of what is due this month; and counts the paid components.
func (l *Ledger) dashboardPaid(ctx context.Context, tx *sql.Tx, d *Dashboard) error {
	todayN, monthN, monthEndN := dayNum(d.Today), dayNum(d.MonthStart), dayNum(MonthEnd(d.Today))
	yearN, yearEndN := dayNum(d.YearStart), dayNum(d.YearStart.AddDate(1, 0, 0))-1

	var paidCount sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT SUM(components) FROM ledger_paid_totals`).Scan(&paidCount); err != nil {
		return err
	}
	d.Bills += int(paidCount.Int64)

	rows, err := tx.QueryContext(ctx, `SELECT paid_day, account_code, due_day, components, amount, amount_paid
		FROM ledger_paid_totals
		WHERE components <> 0 AND (paid_day BETWEEN $1 AND $2 OR due_day BETWEEN $3 AND $4)`,
		yearN, yearEndN, monthN, monthEndN)
	if err != nil {
		return err
	}
	defer rows.Close()
	accountIdx := map[string]int{}
	var byMonth [12][]int64
	for rows.Next() {
		var paidDay, due, n, amount, amountPaid int64
		var account string
		if err := rows.Scan(&paidDay, &account, &due, &n, &amount, &amountPaid); err != nil {
			return err
		}
		if due >= monthN && due <= monthEndN {
			d.DueMonth.addN(amount, n)
			d.PaidDueMonth.addN(amount, n)
		}
		if paidDay == noPaidDay {
			continue
		}
		if paidDay == todayN {
			d.CollectedToday.addN(amountPaid, n)
		}
		if paidDay >= monthN && paidDay <= todayN {
			d.CollectedMonth.addN(amountPaid, n)
		}
		if paidDay >= yearN && paidDay <= todayN {
			d.CollectedYear.addN(amountPaid, n)
		}
		if paidDay >= yearN && paidDay <= yearEndN {
			ai, ok := accountIdx[account]
			if !ok {
				ai = len(accountIdx)
				accountIdx[account] = ai
				for m := range byMonth {
					byMonth[m] = append(byMonth[m], 0)
				}
			}
			m := (int(dayTime(paidDay).Month()) - int(time.July) + 12) % 12
			byMonth[m][ai] += amountPaid
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}

	totals := make([]int64, len(accountIdx))
	for _, m := range byMonth {
		for i, v := range m {
			totals[i] += v
		}
	}
	order := make([]string, 0, len(accountIdx))
	for code := range accountIdx {
		order = append(order, code)
	}
	slices.SortFunc(order, func(a, b string) int {
		return cmp.Or(cmp.Compare(totals[accountIdx[b]], totals[accountIdx[a]]), cmp.Compare(a, b))
	})
	d.Accounts = order
	for m := range byMonth {
		mc := MonthCollections{Month: d.YearStart.AddDate(0, m, 0), ByAccount: make([]int64, len(order))}
		for i, code := range order {
			v := byMonth[m][accountIdx[code]]
			mc.ByAccount[i] = v
			mc.Total += v
		}
		d.Months = append(d.Months, mc)
	}
	return nil
}

// dashboardPayments counts this month's payments (and today's) by their reference: a
// receipt for two components is one payment. A payment is made at one instant, so it
// falls on one day, and each day's distinct references add up to the month's. It reads
// the month's range of the payments index (which carries the reference), not the table.
func (l *Ledger) dashboardPayments(ctx context.Context, tx *sql.Tx, d *Dashboard) error {
	todayN, monthN := dayNum(d.Today), dayNum(d.MonthStart)
	rows, err := tx.QueryContext(ctx, `SELECT paid_day, COUNT(DISTINCT CASE WHEN ref_number <> '' THEN ref_number ELSE id END)
		FROM ledger_components`+l.indexedBy("ledger_components_payments")+` WHERE kind = 1 AND paid_day BETWEEN $1 AND $2 GROUP BY paid_day`, monthN, todayN)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var paidDay, n int64
		if err := rows.Scan(&paidDay, &n); err != nil {
			return err
		}
		d.PaymentsMonth += int(n)
		if paidDay == todayN {
			d.PaymentsToday += int(n)
		}
	}
	return rows.Err()
}

// dashboardArrears ranks the students and classes by what they owe late today: the open
// components due before today and not yet expired, a range of the open index; and counts
// the students who owe expired ones, and any of both (the arrears).
func (l *Ledger) dashboardArrears(ctx context.Context, tx *sql.Tx, d *Dashboard) error {
	todayN := dayNum(d.Today)
	c := componentsOn("", "$1")
	rows, err := tx.QueryContext(ctx, `SELECT o.nis, o.owed, o.n, o.oldest, o.days_late, o.expired, COALESCE(s.name, ''), COALESCE(s.description, '')
		FROM (SELECT nis, SUM(`+c.price()+`) AS owed, SUM(CASE WHEN `+c.late()+` THEN 1 ELSE 0 END) AS n,
				MIN(CASE WHEN `+c.late()+` THEN due_day END) AS oldest, MAX(CASE WHEN `+c.late()+` THEN `+c.daysLate()+` END) AS days_late,
				SUM(CASE WHEN `+c.expired()+` THEN 1 ELSE 0 END) AS expired
			FROM ledger_components`+l.indexedBy("ledger_components_open")+` WHERE `+c.arrears()+` GROUP BY nis) o
		LEFT JOIN students s ON s.nis = o.nis`, todayN)
	if err != nil {
		return err
	}
	defer rows.Close()
	classes := map[string]*ClassArrears{}
	var arrears []StudentArrears
	for rows.Next() {
		var a StudentArrears
		var oldest, late sql.NullInt64
		var n, expired int64
		if err := rows.Scan(&a.NIS, &a.Amount, &n, &oldest, &late, &expired, &a.Name, &a.Class); err != nil {
			return err
		}
		d.ArrearsStudents++
		if expired > 0 {
			d.ExpiredStudents++
		}
		if n == 0 {
			continue // expired ones only: counted above, not ranked by what is late
		}
		a.Count, a.OldestDue, a.DaysLate = int(n), dayTime(oldest.Int64), int(late.Int64)
		arrears = append(arrears, a)
		c := classes[a.Class]
		if c == nil {
			c = &ClassArrears{Class: a.Class}
			classes[a.Class] = c
		}
		c.Amount += a.Amount
		c.Students++
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows.Close()
	d.OverdueStudents = len(arrears)
	d.Arrears = Sum{Amount: d.Overdue.Amount + d.Expired.Amount, Count: d.Overdue.Count + d.Expired.Count}
	slices.SortFunc(arrears, func(a, b StudentArrears) int {
		return cmp.Or(cmp.Compare(b.Amount, a.Amount), cmp.Compare(a.NIS, b.NIS))
	})
	d.TopArrears = arrears[:min(len(arrears), topArrearsLen)]
	for i := range d.TopArrears {
		if d.TopArrears[i].Name != "" {
			continue
		}
		// Not on the roster: the name the service gives their newest late component.
		if err := tx.QueryRowContext(ctx, `SELECT student_name FROM ledger_components
			WHERE nis = $1 AND `+componentsOn("", "$2").late()+`
			ORDER BY created_us DESC, id DESC LIMIT 1`, d.TopArrears[i].NIS, todayN).Scan(&d.TopArrears[i].Name); err != nil {
			return err
		}
	}
	for _, c := range classes {
		d.TopClasses = append(d.TopClasses, *c)
	}
	slices.SortFunc(d.TopClasses, func(a, b ClassArrears) int {
		return cmp.Or(cmp.Compare(b.Amount, a.Amount), cmp.Compare(a.Class, b.Class))
	})
	d.TopClasses = d.TopClasses[:min(len(d.TopClasses), topClassesLen)]
	return nil
}
