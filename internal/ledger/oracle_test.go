package ledger_test

import (
	"cmp"
	"iter"
	"slices"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
)

// The oracle: the dashboard and the reports worked out by walking every component in
// memory, one at a time, with the billing package's day rule (Bill.DueToday, IsLate,
// ReminderDay). It is how internal/reports computed them before the ledger answered in
// SQL, kept here as the independent answer the ledger's queries are checked against.

// person is a student's name and class on the roster.
type person struct{ name, class string }

// roster maps NIS to the roster's name and class.
type roster map[string]person

// of is b's student: the roster's entry, its name falling back to the service's.
func (r roster) of(b billing.Bill) person {
	p := r[b.NIS]
	if p.name == "" {
		p.name = b.StudentName
	}
	return p
}

func dayN(t time.Time) int {
	y, m, d := t.Date()
	return int(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

func bucketOfDays(late int) int {
	switch {
	case late <= 0:
		return ledger.BucketNotDue
	case late <= 30:
		return ledger.Bucket1to30
	case late <= 60:
		return ledger.Bucket31to60
	case late <= 90:
		return ledger.Bucket61to90
	}
	return ledger.BucketOver90
}

// oracleDashboard makes the dashboard from bills on today in one pass.
func oracleDashboard(today time.Time, loc *time.Location, bills iter.Seq2[billing.Bill, error], people roster) (ledger.Dashboard, error) {
	d := ledger.Dashboard{Today: today, MonthStart: ledger.MonthStart(today), YearStart: ledger.SchoolYearStart(today)}
	keys := ledger.BucketKeys()
	dd := func(n int) time.Time { return today.AddDate(0, 0, -n) }
	d.Buckets = [ledger.NumBuckets]ledger.Bucket{
		{Key: keys[0], DueFrom: today},
		{Key: keys[1], DueFrom: dd(30), DueTo: dd(1)},
		{Key: keys[2], DueFrom: dd(60), DueTo: dd(31)},
		{Key: keys[3], DueFrom: dd(90), DueTo: dd(61)},
		{Key: keys[4], DueTo: dd(91)},
	}
	todayN, monthN, monthEndN := dayN(today), dayN(d.MonthStart), dayN(ledger.MonthEnd(today))
	yearN := dayN(d.YearStart)
	yearEndN := dayN(d.YearStart.AddDate(1, 0, 0)) - 1
	accountIdx := map[string]int{}
	var byMonth [12][]int64
	type agg struct {
		name          string
		amount        int64
		count, oldest int
	}
	students := map[string]*agg{}
	expiredOf := map[string]bool{} // students who owe expired components
	type dueKey struct {
		due           int
		name, account string
	}
	dueSoon := map[dueKey]*ledger.DueGroup{}
	for b, err := range bills {
		if err != nil {
			return ledger.Dashboard{}, err
		}
		d.Bills++
		dueN := dayN(b.Due.UTC())
		if dueN >= monthN && dueN <= monthEndN {
			d.DueMonth.Amount += b.Amount
			d.DueMonth.Count++
			if b.State == billing.StatePaid {
				d.PaidDueMonth.Amount += b.Amount
				d.PaidDueMonth.Count++
			}
		}
		if b.State == billing.StatePaid {
			if b.PaidAt.IsZero() {
				continue
			}
			paidN := dayN(b.PaidAt.In(loc))
			if paidN == todayN {
				d.CollectedToday.Amount += b.AmountPaid
				d.CollectedToday.Count++
			}
			if paidN >= monthN && paidN <= todayN {
				d.CollectedMonth.Amount += b.AmountPaid
				d.CollectedMonth.Count++
			}
			if paidN >= yearN && paidN <= todayN {
				d.CollectedYear.Amount += b.AmountPaid
				d.CollectedYear.Count++
			}
			if paidN >= yearN && paidN <= yearEndN {
				ai, ok := accountIdx[b.AccountCode]
				if !ok {
					ai = len(accountIdx)
					accountIdx[b.AccountCode] = ai
					for m := range byMonth {
						byMonth[m] = append(byMonth[m], 0)
					}
				}
				m := (int(b.PaidAt.In(loc).Month()) - int(time.July) + 12) % 12
				byMonth[m][ai] += b.AmountPaid
			}
			continue
		}
		due := b.DueToday(today)
		if due == 0 {
			d.Expired.Amount += b.Amount
			d.Expired.Count++
			expiredOf[b.NIS] = true
			continue
		}
		late := todayN - dueN
		d.Outstanding.Amount += due
		d.Outstanding.Count++
		d.Buckets[bucketOfDays(late)].Sum.Amount += due
		d.Buckets[bucketOfDays(late)].Sum.Count++
		if late <= 0 {
			d.NotYetDue.Amount += due
			d.NotYetDue.Count++
			if -late <= 7 {
				k := dueKey{dueN, b.Name, b.AccountCode}
				g := dueSoon[k]
				if g == nil {
					g = &ledger.DueGroup{Due: b.Due.UTC(), DaysLate: late, Name: b.Name, Account: b.AccountCode, Reminder: b.ReminderDay()}
					dueSoon[k] = g
				}
				g.Sum.Amount += due
				g.Sum.Count++
			}
			continue
		}
		d.Overdue.Amount += due
		d.Overdue.Count++
		d.OverduePenalty += due - b.Amount
		s := students[b.NIS]
		if s == nil {
			s = &agg{name: b.StudentName, oldest: dueN}
			students[b.NIS] = s
		}
		s.amount += due
		s.count++
		s.oldest = min(s.oldest, dueN)
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
		mc := ledger.MonthCollections{Month: d.YearStart.AddDate(0, m, 0), ByAccount: make([]int64, len(order))}
		for i, code := range order {
			v := byMonth[m][accountIdx[code]]
			mc.ByAccount[i] = v
			mc.Total += v
		}
		d.Months = append(d.Months, mc)
	}
	d.ExpiredStudents = len(expiredOf)
	d.OverdueStudents = len(students)
	d.ArrearsStudents = len(expiredOf)
	for nis := range students {
		if !expiredOf[nis] {
			d.ArrearsStudents++
		}
	}
	d.Arrears = ledger.Sum{Amount: d.Overdue.Amount + d.Expired.Amount, Count: d.Overdue.Count + d.Expired.Count}
	classes := map[string]*ledger.ClassArrears{}
	var arrears []ledger.StudentArrears
	for nis, s := range students {
		pe := people[nis]
		if pe.name == "" {
			pe.name = s.name
		}
		arrears = append(arrears, ledger.StudentArrears{NIS: nis, Name: pe.name, Class: pe.class, Amount: s.amount, Count: s.count,
			OldestDue: time.Unix(int64(s.oldest)*86400, 0).UTC(), DaysLate: todayN - s.oldest})
		c := classes[pe.class]
		if c == nil {
			c = &ledger.ClassArrears{Class: pe.class}
			classes[pe.class] = c
		}
		c.Amount += s.amount
		c.Students++
	}
	slices.SortFunc(arrears, func(a, b ledger.StudentArrears) int {
		return cmp.Or(cmp.Compare(b.Amount, a.Amount), cmp.Compare(a.NIS, b.NIS))
	})
	d.TopArrears = arrears[:min(len(arrears), 10)]
	for _, c := range classes {
		d.TopClasses = append(d.TopClasses, *c)
	}
	slices.SortFunc(d.TopClasses, func(a, b ledger.ClassArrears) int {
		return cmp.Or(cmp.Compare(b.Amount, a.Amount), cmp.Compare(a.Class, b.Class))
	})
	d.TopClasses = d.TopClasses[:min(len(d.TopClasses), 8)]
	for _, g := range dueSoon {
		d.DueSoon = append(d.DueSoon, *g)
	}
	slices.SortFunc(d.DueSoon, func(a, b ledger.DueGroup) int {
		return cmp.Or(a.Due.Compare(b.Due), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Account, b.Account))
	})
	return d, nil
}

// oracleOutstanding groups the open, payable components of bills by student.
func oracleOutstanding(bills []billing.Bill, f ledger.OutstandingFilter, today time.Time, people roster) ledger.OutstandingReport {
	rep := ledger.OutstandingReport{Filter: f, Today: today}
	byNIS := map[string]*ledger.OutstandingRow{}
	todayN := dayN(today)
	expired := map[string]*ledger.OutstandingRow{}
	for _, b := range bills {
		due := b.DueToday(today)
		if b.State == billing.StatePaid || b.State == billing.StateDeleted {
			continue
		}
		if f.Account != "" && b.AccountCode != f.Account ||
			!f.DueFrom.IsZero() && b.Due.Before(f.DueFrom) || !f.DueTo.IsZero() && b.Due.After(f.DueTo) {
			continue
		}
		pe := people.of(b)
		switch {
		case f.Class == "":
		case f.Class == ledger.NoClass && pe.class != "":
			continue
		case f.Class != ledger.NoClass && f.Class != pe.class:
			continue
		}
		if due == 0 { // expired unpaid: beside the student's row, in its own column
			e := expired[b.NIS]
			if e == nil {
				e = &ledger.OutstandingRow{}
				expired[b.NIS] = e
			}
			e.Expired += b.Amount
			e.ExpiredCount++
			continue
		}
		lateDays := todayN - dayN(b.Due.UTC())
		if f.Overdue && lateDays <= 0 {
			continue
		}
		r := byNIS[b.NIS]
		if r == nil {
			r = &ledger.OutstandingRow{NIS: b.NIS, Name: pe.name, Class: pe.class, OldestDue: b.Due.UTC(), DaysLate: lateDays}
			byNIS[b.NIS] = r
		}
		r.Count++
		r.Buckets[bucketOfDays(lateDays)] += due
		r.Penalty += due - b.Amount
		r.Total += due
		if lateDays > 0 {
			r.Overdue += due
			r.OverdueCount++
		}
		if b.Due.Before(r.OldestDue) {
			r.OldestDue = b.Due.UTC()
		}
		r.DaysLate = max(r.DaysLate, lateDays)
	}
	for nis, e := range expired {
		if r := byNIS[nis]; r != nil {
			r.Expired, r.ExpiredCount = e.Expired, e.ExpiredCount
		}
	}
	rep.Rows = []ledger.OutstandingRow{}
	for _, r := range byNIS {
		rep.Rows = append(rep.Rows, *r)
		rep.Total.Count += r.Count
		for i := range r.Buckets {
			rep.Total.Buckets[i] += r.Buckets[i]
		}
		rep.Total.Penalty += r.Penalty
		rep.Total.Total += r.Total
		rep.Total.Overdue += r.Overdue
		rep.Total.OverdueCount += r.OverdueCount
		rep.Total.Expired += r.Expired
		rep.Total.ExpiredCount += r.ExpiredCount
	}
	noClassLast := func(c string) int {
		if c == "" {
			return 1
		}
		return 0
	}
	slices.SortFunc(rep.Rows, func(a, b ledger.OutstandingRow) int {
		return cmp.Or(cmp.Compare(b.Overdue, a.Overdue), cmp.Compare(b.Total, a.Total), cmp.Compare(b.Expired, a.Expired),
			cmp.Compare(noClassLast(a.Class), noClassLast(b.Class)), i18n.CompareNatural(a.Class, b.Class),
			cmp.Compare(a.Name, b.Name), cmp.Compare(a.NIS, b.NIS))
	})
	return rep
}

// oraclePayments is every payment of bills paid from from to to (days in loc), in the
// order they were paid (then NIS and id), with its day totals and the grand total.
func oraclePayments(bills []billing.Bill, from, to time.Time, account string, loc *time.Location, people roster) ([]ledger.PaymentRow, []ledger.DayTotal, ledger.DayTotal) {
	type paid struct {
		b  billing.Bill
		at time.Time
	}
	var list []paid
	for _, b := range bills {
		if b.State != billing.StatePaid || b.PaidAt.IsZero() || account != "" && b.AccountCode != account {
			continue
		}
		d := billing.DayIn(b.PaidAt, loc)
		if d.Before(from) || d.After(to) {
			continue
		}
		list = append(list, paid{b, b.PaidAt})
	}
	slices.SortFunc(list, func(a, b paid) int {
		return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.b.NIS, b.b.NIS), cmp.Compare(a.b.ComponentID, b.b.ComponentID))
	})
	var rows []ledger.PaymentRow
	var days []ledger.DayTotal
	var total ledger.DayTotal
	for _, p := range list {
		b := p.b
		pe := people.of(b)
		penalty := max(b.AmountPaid-b.Amount, 0)
		r := ledger.PaymentRow{Day: billing.DayIn(b.PaidAt, loc), PaidAt: b.PaidAt, NIS: b.NIS, Name: pe.name, Class: pe.class,
			Component: b.Name, Account: b.AccountCode, Amount: b.AmountPaid - penalty, Penalty: penalty, Paid: b.AmountPaid, Ref: b.RefNumber,
			Channel: ledger.ChannelUnknown} // the sync found them all on its own: no callback, no counter
		rows = append(rows, r)
		if len(days) == 0 || !days[len(days)-1].Day.Equal(r.Day) {
			days = append(days, ledger.DayTotal{Day: r.Day})
		}
		for _, t := range []*ledger.DayTotal{&days[len(days)-1], &total} {
			t.Count++
			t.Amount += r.Amount
			t.Penalty += r.Penalty
			t.Paid += r.Paid
		}
	}
	return rows, days, total
}

