package letters_test

import (
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/letters"
	"github.com/sekolah/portal/internal/store"
)

func day(m time.Month, d int) time.Time { return time.Date(2026, m, d, 0, 0, 0, 0, time.UTC) }

// The bill letter's total adds up its own column: a component whose active day is still
// to come is listed apart with the day it opens, never in today's total; an overdue one
// costs its penalty; an expired or paid one is not asked for.
func TestBillLetterTotalAddsUpItsColumn(t *testing.T) {
	t.Parallel()
	today := time.Date(2026, 11, 28, 1, 30, 0, 0, i18n.Jakarta()) // 01:30 WIB: the 28th, 27th in UTC
	st := store.Student{NIS: "1001", Name: "Budi Santoso", Description: "Kelas 7A"}
	bills := []billing.Bill{
		{Name: "SPP Desember", Amount: 350_000, Penalty: 25_000, Active: day(12, 1), Due: day(12, 10), Expiry: day(12, 31), State: billing.StateProvisioned},
		{Name: "SPP Oktober", Amount: 350_000, Penalty: 25_000, Active: day(10, 1), Due: day(10, 10), Expiry: day(12, 31), State: billing.StateProvisioned},
		{Name: "SPP November", Amount: 350_000, Penalty: 25_000, Active: day(11, 1), Due: day(11, 28), Expiry: day(12, 31), State: billing.StateProvisioned},
		{Name: "Buku paket", Amount: 200_000, Active: day(7, 1), Due: day(7, 15), Expiry: day(8, 31), State: billing.StateProvisioned},
		{Name: "SPP September", Amount: 350_000, Active: day(9, 1), Due: day(9, 10), Expiry: day(12, 31), State: billing.StatePaid, AmountPaid: 350_000},
	}
	l := letters.BillOf(st, bills, today)
	if len(l.Lines) != 2 || l.Lines[0].Name != "SPP Oktober" || l.Lines[1].Name != "SPP November" {
		t.Fatalf("payable lines %+v", l.Lines)
	}
	var column int64
	for _, ln := range l.Lines {
		column += ln.Price
	}
	if l.Total != column || l.Total != 375_000+350_000 || l.Penalty != 25_000 {
		t.Fatalf("total %d, penalty %d, the column adds up to %d", l.Total, l.Penalty, column)
	}
	if !l.Lines[0].Late || l.Lines[1].Late {
		t.Fatalf("lateness %+v", l.Lines)
	}
	if len(l.Later) != 1 || l.Later[0].Name != "SPP Desember" || !l.Later[0].Active.Equal(day(12, 1)) || l.Later[0].Price != 350_000 {
		t.Fatalf("later %+v", l.Later)
	}
	if l.Expired != 1 || l.Empty() {
		t.Fatalf("expired %d, empty %v", l.Expired, l.Empty())
	}
	if letters.BillOf(st, bills[4:], today).Empty() != true {
		t.Fatal("a student who paid everything has an empty letter")
	}
}

func TestReminderLetter(t *testing.T) {
	t.Parallel()
	today := time.Date(2026, 11, 28, 1, 30, 0, 0, i18n.Jakarta())
	st := store.Student{NIS: "1001", Name: "Budi Santoso"}
	l := letters.ReminderOf(st, []billing.Bill{
		{Name: "SPP Oktober", Amount: 350_000, Penalty: 25_000, Due: day(10, 10), Expiry: day(12, 31), State: billing.StateProvisioned},
		{Name: "SPP November", Amount: 350_000, Penalty: 25_000, Due: day(11, 28), Expiry: day(12, 31), State: billing.StateProvisioned},
	}, today)
	if len(l.Lines) != 1 || l.Lines[0].Name != "SPP Oktober" || l.Total != 375_000 || l.Penalty != 25_000 || l.Lines[0].DaysLate != 49 {
		t.Fatalf("reminder %+v", l)
	}
	if k, ok := letters.ParseKind(""); !ok || k != letters.Bill {
		t.Fatal("no kind is a bill letter")
	}
	if _, ok := letters.ParseKind("invoice"); ok {
		t.Fatal("an unknown kind read")
	}
}
