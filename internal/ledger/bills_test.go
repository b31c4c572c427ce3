package ledger_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/internal/ledger"
)

// nisOrder is the ledger's NIS order: numeric NIS by value, before the others.
func nisOrder(a, b string) int {
	digits := func(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
	da, db := digits(a), digits(b)
	switch {
	case da && db:
		a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
		return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b))
	case da:
		return -1
	case db:
		return 1
	}
	return strings.Compare(a, b)
}

// expectBillsUnsorted is the bills list worked out the slow way from every component:
// the bills q's filter and tab keep, in no order, and their totals (sort and direction
// do not change them; sortedBills orders them, q's paging is not applied).
func expectBillsUnsorted(all []billing.Bill, q ledger.BillsQuery, people roster, now time.Time) ([]billing.Bill, ledger.BillTotals) {
	today := now.In(jakarta)
	var keep []billing.Bill
	for _, b := range all {
		expired := b.State != billing.StatePaid && b.DueToday(today) == 0
		switch q.Tab {
		case ledger.TabOutstanding:
			if b.State == billing.StatePaid || expired {
				continue
			}
		case ledger.TabExpired:
			if !expired {
				continue
			}
		case ledger.TabPaid:
			if b.State != billing.StatePaid {
				continue
			}
		}
		paidDay := billing.DayIn(b.PaidAt, jakarta)
		if q.Account != "" && b.AccountCode != q.Account || q.Notes != "" && !strings.Contains(strings.ToLower(b.Notes), strings.ToLower(q.Notes)) ||
			q.Name != "" && !strings.Contains(strings.ToLower(b.Name), strings.ToLower(q.Name)) ||
			q.Ref != "" && b.RefNumber != q.Ref || q.NIS != "" && b.NIS != q.NIS ||
			!q.DueFrom.IsZero() && b.Due.Before(q.DueFrom) || !q.DueTo.IsZero() && b.Due.After(q.DueTo) ||
			(!q.PaidFrom.IsZero() || !q.PaidTo.IsZero()) && b.PaidAt.IsZero() ||
			!q.PaidFrom.IsZero() && paidDay.Before(q.PaidFrom) || !q.PaidTo.IsZero() && paidDay.After(q.PaidTo) {
			continue
		}
		if q.Search != "" && !strings.Contains(strings.ToLower(people[b.NIS].name), strings.ToLower(q.Search)) && !strings.HasPrefix(b.NIS, q.Search) {
			continue
		}
		if q.Class != "" && people[b.NIS].class != q.Class {
			continue
		}
		keep = append(keep, b)
	}
	totals := ledger.BillTotals{Count: len(keep)}
	for _, b := range keep {
		totals.Amount += b.Amount
		totals.PenaltyToday += component.On(b, today).Penalty
		totals.DueToday += b.DueToday(today)
		if b.State == billing.StatePaid {
			totals.Paid += b.AmountPaid
		}
	}
	return keep, totals
}

// sortedBills is a sorted copy of bills in q's sort and direction.
func sortedBills(bills []billing.Bill, q ledger.BillsQuery) []billing.Bill {
	keep := slices.Clone(bills)
	newest := func(a, b billing.Bill) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), strings.Compare(b.ComponentID, a.ComponentID))
	}
	dir := func(c int) int {
		if q.Desc {
			return -c
		}
		return c
	}
	slices.SortFunc(keep, func(a, b billing.Bill) int {
		switch q.Sort {
		case ledger.SortDue:
			return dir(cmp.Or(a.Due.Compare(b.Due), newest(a, b)))
		case ledger.SortAmount:
			return dir(cmp.Or(cmp.Compare(a.Amount, b.Amount), newest(a, b)))
		case ledger.SortNIS:
			return dir(cmp.Or(nisOrder(a.NIS, b.NIS), newest(a, b)))
		case ledger.SortPaid:
			az, bz := a.PaidAt.IsZero(), b.PaidAt.IsZero()
			switch {
			case az && bz:
				return newest(a, b)
			case az:
				return 1
			case bz:
				return -1
			}
			return dir(cmp.Or(a.PaidAt.Compare(b.PaidAt), newest(a, b)))
		}
		return dir(newest(a, b))
	})
	return keep
}

// TestBillsMatchTheSlowWay: on a generated school, every tab, sort, direction, filter
// and page of the bills list, with the count and totals of the whole result, is what
// reading every component and sorting them in memory gives.
func TestBillsMatchTheSlowWay(t *testing.T) { eachEngine(t, testBillsMatchTheSlowWay) }

