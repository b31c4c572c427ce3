package web_test

import (
	"github.com/PuerkitoBio/goquery"

	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/store"
)

// leaversSeed is a student (NIS with leading zeros) with SPP from October to February:
// October and November are overdue on studentsNow (22 November 2026), one is paid.
func leaversSeed(t *testing.T, p *portaltest.Portal) []billing.Bill {
	t.Helper()
	bills := seedStudent(t, p, billing.Student{NIS: "007123", Name: "Citra Lestari", Description: "Kelas 8B"},
		spp("SPP September", 400_000, 20_000, utcDay(2026, 9, 10), utcDay(2027, 6, 30)),
		spp("SPP Oktober", 400_000, 20_000, utcDay(2026, 10, 10), utcDay(2027, 6, 30)),
		spp("SPP November", 400_000, 20_000, utcDay(2026, 11, 10), utcDay(2027, 6, 30)),
		spp("SPP Desember", 400_000, 20_000, utcDay(2026, 12, 10), utcDay(2027, 6, 30)),
		spp("SPP Januari", 400_000, 20_000, utcDay(2027, 1, 10), utcDay(2027, 6, 30)),
		spp("SPP Februari", 400_000, 20_000, utcDay(2027, 2, 10), utcDay(2027, 6, 30)))
	if _, err := p.Billing.Pay(context.Background(), billing.Payment{NIS: "007123", ComponentIDs: []string{bills[0].ComponentID}}); err != nil {
		t.Fatal(err)
	}
	seedStudent(t, p, billing.Student{NIS: "2602", Name: "Dewi Anggraini", Description: "Kelas 8B"},
		spp("SPP November", 400_000, 20_000, utcDay(2026, 11, 10), utcDay(2027, 6, 30)))
	p.SyncLedger(t)
	return bills
}

