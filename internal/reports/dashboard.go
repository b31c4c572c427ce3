package reports

import (
	"cmp"
	"context"
	"iter"
	"slices"
	"time"

	"github.com/sekolah/portal/internal/billing"
)

// Sum is an amount of rupiah and how many components make it up.
type Sum struct {
	Amount int64
	Count  int
}

func (s *Sum) add(amount int64) {
	s.Amount += amount
	s.Count++
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
func bucketOf(daysLate int) int {
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
}

// DueGroup is the unpaid components with the same due day, name and account code.
type DueGroup struct {
	Due      time.Time
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
	Bills      int // components read

	CollectedToday Sum
	CollectedMonth Sum
	CollectedYear  Sum

	NotYetDue      Sum
	Overdue        Sum   // amount + penalty of the late components
	OverduePenalty int64 // the penalties within Overdue
	Outstanding    Sum   // NotYetDue + Overdue
	Expired        Sum

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

// studentAgg gathers one student's overdue components.
type studentAgg struct {
	name   string // as the billing service knows it
	amount int64
	count  int
	oldest int
}

// ComputeDashboard makes the dashboard from bills on today (a UTC-midnight day in the
// school's zone) in one pass; loc is the zone payments are dated in. It holds only
// aggregates: per student, class, month and due group, never the bills.
func ComputeDashboard(today time.Time, loc *time.Location, bills iter.Seq2[billing.Bill, error], people People) (Dashboard, error) {
	d := Dashboard{Today: today, MonthStart: MonthStart(today), YearStart: SchoolYearStart(today), Buckets: buckets(today)}
	todayN, monthN, monthEndN := dayNum(today), dayNum(d.MonthStart), dayNum(MonthEnd(today))
	yearN, yearEnd := dayNum(d.YearStart), d.YearStart.AddDate(1, 0, 0)
	yearEndN := dayNum(yearEnd) - 1

	accountIdx := map[string]int{}
	var byMonth [12][]int64 // per month, per account index
	students := map[string]*studentAgg{}
	type dueKey struct {
		due           int
		name, account string
	}
	dueSoon := map[dueKey]*DueGroup{}

	for b, err := range bills {
		if err != nil {
			return Dashboard{}, err
		}
		d.Bills++
		dueN := dayNum(b.Due.UTC())
		if dueN >= monthN && dueN <= monthEndN {
			d.DueMonth.add(b.Amount)
			if b.State == billing.StatePaid {
				d.PaidDueMonth.add(b.Amount)
			}
		}
		if b.State == billing.StatePaid {
			if b.PaidAt.IsZero() {
				continue
			}
			paidN := dayNum(b.PaidAt.In(loc))
			if paidN == todayN {
				d.CollectedToday.add(b.AmountPaid)
			}
			if paidN >= monthN && paidN <= todayN {
				d.CollectedMonth.add(b.AmountPaid)
			}
			if paidN >= yearN && paidN <= todayN {
				d.CollectedYear.add(b.AmountPaid)
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
				p := b.PaidAt.In(loc)
				m := (int(p.Month()) - int(time.July) + 12) % 12
				byMonth[m][ai] += b.AmountPaid
			}
			continue
		}
		due := b.DueToday(today)
		if due == 0 {
			d.Expired.add(b.Amount)
			continue
		}
		late := todayN - dueN
		d.Outstanding.add(due)
		d.Buckets[bucketOf(late)].Sum.add(due)
		if late <= 0 {
			d.NotYetDue.add(due)
			if -late <= dueSoonDays {
				k := dueKey{dueN, b.Name, b.AccountCode}
				g := dueSoon[k]
				if g == nil {
					g = &DueGroup{Due: b.Due.UTC(), Name: b.Name, Account: b.AccountCode, Reminder: b.ReminderDay()}
					dueSoon[k] = g
				}
				g.Sum.add(due)
			}
			continue
		}
		d.Overdue.add(due)
		d.OverduePenalty += due - b.Amount
		s := students[b.NIS]
		if s == nil {
			s = &studentAgg{name: b.StudentName, oldest: dueN}
			students[b.NIS] = s
		}
		s.amount += due
		s.count++
		s.oldest = min(s.oldest, dueN)
	}

	// Accounts, largest year total first; months aligned with them.
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

	// Students and classes by arrears.
	classes := map[string]*ClassArrears{}
	arrears := make([]StudentArrears, 0, len(students))
	for nis, s := range students {
		pe := people[nis]
		if pe.Name == "" {
			pe.Name = s.name
		}
		arrears = append(arrears, StudentArrears{NIS: nis, Name: pe.Name, Class: pe.Class, Amount: s.amount, Count: s.count,
			OldestDue: time.Unix(int64(s.oldest)*86400, 0).UTC()})
		c := classes[pe.Class]
		if c == nil {
			c = &ClassArrears{Class: pe.Class}
			classes[pe.Class] = c
		}
		c.Amount += s.amount
		c.Students++
	}
	slices.SortFunc(arrears, func(a, b StudentArrears) int {
		return cmp.Or(cmp.Compare(b.Amount, a.Amount), cmp.Compare(a.NIS, b.NIS))
	})
	d.TopArrears = arrears[:min(len(arrears), topArrearsLen)]
	for _, c := range classes {
		d.TopClasses = append(d.TopClasses, *c)
	}
	slices.SortFunc(d.TopClasses, func(a, b ClassArrears) int {
		return cmp.Or(cmp.Compare(b.Amount, a.Amount), cmp.Compare(a.Class, b.Class))
	})
	d.TopClasses = d.TopClasses[:min(len(d.TopClasses), topClassesLen)]

	for _, g := range dueSoon {
		d.DueSoon = append(d.DueSoon, *g)
	}
	slices.SortFunc(d.DueSoon, func(a, b DueGroup) int {
		return cmp.Or(a.Due.Compare(b.Due), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Account, b.Account))
	})
	return d, nil
}

// Dashboard returns the dashboard of today, from cache when fresh (refresh forces a new
// pass unless the figures are seconds old).
func (s *Service) Dashboard(ctx context.Context, refresh bool) (Cached[Dashboard], error) {
	today := s.Today()
	key := "dashboard|" + today.Format(time.DateOnly)
	return get(ctx, s.cache, key, refresh, func(ctx context.Context) (Dashboard, error) {
		people, err := loadPeople(ctx, s.roster)
		if err != nil {
			return Dashboard{}, err
		}
		return ComputeDashboard(today, s.loc, s.src.All(ctx, billing.Query{Limit: billing.MaxLimit}), people)
	})
}