func testBillsMatchTheSlowWay(t *testing.T, engine string) {
	ctx := context.Background()
	db := openDB(t, engine)
	now := ledger.GenToday.Add(3 * time.Hour)
	clk := func() time.Time { return now }
	l, err := ledger.New(ctx, ledger.Config{DB: db, Clock: clock.New(clk, jakarta)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ledger.Generate(ctx, db, 3_000, jakarta); err != nil {
		t.Fatal(err)
	}
	roster := people(t, db)
	// Two days: one in the middle of a month, one when a month's SPP falls due (so a
	// component due today is neither late nor on time by mistake).
	checkBills(t, l, roster, checkAll)
	// A day a month's SPP falls due: the totals' late-or-not edge (first pages only).
	now = time.Date(2027, 3, 10, 1, 0, 0, 0, time.UTC)
	checkBills(t, l, roster, checkTotals)
	// Searches that match many students are joined in SQL instead of listed.
	l.SetMaxFound(0)
	checkBills(t, l, roster, checkSearches)
}

// What a checkBills pass covers.
const (
	checkAll      = iota // every filter, tab, sort, direction and page
	checkTotals          // every filter and tab, the first page newest first
	checkSearches        // the searches, every tab, sort, direction and page
)

func checkBills(t *testing.T, l *ledger.Ledger, roster roster, mode int) {
	ctx := context.Background()
	now := l.Now()
	var all []billing.Bill
	for b, err := range l.All(ctx, billing.Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b)
	}
	some := all[len(all)/3]
	var paid billing.Bill
	for _, b := range all {
		if b.State == billing.StatePaid {
			paid = b
			break
		}
	}
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	filters := []ledger.BillsQuery{
		{},
		{Account: "SPP"},
		{DueFrom: day(2026, 9, 1), DueTo: day(2027, 4, 30)},
		{PaidFrom: day(2026, 10, 1), PaidTo: day(2027, 2, 28)},
		{NIS: some.NIS},
		{Search: "ayu"},
		{Search: some.NIS[:6]},
		{Ref: paid.RefNumber},
		{Account: "BCA", DueFrom: day(2025, 1, 1)},
		{Class: roster[some.NIS].class},
		{Class: roster[some.NIS].class, Account: "SPP", Search: "a"},
		{Class: "no such class"},
		// Notes: a part of them, any letter case; LIKE's wildcards are plain letters.
		{Notes: "CICILAN"},
		{Notes: "orang tua", Account: "SPP"},
		{Notes: "100%"},
		{Notes: "_"},
		// An item's name: a part of it, any letter case, alone or with a class.
		{Name: "spp"},
		{Name: "Buku", Class: roster[some.NIS].class},
		{Name: "%"},
	}
	if mode == checkSearches {
		var searches []ledger.BillsQuery
		for _, f := range filters {
			if f.Search != "" {
				searches = append(searches, f)
			}
		}
		filters = searches
	}
	checked := 0
	for _, f := range filters {
		for _, tab := range []ledger.Tab{ledger.TabOutstanding, ledger.TabPaid, ledger.TabExpired, ledger.TabAll} {
			sorts := []ledger.Sort{ledger.SortNewest, ledger.SortDue, ledger.SortAmount, ledger.SortNIS, ledger.SortPaid}
			dirs := []bool{false, true}
			pages := [][2]int{{0, 25}, {60, 40}, {1200, 100}}
			if mode == checkTotals {
				sorts, dirs, pages = sorts[:1], dirs[:1], pages[:1]
			}
			// The filter and tab decide which bills and their totals; each sort and
			// direction then orders the same bills.
			tq := f
			tq.Tab = tab
			kept, totals := expectBillsUnsorted(all, tq, roster, now)
			for _, sort := range sorts {
				for _, desc := range dirs {
					sq := tq
					sq.Sort, sq.Desc = sort, desc
					whole := sortedBills(kept, sq)
					for _, page := range pages {
						q := f
						q.Tab, q.Sort, q.Desc, q.Offset, q.Limit = tab, sort, desc, page[0], page[1]
						name := fmt.Sprintf("%+v", q)
						got, err := l.Bills(ctx, q)
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						from := min(q.Offset, len(whole))
						want := whole[from:min(from+q.Limit, len(whole))]
						if got.Totals != totals {
							t.Errorf("%s: totals %+v, want %+v", name, got.Totals, totals)
						}
						if !slices.EqualFunc(got.Bills, want, func(a, b billing.Bill) bool { return a.ComponentID == b.ComponentID }) {
							t.Errorf("%s: %d rows, want %d; first %v, want %v", name, len(got.Bills), len(want), ids(got.Bills, 3), ids(want, 3))
						}
						if len(want) > 0 {
							checked++
						}
					}
				}
			}
		}
	}
	if want := map[int]int{checkAll: 250, checkTotals: 20, checkSearches: 50}[mode]; checked < want {
		t.Errorf("only %d non-empty pages compared", checked)
	}
}

func ids(bs []billing.Bill, n int) []string {
	var out []string
	for _, b := range bs[:min(n, len(bs))] {
		out = append(out, b.ComponentID+"/"+b.NIS)
	}
	return out
}