func TestStudentStatusForm(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	leaversSeed(t, p)
	c := p.SignedIn(t, "finance")
	ctx := context.Background()
	res := c.Get("/students/007123/status")
	if res.StatusCode != http.StatusOK || svalue(res, "#f-on") != "" {
		t.Fatalf("form: %d", res.StatusCode)
	}
	for _, tc := range []struct {
		name   string
		form   url.Values
		fields []string
	}{
		{"no day, no reason", url.Values{"status": {"left"}, "on": {""}, "note": {""}}, []string{"on", "note"}},
		{"not a day", url.Values{"status": {"moved"}, "on": {"31/13/2026"}, "note": {"pindah kota"}}, []string{"on"}},
		{"unknown status", url.Values{"status": {"expelled"}, "on": {"2026-11-30"}, "note": {"x"}}, []string{"status"}},
	} {
		for _, hx := range []bool{false, true} {
			var headers []string
			if hx {
				headers = []string{"HX-Request", "true"}
			}
			res := c.Post("/students/007123/status", tc.form, headers...)
			if res.StatusCode != http.StatusUnprocessableEntity || hx == strings.Contains(res.Body, "<html") {
				t.Errorf("%s (HTMX %v): %d", tc.name, hx, res.StatusCode)
			}
			for _, f := range tc.fields {
				if stext(res, `[data-testid="error-`+f+`"]`) == "" {
					t.Errorf("%s: no problem on %s", tc.name, f)
				}
			}
			if svalue(res, "#f-on") != tc.form.Get("on") || svalue(res, "#f-note") != tc.form.Get("note") {
				t.Errorf("%s: typed values lost: %q %q", tc.name, svalue(res, "#f-on"), svalue(res, "#f-note"))
			}
		}
	}
	// A day the portal could read is said the way it read it, beside the field.
	res = c.Post("/students/007123/status", url.Values{"status": {"left"}, "on": {"30/11/2026"}, "note": {""}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(stext(res, `#student-status-form`), "Dibaca sebagai 30 Nov 2026") {
		t.Errorf("day as read: %q", stext(res, `#student-status-form .hint`))
	}
	if st, _ := p.DB.StudentByNIS(ctx, "007123"); st.Status != "active" {
		t.Fatalf("a refused form set the status: %s", st.Status)
	}
	// An active student has no leaver's page; one who left on a day not recorded (set
	// elsewhere) is sent to the form first, never offered every bill.
	if res := c.Get("/students/007123/leave"); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/students/007123" {
		t.Errorf("leave of an active student: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if err := p.DB.SetStudentStatus(ctx, nil, "007123", "left", time.Time{}, ""); err != nil {
		t.Fatal(err)
	}
	if res := c.Get("/students/007123/leave"); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/students/007123/status" {
		t.Errorf("leave without a day: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if res := c.Post("/students/007123/leave", url.Values{"reason": {"x"}}); res.StatusCode != http.StatusSeeOther {
		t.Errorf("leave posted without a day: %d", res.StatusCode)
	}
}

// TestLeaverFlow: a student who leaves on 30 November 2026 (typed as the school writes
// it), the offer to cancel what falls due after (December to February), the arrears of
// October and November kept; the lists, the counter, the arrears report and the alumni
// arrears name them; made active again, audited both ways.
func TestLeaverFlow(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	bills := leaversSeed(t, p)
	c := p.SignedIn(t, "finance")
	ctx := context.Background()

	res := c.Post("/students/007123/status", url.Values{"status": {"left"}, "on": {"30/11/2026"}, "note": {"pindah ke luar kota"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/students/007123/leave" {
		t.Fatalf("status: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	st, _ := p.DB.StudentByNIS(ctx, "007123")
	if st.Status != "left" || st.StatusOn.Format("2006-01-02") != "2026-11-30" || st.StatusNote != "pindah ke luar kota" {
		t.Fatalf("stored: %s %s %q", st.Status, st.StatusOn, st.StatusNote)
	}
	leave := c.Get("/students/007123/leave")
	if !strings.Contains(stext(leave, `[data-testid="flash"]`), "Keluar sejak 30 Nov 2026") {
		t.Errorf("flash: %q", stext(leave, `[data-testid="flash"]`))
	}
	var cancel []string
	leave.Doc.Find(`[data-testid="leave-row"]`).Each(func(_ int, s *goquery.Selection) {
		id, _ := s.Attr("data-component")
		cancel = append(cancel, id)
	})
	if len(cancel) != 3 || leave.Doc.Find(`[data-testid="leave-kept-row"]`).Length() != 2 {
		t.Fatalf("leave preview: %d to cancel, %d kept\n%s", len(cancel), leave.Doc.Find(`[data-testid="leave-kept-row"]`).Length(),
			stext(leave, `[data-testid="student-leave"]`))
	}
	if got := svalue(leave, "#f-reason"); got != "Siswa Keluar sejak 30 Nov 2026" {
		t.Errorf("reason offered: %q", got)
	}
	// No reason: the preview again, the ticks kept.
	res = c.Post("/students/007123/leave", url.Values{"id": cancel[:2], "reason": {""}})
	if res.StatusCode != http.StatusUnprocessableEntity || res.Doc.Find(`[data-testid="leave-select"]:checked`).Length() != 2 {
		t.Fatalf("no reason: %d, %d ticked", res.StatusCode, res.Doc.Find(`[data-testid="leave-select"]:checked`).Length())
	}
	res = c.Post("/students/007123/leave", url.Values{"id": {}, "reason": {"keluar"}})
	if res.StatusCode != http.StatusUnprocessableEntity || stext(res, `[data-testid="error-id"]`) == "" {
		t.Fatalf("none ticked: %d", res.StatusCode)
	}
	res = c.Post("/students/007123/leave", url.Values{"id": cancel, "reason": {"keluar per 30 November"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("leave: %d", res.StatusCode)
	}
	job := waitCorrection(t, c, res.Header.Get("Location"))
	if st, _ := job.Doc.Find(`[data-testid="correction-job"]`).Attr("data-state"); st != "done" {
		t.Fatalf("leave job: %s", stext(job, `[data-testid="correction-job"]`))
	}
	for _, b := range bills {
		got, _ := p.Billing.GetComponent(ctx, b.ComponentID)
		want := billing.StateProvisioned
		switch {
		case b.Name == "SPP September":
			want = billing.StatePaid
		case b.Due.After(utcDay(2026, 11, 30)):
			want = billing.StateDeleted
		}
		if got.State != want {
			t.Errorf("%s: %s, want %s", b.Name, got.State, want)
		}
	}

	// The student page: the status, the arrears kept, no offer left.
	page := c.Get("/students/007123")
	if !strings.Contains(stext(page, `[data-testid="student-standing"]`), "Keluar sejak 30 Nov 2026") ||
		page.Doc.Find(`[data-testid="student-leave-offer"]`).Length() != 0 || stext(page, `[data-testid="standing-badge"]`) != "Keluar" {
		t.Errorf("student page: %q", stext(page, `[data-testid="student-standing"]`))
	}
	// The list: active by default, then former ones, every one, and a search finds them.
	if res := c.Get("/students"); res.Doc.Find(`[data-testid="student-007123"]`).Length() != 0 || res.Doc.Find(`[data-testid="student-2602"]`).Length() != 1 {
		t.Error("the default list is not the active students")
	}
	for _, path := range []string{"/students?status=left", "/students?status=former", "/students?status=all", "/students?q=Citra"} {
		res := c.Get(path)
		if row := res.Doc.Find(`[data-testid="student-007123"]`); row.Length() != 1 || !strings.Contains(row.Text(), "Keluar") {
			t.Errorf("%s: the leaver is not listed with their status", path)
		}
	}
	if res := c.Get("/students?status=graduated"); res.Doc.Find(`[data-testid="student-007123"]`).Length() != 0 {
		t.Error("a leaver listed as graduated")
	}
	// The counter: their status beside the name, the arrears payable.
	counter := c.Get("/payments/new?nis=007123")
	if stext(counter, `[data-testid="payment-student"] [data-testid="standing-badge"]`) != "Keluar" || counter.Doc.Find(`[data-testid="payment-form"]`).Length() != 1 {
		t.Errorf("counter: %q", stext(counter, `[data-testid="payment-student"]`))
	}
	// The arrears report counts them, names them apart.
	out := c.Get("/reports/outstanding")
	if !strings.Contains(stext(out, `[data-testid="outstanding-row"][data-nis="007123"]`), "Keluar") ||
		!strings.Contains(stext(out, `[data-testid="outstanding-former"]`), "1 mantan siswa") {
		t.Errorf("arrears report: %q", stext(out, `[data-testid="outstanding-former"]`))
	}
	// The alumni arrears: what and how much; 2602 (active) is not there.
	alumni := c.Get("/reports/alumni")
	row := alumni.Doc.Find(`[data-testid="alumni-row"][data-nis="007123"]`)
	if alumni.StatusCode != http.StatusOK || row.Length() != 1 || alumni.Doc.Find(`[data-testid="alumni-row"]`).Length() != 1 {
		t.Fatalf("alumni: %d\n%s", alumni.StatusCode, stext(alumni, `[data-testid="report-results"]`))
	}
	items := strings.Join(strings.Fields(row.Find(`[data-testid="alumni-items"]`).Text()), " ")
	if !strings.Contains(items, "SPP Oktober") || !strings.Contains(items, "SPP November") || strings.Contains(items, "Desember") {
		t.Errorf("alumni items: %q", items)
	}
	if got := strings.Join(strings.Fields(row.Find(`[data-testid="alumni-owed"] strong`).Text()), " "); got != "Rp 840.000" {
		t.Errorf("alumni owed %q, want Rp 840.000 (two months late with their penalties)", got)
	}
	if res := c.Get("/reports/alumni?status=graduated"); res.Doc.Find(`[data-testid="alumni-row"]`).Length() != 0 {
		t.Error("a leaver listed among graduates")
	}
	csv := c.Get("/reports/alumni?format=csv")
	if csv.StatusCode != http.StatusOK || !strings.Contains(csv.Body, "\n007123,Citra Lestari,Kelas 8B,Keluar,2026-11-30") {
		t.Errorf("alumni CSV:\n%s", csv.Body)
	}
	if x := c.Get("/reports/alumni?format=xlsx"); x.StatusCode != http.StatusOK || !strings.Contains(x.Header.Get("Content-Disposition"), "tunggakan-alumni") {
		t.Errorf("alumni xlsx: %d %s", x.StatusCode, x.Header.Get("Content-Disposition"))
	}

	// Back to active: audited, from left.
	if res := c.Post("/students/007123/status", url.Values{"status": {"active"}, "on": {""}, "note": {"kembali bersekolah"}}); res.StatusCode != http.StatusSeeOther ||
		res.Header.Get("Location") != "/students/007123" {
		t.Fatalf("reactivate: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if st, _ := p.DB.StudentByNIS(ctx, "007123"); st.Status != "active" || !st.StatusOn.IsZero() || st.StatusNote != "" {
		t.Errorf("reactivated: %+v", st)
	}
	entries, _, err := p.DB.ListAudit(ctx, store.AuditFilter{Action: "students.status", Limit: 10})
	if err != nil || len(entries) != 2 {
		t.Fatalf("audit: %d %v", len(entries), err)
	}
	back, left := entries[0], entries[1]
	if left.Args["status"] != "left" || left.Args["status_on"] != "2026-11-30" || left.Args["reason"] != "pindah ke luar kota" || left.Actor != "finance" ||
		back.Args["status"] != "active" || back.Args["status_from"] != "left" || back.Args["reason"] != "kembali bersekolah" {
		t.Errorf("audit entries: %+v / %+v", left.Args, back.Args)
	}
	log := p.SignedIn(t, "admin").Get("/audit?action=students.status")
	if words := stext(log, "main"); !strings.Contains(words, "Keluar → Aktif") || !strings.Contains(words, "Keluar sejak 30 Nov 2026") {
		t.Errorf("audit log words: %q", words)
	}
}
