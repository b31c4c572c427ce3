package ledger_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/store"
)

// TestBillsTotalsFollowEveryChange: the bills list's totals are kept between pages, and
// every change they depend on shows on the next page asked for: a student moved to
// another class, renamed or removed through the roster alone (uploads and the student
// form write it without the ledger), a component paid, the day turning, and a write by
// another instance on the same database. Each step's totals are the slow way's.
func TestBillsTotalsFollowEveryChange(t *testing.T) { eachEngine(t, testBillsTotalsFollowEveryChange) }

func testBillsTotalsFollowEveryChange(t *testing.T, engine string) {
	ctx := context.Background()
	db := openDB(t, engine)
	clk := &testClock{t: ledger.GenToday.Add(3 * time.Hour)}
	l, err := ledger.New(ctx, ledger.Config{DB: db, Clock: clock.New(clk.now, jakarta)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ledger.Generate(ctx, db, 2_000, jakarta); err != nil {
		t.Fatal(err)
	}
	// Another instance: its own ledger (and cache) on the same database.
	other, err := ledger.New(ctx, ledger.Config{DB: db, Clock: clock.New(clk.now, jakarta)})
	if err != nil {
		t.Fatal(err)
	}

	all := func() []billing.Bill {
		var out []billing.Bill
		for b, err := range l.All(ctx, billing.Query{}) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
		return out
	}
	bills := all()
	var open billing.Bill
	for _, b := range bills {
		if b.State != billing.StatePaid && b.DueToday(clk.now().In(jakarta)) > 0 {
			open = b
			break
		}
	}
	roll := people(t, db)
	student := roll[open.NIS]
	var otherClass string
	for _, p := range roll {
		if p.class != student.class {
			otherClass = p.class
			break
		}
	}
	if open.NIS == "" || otherClass == "" {
		t.Fatalf("generated school: open component %q, another class %q", open.ComponentID, otherClass)
	}
	queries := []ledger.BillsQuery{
		{Class: student.class}, {Class: otherClass}, {Search: "zaskia"}, {NIS: open.NIS},
		{Account: open.AccountCode}, {Tab: ledger.TabAll}, {Tab: ledger.TabPaid, Account: open.AccountCode},
	}
	// check asks each query twice (a page, then another page sorted otherwise, as a finance
	// officer goes on) on both instances, and compares the totals with the slow way's.
	check := func(step string) map[string]ledger.BillTotals {
		t.Helper()
		got := map[string]ledger.BillTotals{}
		bills, people := all(), people(t, db)
		for _, q := range queries {
			_, want := expectBillsUnsorted(bills, q, people, clk.now())
			for i, inst := range []*ledger.Ledger{l, l, other, other} {
				pq := q
				pq.Offset, pq.Limit, pq.Sort = i*10, 10, []ledger.Sort{ledger.SortNewest, ledger.SortAmount}[i%2]
				page, err := inst.Bills(ctx, pq)
				if err != nil {
					t.Fatalf("%s: %s: %v", step, key(q), err)
				}
				if page.Totals != want {
					t.Errorf("%s: %s on instance %d: totals %+v, want %+v", step, key(q), i/2+1, page.Totals, want)
				}
			}
			got[key(q)] = want
		}
		return got
	}
	moved := func(before, after map[string]ledger.BillTotals, step string, qs ...ledger.BillsQuery) {
		t.Helper()
		for _, q := range qs {
			if before[key(q)] == after[key(q)] {
				t.Errorf("%s: %s did not change (%+v): the step tests nothing", step, key(q), after[key(q)])
			}
		}
	}

	start := check("start")

	// The roster alone: the student moves class (as a students sheet does).
	entry, err := db.StudentByNIS(ctx, open.NIS)
	if err != nil {
		t.Fatal(err)
	}
	entry.Description = otherClass
	if err := db.UpsertStudents(ctx, []store.Student{entry}); err != nil {
		t.Fatal(err)
	}
	movedClass := check("moved to another class")
	moved(start, movedClass, "moved to another class", ledger.BillsQuery{Class: student.class}, ledger.BillsQuery{Class: otherClass})

	// Renamed so that a search finds them.
	entry.Name = "Zaskia Ramadhani"
	if err := db.UpsertStudents(ctx, []store.Student{entry}); err != nil {
		t.Fatal(err)
	}
	renamed := check("renamed")
	moved(movedClass, renamed, "renamed", ledger.BillsQuery{Search: "zaskia"})

	// A component paid, written by the other instance.
	paid := open
	paid.State, paid.AmountPaid, paid.PaidAt, paid.RefNumber = billing.StatePaid, open.DueToday(clk.now().In(jakarta)), clk.now(), "REF-CACHE-1"
	paid.UpdatedAt = clk.now()
	if _, err := other.Upsert(ctx, []billing.Bill{paid}); err != nil {
		t.Fatal(err)
	}
	afterPay := check("paid on the other instance")
	moved(renamed, afterPay, "paid on the other instance", ledger.BillsQuery{NIS: open.NIS}, ledger.BillsQuery{Tab: ledger.TabPaid, Account: open.AccountCode})

	// Removed from the roster: the class and the search no longer find them.
	if err := db.DeleteStudent(ctx, open.NIS); err != nil {
		t.Fatal(err)
	}
	removed := check("removed from the roster")
	moved(afterPay, removed, "removed from the roster", ledger.BillsQuery{Class: otherClass}, ledger.BillsQuery{Search: "zaskia"})

	// Months later: more is late, and late components cost their penalty.
	clk.t = clk.t.AddDate(0, 4, 0)
	later := check("four months later")
	moved(removed, later, "four months later", ledger.BillsQuery{Tab: ledger.TabAll})
}

// key names a query (the fields these use) in a step's map and its messages.
func key(q ledger.BillsQuery) string {
	return fmt.Sprintf("tab %q class %q search %q NIS %q account %q", q.Tab, q.Class, q.Search, q.NIS, q.Account)
}