// oracleAccounts sums, per account code, the payments from from to to and what is open
// and payable today.
func oracleAccounts(bills []billing.Bill, from, to, today time.Time, loc *time.Location) ([]ledger.AccountRow, ledger.AccountRow) {
	rows := map[string]*ledger.AccountRow{}
	row := func(code string) *ledger.AccountRow {
		r := rows[code]
		if r == nil {
			r = &ledger.AccountRow{Account: code}
			rows[code] = r
		}
		return r
	}
	for _, b := range bills {
		if b.State == billing.StatePaid {
			if b.PaidAt.IsZero() {
				continue
			}
			if d := billing.DayIn(b.PaidAt, loc); d.Before(from) || d.After(to) {
				continue
			}
			penalty := max(b.AmountPaid-b.Amount, 0)
			r := row(b.AccountCode)
			r.Payments++
			r.Amount += b.AmountPaid - penalty
			r.Penalty += penalty
			r.Paid += b.AmountPaid
			continue
		}
		due := b.DueToday(today)
		if due == 0 {
			continue
		}
		r := row(b.AccountCode)
		if b.IsLate(today) {
			r.Overdue += due
		} else {
			r.NotYetDue += due
		}
		r.Outstanding += due
	}
	var out []ledger.AccountRow
	var total ledger.AccountRow
	for _, r := range rows {
		out = append(out, *r)
		total.Payments += r.Payments
		total.Amount += r.Amount
		total.Penalty += r.Penalty
		total.Paid += r.Paid
		total.NotYetDue += r.NotYetDue
		total.Overdue += r.Overdue
		total.Outstanding += r.Outstanding
	}
	slices.SortFunc(out, func(a, b ledger.AccountRow) int { return cmp.Compare(a.Account, b.Account) })
	return out, total
}
