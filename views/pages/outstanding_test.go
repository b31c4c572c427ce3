package pages_test

import (
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/sekolah/portal/views/pages"
)

// The arrears table: overdue only has no not-yet-due columns; every cell carries its
// column head for the phone's cards; the WhatsApp form only for those who may follow up,
// and only on a row with something overdue; the last follow-up in words.
func TestArrearsTable(t *testing.T) {
	t.Parallel()
	today := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	rows := []pages.OutstandingRow{
		{NIS: "2024001", Name: "Siti Aminah", Class: "Kelas 7A", Count: 1, OverdueCount: 1, Overdue: 275_000, Total: 275_000,
			OldestDue: time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC), DaysLate: 12, FollowUpURL: "/students/2024001/followup",
			ReminderURL: "/students/2024001/reminder", StudentURL: "/students/2024001",
			LastAt: time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC), LastChannel: "whatsapp", LastBy: "Sri Wahyuni"},
		{NIS: "2024002", Name: "Budi Santoso", Class: "Kelas 10B", Count: 1, Total: 200_000, NotYetDue: 200_000, Expired: 300_000, ExpiredCount: 1,
			OldestDue: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC), DaysLate: -5, FollowUpURL: "/students/2024002/followup"},
	}
	view := func(all, canFollowUp bool) pages.OutstandingView {
		return pages.OutstandingView{Form: pages.OutstandingForm{All: all}, CanFollowUp: canFollowUp, SwitchURL: "/x",
			Report: &pages.OutstandingReport{Today: today, Students: 2, Total: pages.OutstandingRow{Overdue: 275_000, Total: 475_000}}, Rows: rows}
	}
	doc := render(t, "/reports/outstanding", pages.OutstandingResults(view(false, true)))
	if n := doc.Find(`thead th`).Length(); n != 5 || doc.Find(`[data-testid="row-not-due"]`).Length() != 0 {
		t.Errorf("overdue only: %d columns, %d not-due cells", n, doc.Find(`[data-testid="row-not-due"]`).Length())
	}
	doc.Find(`table.table--cards td`).Each(func(_ int, s *goquery.Selection) {
		if _, ok := s.Attr("data-label"); !ok {
			t.Errorf("cell without data-label: %q", s.Text())
		}
	})
	siti := doc.Find(`[data-nis="2024001"]`)
	if got := billsText(siti.Find(`[data-testid="row-last-followup"]`)); !strings.HasPrefix(got, "21 Nov 2026 09:00") || !strings.HasSuffix(got, "WhatsApp · oleh Sri Wahyuni") {
		t.Errorf("last follow-up %q", got)
	}
	if siti.Find(`form[action="/students/2024001/followup"] input[name="channel"][value="whatsapp"]`).Length() != 1 ||
		siti.Find(`input[name="csrf_token"]`).Length() != 1 {
		t.Error("no WhatsApp form with its CSRF token on an overdue row")
	}
	budi := doc.Find(`[data-nis="2024002"]`)
	if budi.Find(`[data-testid="row-whatsapp"]`).Length() != 0 || billsText(budi.Find(`[data-testid="row-last-followup"]`)) != "Belum pernah" {
		t.Error("a row with nothing overdue offers WhatsApp, or shows a follow-up")
	}
	if got := billsText(budi.Find(`[data-testid="row-expired"]`)); got != "Rp 300.000" {
		t.Errorf("expired %q", got)
	}

	doc = render(t, "/reports/outstanding", pages.OutstandingResults(view(true, false)))
	if n := doc.Find(`thead th`).Length(); n != 7 || billsText(doc.Find(`[data-nis="2024002"] [data-testid="row-not-due"]`)) != "Rp 200.000" {
		t.Errorf("all unpaid: %d columns", n)
	}
	if doc.Find(`[data-testid="row-whatsapp"]`).Length() != 0 || doc.Find(`[data-testid="row-reminder"]`).Length() != 1 {
		t.Error("a principal is offered WhatsApp, or not the letter")
	}
}

func billsText(s *goquery.Selection) string { return strings.Join(strings.Fields(s.Text()), " ") }
