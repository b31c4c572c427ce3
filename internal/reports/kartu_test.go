package reports_test

import (
	"testing"
	"time"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/internal/reports"
)

// TestKartuCellText: what a kartu cell says in the .xlsx and in its title, in both
// languages: the day a month was paid, its state, and for a month split into
// instalments how many of its parts are paid.
func TestKartuCellText(t *testing.T) {
	jakarta, err := time.LoadLocation("Asia/Jakarta")
	if err != nil {
		t.Fatal(err)
	}
	paidOn := time.Date(2026, 7, 8, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		lang i18n.Lang
		cell plans.Cell
		want string
	}{
		{i18n.Indonesian, plans.Cell{State: plans.CellPaid, Parts: 1, PaidParts: 1, PaidOn: paidOn}, "Lunas 8 Jul 2026"},
		{i18n.Indonesian, plans.Cell{State: plans.CellUnpaid, Parts: 1}, "Belum dibayar"},
		{i18n.Indonesian, plans.Cell{State: plans.CellNotBilled}, "Tidak ditagih"},
		{i18n.Indonesian, plans.Cell{State: plans.CellUnpaid, Parts: 3, PaidParts: 1}, "Belum dibayar · 1 dari 3 cicilan lunas"},
		{i18n.Indonesian, plans.Cell{State: plans.CellPaid, Parts: 2, PaidParts: 2, PaidOn: paidOn}, "Lunas 8 Jul 2026 · 2 dari 2 cicilan lunas"},
		{i18n.English, plans.Cell{State: plans.CellLate, Parts: 2, PaidParts: 1}, "Late · 1 of 2 instalments paid"},
	} {
		if got := reports.KartuCellText(i18n.NewPrinter(tc.lang, jakarta), tc.cell); got != tc.want {
			t.Errorf("%s %+v: %q, want %q", tc.lang, tc.cell, got, tc.want)
		}
	}
}
