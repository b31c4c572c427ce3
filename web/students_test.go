package web_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
)

// studentsNow is 22 Nov 2026 10:00 in Jakarta.
var studentsNow = time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)

func utcDay(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// seedStudent registers a student at the service and in the roster, with components.
func seedStudent(t *testing.T, p *portaltest.Portal, s billing.Student, comps ...billing.ComponentInput) []billing.Bill {
	t.Helper()
	ctx := context.Background()
	if _, err := p.Billing.CreateStudents(ctx, []billing.Student{s}); err != nil {
		t.Fatalf("seed student %s: %v", s.NIS, err)
	}
	if err := p.DB.UpsertStudents(ctx, []store.Student{{NIS: s.NIS, Name: s.Name, KeyName: s.KeyName, Phone: s.Phone,
		Email: s.Email, Description: s.Description, Source: store.SourcePortal, SyncedAt: studentsNow}}); err != nil {
		t.Fatal(err)
	}
	if len(comps) == 0 {
		return nil
	}
	for i := range comps {
		comps[i].NIS = s.NIS
	}
	bills, err := p.Billing.CreateComponents(ctx, comps)
	if err != nil {
		t.Fatalf("seed components of %s: %v", s.NIS, err)
	}
	p.SyncLedger(t) // made at the service: the sync brings them into the ledger
	return bills
}

func spp(name string, amount, penalty int64, due, expiry time.Time) billing.ComponentInput {
	return billing.ComponentInput{AccountCode: "SPP", Name: name, Amount: amount, Penalty: penalty, Due: due, Expiry: expiry}
}

func stext(res *portaltest.Response, sel string) string {
	return strings.Join(strings.Fields(res.Doc.Find(sel).Text()), " ")
}

func svalue(res *portaltest.Response, sel string) string {
	v, _ := res.Doc.Find(sel).Attr("value")
	return v
}

func TestStudentsPagesWithAndWithoutHTMX(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	seedStudent(t, p, billing.Student{NIS: "2601", Name: "Budi Santoso", Description: "Kelas 7A"},
		spp("SPP November", 450_000, 25_000, utcDay(2026, 11, 10), utcDay(2026, 12, 31)))
	c := p.SignedIn(t, "finance")

	tests := []struct {
		path    string
		partial string // data-testid the fragment holds
	}{
		{"/students", "students-results"},
		{"/students?q=budi&class=Kelas+7A", "students-results"},
		{"/students/new", "student-form"},
		{"/students/sync", "sync-status"},
		{"/students/2601", "student-body"},
		{"/students/2601/statement", "statement"},
		{"/students/2601/edit", "student-form"},
		{"/students/2601/delete", "student-delete-card"},
		{"/students/2601/components/new", "components-form"},
		{"/students/2601/components/new?rows=5", "components-form"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			full := c.Get(tt.path)
			if full.StatusCode != http.StatusOK || !strings.Contains(full.Body, "<html") {
				t.Fatalf("full page: %d\n%s", full.StatusCode, full.Body)
			}
			if full.Doc.Find(`[data-testid="nav-students"][aria-current="page"]`).Length() != 1 {
				t.Error("the navigation does not mark Siswa")
			}
			if full.Doc.Find(fmt.Sprintf(`[data-testid=%q]`, tt.partial)).Length() == 0 {
				t.Errorf("full page lacks %s", tt.partial)
			}
			part := c.Get(tt.path, "HX-Request", "true")
			if part.StatusCode != http.StatusOK || strings.Contains(part.Body, "<html") {
				t.Fatalf("partial: %d\n%s", part.StatusCode, part.Body)
			}
			if part.Doc.Find(fmt.Sprintf(`[data-testid=%q]`, tt.partial)).Length() == 0 {
				t.Errorf("partial lacks %s:\n%s", tt.partial, part.Body)
			}
			if !strings.Contains(strings.Join(part.Header.Values("Vary"), ","), "HX-Request") {
				t.Error("no Vary: HX-Request")
			}
			// Back to a pushed URL restores the whole page.
			if res := c.Get(tt.path, "HX-Request", "true", "HX-History-Restore-Request", "true"); !strings.Contains(res.Body, "<html") {
				t.Error("a history restore got a fragment")
			}
		})
	}
	if res := c.Get("/students/2601/components/new?rows=5"); res.Doc.Find(`[data-testid^="component-row-"]`).Length() != 5 {
		t.Errorf("rows=5 shows %d rows", res.Doc.Find(`[data-testid^="component-row-"]`).Length())
	}
}

func TestStudentsRoles(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	seedStudent(t, p, billing.Student{NIS: "2601", Name: "Budi Santoso", Description: "Kelas 7A"})
	buttons := `[data-testid="student-new"], [data-testid="sync-start"], [data-testid="student-edit"], [data-testid="student-delete"], [data-testid="student-add-components"], [data-testid="student-pay"]`

	fin := p.SignedIn(t, "finance")
	if res := fin.Get("/students"); res.Doc.Find(buttons).Length() != 2 {
		t.Errorf("finance sees %d buttons on the roster, want 2", res.Doc.Find(buttons).Length())
	}
	if res := fin.Get("/students/2601"); res.Doc.Find(buttons).Length() != 4 {
		t.Errorf("finance sees %d buttons on the student page, want 4", res.Doc.Find(buttons).Length())
	}
	if href, _ := fin.Get("/students/2601").Doc.Find(`[data-testid="student-pay"]`).Attr("href"); href != "/payments/new?nis=2601" {
		t.Errorf("record payment links to %q", href)
	}

	c := p.SignedIn(t, "principal")
	for _, path := range []string{"/students", "/students/2601", "/students/2601/statement"} {
		res := c.Get(path)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("principal GET %s: %d", path, res.StatusCode)
		}
		if n := res.Doc.Find(buttons).Length(); n != 0 {
			t.Errorf("principal sees %d write buttons on %s", n, path)
		}
	}
	if res := c.Get("/students"); res.Doc.Find(`[data-testid="student-2601"]`).Length() != 1 {
		t.Error("principal does not see the roster")
	}
	for _, path := range []string{"/students/new", "/students/2601/edit", "/students/2601/delete", "/students/2601/components/new"} {
		if res := c.Get(path); res.StatusCode != http.StatusForbidden {
			t.Errorf("principal GET %s: %d, want 403", path, res.StatusCode)
		}
	}
	posts := map[string]url.Values{
		"/students/new":                 {"nis": {"2699"}, "name": {"Mallory"}, "key_name": {"NIS"}},
		"/students/2601/edit":           {"name": {"Diganti"}, "key_name": {"NIS"}},
		"/students/2601/delete":         {"confirm": {"yes"}},
		"/students/sync":                nil,
		"/students/2601/components/new": {"rows": {"1"}, "name-0": {"Denda"}, "account_code-0": {"SPP"}, "amount-0": {"1000"}, "due-0": {"2026-12-01"}, "expiry-0": {"2026-12-31"}},
	}
	for path, form := range posts {
		for _, hx := range []bool{false, true} {
			var headers []string
			if hx {
				headers = []string{"HX-Request", "true"}
			}
			if res := c.Post(path, form, headers...); res.StatusCode != http.StatusForbidden {
				t.Errorf("principal POST %s (htmx %v): %d, want 403", path, hx, res.StatusCode)
			}
		}
	}
	ctx := context.Background()
	if _, err := p.Billing.Student(ctx, "2699"); !errors.Is(err, billing.ErrNotFound) {
		t.Errorf("principal's create reached the service: %v", err)
	}
	if s, err := p.Billing.Student(ctx, "2601"); err != nil || s.Name != "Budi Santoso" {
		t.Errorf("principal changed the student: %+v %v", s, err)
	}
	if bills, _ := p.Billing.StudentBills(ctx, "2601", billing.Query{}); len(bills) != 0 {
		t.Errorf("principal added %d components", len(bills))
	}
	if _, total, _ := p.DB.ListStudents(ctx, store.StudentFilter{}); total != 1 {
		t.Errorf("roster has %d entries", total)
	}
}

func TestStudentCreate(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	c := p.SignedIn(t, "finance")
	ctx := context.Background()

	// Mistakes: every field says what is wrong and keeps what was typed.
	bad := url.Values{"nis": {"26 01"}, "name": {"Budi Santoso"}, "key_name": {"Nomor Induk Siswa"},
		"phone": {"0812-ABCD"}, "email": {"budi-at-example"}, "description": {"Kelas 7A"}}
	for _, hx := range []bool{false, true} {
		var headers []string
		if hx {
			headers = []string{"HX-Request", "true"}
		}
		res := c.Post("/students/new", bad, headers...)
		if res.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("invalid form (htmx %v): %d", hx, res.StatusCode)
		}
		if hx == strings.Contains(res.Body, "<html") {
			t.Errorf("htmx %v: full page = %v", hx, !hx)
		}
		for _, f := range []string{"nis", "phone", "email"} {
			if stext(res, `[data-testid="error-`+f+`"]`) == "" {
				t.Errorf("no error on %s", f)
			}
		}
		if msg := stext(res, `[data-testid="error-nis"]`); !strings.Contains(msg, "huruf, angka, titik") {
			t.Errorf("NIS message = %q", msg)
		}
		if res.Doc.Find(`[data-testid="error-name"]`).Length() != 0 {
			t.Error("the valid name has an error")
		}
		for f, want := range map[string]string{"nis": "26 01", "name": "Budi Santoso", "phone": "0812-ABCD", "email": "budi-at-example", "description": "Kelas 7A"} {
			if got := svalue(res, "#f-"+f); got != want {
				t.Errorf("%s kept as %q, want %q", f, got, want)
			}
		}
		if sel, _ := res.Doc.Find(`#f-key_name option[selected]`).Attr("value"); sel != "Nomor Induk Siswa" {
			t.Errorf("key name kept as %q", sel)
		}
	}
	if _, err := p.Billing.Student(ctx, "26 01"); err == nil {
		t.Fatal("an invalid student reached the service")
	}

	// Right: created at the service, in the roster (source portal), audited.
	good := url.Values{"nis": {"2601"}, "name": {" Budi  Santoso "}, "key_name": {"NIS"}, "phone": {"0812-3456-7890"},
		"email": {"budi@example.sch.id"}, "description": {"Kelas 7A"}}
	res := c.Post("/students/new", good)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/students/2601" {
		t.Fatalf("create: %d %q\n%s", res.StatusCode, res.Header.Get("Location"), res.Body)
	}
	s, err := p.Billing.Student(ctx, "2601")
	if err != nil || s.Name != "Budi Santoso" || s.Phone != "081234567890" || s.KeyName != "NIS" || s.Description != "Kelas 7A" {
		t.Fatalf("at the service: %+v %v", s, err)
	}
	if r, err := p.DB.StudentByNIS(ctx, "2601"); err != nil || r.Source != store.SourcePortal || r.Name != "Budi Santoso" {
		t.Fatalf("roster: %+v %v", r, err)
	}
	if entries, _, _ := p.DB.ListAudit(ctx, store.AuditFilter{Action: changes.ActionStudentsCreate, Limit: 5}); len(entries) != 1 || entries[0].Actor != "finance" || entries[0].Outcome != "ok" {
		t.Errorf("audit: %+v", entries)
	}
	page := c.Get("/students/2601")
	if msg := stext(page, `[data-testid="flash"]`); !strings.Contains(msg, "Budi Santoso") {
		t.Errorf("flash = %q", msg)
	}

	// HTMX: success is an HX-Redirect, not a 3xx.
	good.Set("nis", "2602")
	res = c.Post("/students/new", good, "HX-Request", "true")
	if res.StatusCode != http.StatusOK || res.Header.Get("HX-Redirect") != "/students/2602" {
		t.Fatalf("htmx create: %d %q", res.StatusCode, res.Header.Get("HX-Redirect"))
	}
}

func TestStudentCreateDuplicateNIS(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	c := p.SignedIn(t, "finance")
	// Registered at the service by someone else; the portal's roster does not know it yet.
	if _, err := p.Billing.CreateStudents(context.Background(), []billing.Student{{NIS: "2601", Name: "Siti Aminah"}}); err != nil {
		t.Fatal(err)
	}
	res := c.Post("/students/new", url.Values{"nis": {"2601"}, "name": {"Budi Santoso"}, "key_name": {"NIS"}, "description": {"Kelas 7A"}})
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("duplicate: %d", res.StatusCode)
	}
	if msg := stext(res, `[data-testid="error-nis"]`); !strings.Contains(msg, "NIS 2601 sudah terdaftar") {
		t.Fatalf("NIS message = %q\n%s", msg, res.Body)
	}
	if svalue(res, "#f-name") != "Budi Santoso" || svalue(res, "#f-description") != "Kelas 7A" {
		t.Error("typed values lost")
	}
	if s, _ := p.Billing.Student(context.Background(), "2601"); s.Name != "Siti Aminah" {
		t.Errorf("the existing student changed: %+v", s)
	}
	if _, err := p.DB.StudentByNIS(context.Background(), "2601"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a refused create reached the roster: %v", err)
	}
}

func TestStudentEdit(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	seedStudent(t, p, billing.Student{NIS: "2601", Name: "Budi Santoso", Description: "Kelas 7A", Phone: "081234567890"})
	c := p.SignedIn(t, "finance")
	ctx := context.Background()

	res := c.Get("/students/2601/edit")
	if svalue(res, "#f-name") != "Budi Santoso" || svalue(res, "#f-phone") != "081234567890" {
		t.Fatalf("edit form not filled:\n%s", res.Body)
	}
	if _, ok := res.Doc.Find("#f-nis").Attr("readonly"); !ok {
		t.Error("the NIS can be edited")
	}
	res = c.Post("/students/2601/edit", url.Values{"nis": {"9999"}, "name": {""}, "key_name": {"NIS"}, "phone": {"12"}, "description": {"Kelas 8A"}})
	if res.StatusCode != http.StatusUnprocessableEntity || stext(res, `[data-testid="error-name"]`) == "" || stext(res, `[data-testid="error-phone"]`) == "" {
		t.Fatalf("invalid edit: %d\n%s", res.StatusCode, res.Body)
	}
	// Kelas 8A is not a class of the roster: it comes back as the new class typed.
	if res.Doc.Find(`#f-description option[selected]`).AttrOr("value", "") != "+new" || svalue(res, "#f-description-new") != "Kelas 8A" || svalue(res, "#f-nis") != "2601" {
		t.Error("edit form lost values or took the posted NIS")
	}
	res = c.Post("/students/2601/edit", url.Values{"nis": {"9999"}, "name": {"Budi S."}, "key_name": {"NIS"}, "phone": {"+62 811 222 333"}, "description": {"Kelas 8A"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/students/2601" {
		t.Fatalf("edit: %d\n%s", res.StatusCode, res.Body)
	}
	if s, err := p.Billing.Student(ctx, "2601"); err != nil || s.Name != "Budi S." || s.Description != "Kelas 8A" || s.Phone != "+62811222333" {
		t.Fatalf("at the service: %+v %v", s, err)
	}
	if r, _ := p.DB.StudentByNIS(ctx, "2601"); r.Name != "Budi S." || r.Description != "Kelas 8A" {
		t.Fatalf("roster: %+v", r)
	}
	if _, err := p.Billing.Student(ctx, "9999"); err == nil {
		t.Fatal("the posted NIS was used")
	}
}

func TestStudentDelete(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	ctx := context.Background()
	bills := seedStudent(t, p, billing.Student{NIS: "2601", Name: "Budi Santoso"},
		spp("SPP November", 450_000, 25_000, utcDay(2026, 11, 30), utcDay(2026, 12, 31)))
	if _, err := p.Billing.Pay(ctx, billing.Payment{NIS: "2601", RefNumber: "LOKET-1", ComponentIDs: []string{bills[0].ComponentID}}); err != nil {
		t.Fatal(err)
	}
	seedStudent(t, p, billing.Student{NIS: "2602", Name: "Siti Aminah"},
		spp("SPP November", 450_000, 25_000, utcDay(2026, 11, 30), utcDay(2026, 12, 31)))
	c := p.SignedIn(t, "finance")

	// Without the confirm field it only asks.
	res := c.Post("/students/2602/delete", nil)
	if res.StatusCode != http.StatusOK || res.Doc.Find(`[data-testid="student-delete-confirm"]`).Length() != 1 {
		t.Fatalf("unconfirmed delete: %d", res.StatusCode)
	}
	if _, err := p.Billing.Student(ctx, "2602"); err != nil {
		t.Fatalf("an unconfirmed delete deleted: %v", err)
	}

	// Refused with payments, in plain words; nothing changes.
	res = c.Post("/students/2601/delete", url.Values{"confirm": {"yes"}})
	if res.StatusCode != http.StatusConflict {
		t.Fatalf("delete with payments: %d", res.StatusCode)
	}
	if msg := stext(res, `[data-testid="delete-has-payments"]`); !strings.Contains(msg, "Siswa ini sudah memiliki pembayaran, jadi tidak dapat dihapus") ||
		res.Doc.Find(`[data-testid="student-delete-confirm"]`).Length() != 0 {
		t.Fatalf("message = %q, or a delete button is still offered", msg)
	}
	if _, err := p.Billing.Student(ctx, "2601"); err != nil {
		t.Fatal("the service lost the student")
	}
	if _, err := p.DB.StudentByNIS(ctx, "2601"); err != nil {
		t.Fatal("the roster lost the student")
	}
	res = c.Post("/students/2601/delete", url.Values{"confirm": {"yes"}}, "HX-Request", "true")
	if res.StatusCode != http.StatusConflict || strings.Contains(res.Body, "<html") || !strings.Contains(res.Body, "sudah memiliki pembayaran") {
		t.Fatalf("htmx refusal: %d\n%s", res.StatusCode, res.Body)
	}

	// Without payments it goes, at the service and in the roster.
	res = c.Post("/students/2602/delete", url.Values{"confirm": {"yes"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/students" {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	if _, err := p.Billing.Student(ctx, "2602"); !errors.Is(err, billing.ErrNotFound) {
		t.Fatalf("still at the service: %v", err)
	}
	if _, err := p.DB.StudentByNIS(ctx, "2602"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("still in the roster: %v", err)
	}
	if res := c.Get("/students"); !strings.Contains(stext(res, `[data-testid="flash"]`), "dihapus") {
		t.Errorf("flash = %q", stext(res, `[data-testid="flash"]`))
	}
	if res := c.Get("/students/2602"); res.StatusCode != http.StatusNotFound {
		t.Errorf("deleted student page: %d", res.StatusCode)
	}
}

func TestStudentAddComponents(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	seedStudent(t, p, billing.Student{NIS: "2601", Name: "Budi Santoso", Description: "Kelas 7A"})
	c := p.SignedIn(t, "finance")
	ctx := context.Background()

	res := c.Get("/students/2601/components/new")
	if n := res.Doc.Find(`[data-testid^="component-row-"]`).Length(); n != 3 {
		t.Fatalf("form starts with %d rows", n)
	}
	if href, _ := res.Doc.Find(`[data-testid="components-add-row"]`).Attr("href"); href != "/students/2601/components/new?rows=4" {
		t.Errorf("add row links to %q", href)
	}
	// HTMX's add-row sends the rows typed so far; the form comes back one row longer, keeping them.
	res = c.Get("/students/2601/components/new?rows=4&name-0=SPP+Desember&amount-0=450.000", "HX-Request", "true")
	if n := res.Doc.Find(`[data-testid^="component-row-"]`).Length(); n != 4 || svalue(res, "#f-name-0") != "SPP Desember" || svalue(res, "#f-amount-0") != "450.000" {
		t.Fatalf("add row: %d rows\n%s", n, res.Body)
	}

	// Mistakes in two rows, one row empty: per-row, per-field errors; everything kept.
	bad := url.Values{"rows": {"3"},
		"name-0": {"SPP Desember"}, "account_code-0": {"SPP"}, "amount-0": {"Rp 450.000"}, "due-0": {"2026-12-31"}, "expiry-0": {"2026-12-10"},
		"name-1": {""}, "account_code-1": {"BCA"}, "amount-1": {"1.250.000,50"}, "penalty-1": {"-1"}, "due-1": {"2026-12-10"}, "expiry-1": {"2027-01-10"}, "active-1": {"2026-12-11"},
	}
	res = c.Post("/students/2601/components/new", bad)
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("invalid rows: %d", res.StatusCode)
	}
	for _, id := range []string{"error-due-0", "error-name-1", "error-amount-1", "error-penalty-1", "error-active-1"} {
		if stext(res, `[data-testid="`+id+`"]`) == "" {
			t.Errorf("no %s", id)
		}
	}
	for _, id := range []string{"error-amount-0", "error-name-2", "error-amount-2"} {
		if res.Doc.Find(`[data-testid="`+id+`"]`).Length() != 0 {
			t.Errorf("unexpected %s: %s", id, stext(res, `[data-testid="`+id+`"]`))
		}
	}
	if msg := stext(res, `[data-testid="error-due-0"]`); !strings.Contains(msg, "Jatuh tempo 31 Des 2026 jatuh setelah tanggal kedaluwarsa 10 Des 2026") {
		t.Errorf("due message = %q", msg)
	}
	if svalue(res, "#f-amount-0") != "Rp 450.000" || svalue(res, "#f-amount-1") != "1.250.000,50" || svalue(res, "#f-active-1") != "2026-12-11" {
		t.Error("typed values lost")
	}
	if sel, _ := res.Doc.Find(`#f-account_code-1 option[selected]`).Attr("value"); sel != "BCA" {
		t.Errorf("account code kept as %q", sel)
	}
	if res := c.Post("/students/2601/components/new", url.Values{"rows": {"3"}}); res.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(stext(res, `[data-testid="form-error"]`), "minimal satu baris") {
		t.Errorf("empty form: %d %q", res.StatusCode, stext(res, `[data-testid="form-error"]`))
	}
	if bills, _ := p.Billing.StudentBills(ctx, "2601", billing.Query{}); len(bills) != 0 {
		t.Fatalf("invalid rows reached the service: %d", len(bills))
	}

	// Two rows filled (the middle one left empty): one batch, then the student page.
	good := url.Values{"rows": {"3"},
		"name-0": {"SPP Desember"}, "account_code-0": {"SPP"}, "amount-0": {"Rp 450.000"}, "penalty-0": {"25.000"}, "due-0": {"2026-12-10"}, "expiry-0": {"2027-01-31"},
		"account_code-1": {"SPP"},
		"name-2":         {"Seragam"}, "account_code-2": {"BCA"}, "amount-2": {"1.250.000"}, "due-2": {"10/11/2026"}, "expiry-2": {"31/12/2026"}, "active-2": {"2026-11-01"}, "notes-2": {"ukuran M"},
	}
	res = c.Post("/students/2601/components/new", good, "HX-Request", "true")
	if res.StatusCode != http.StatusOK || res.Header.Get("HX-Redirect") != "/students/2601" {
		t.Fatalf("create components: %d %q\n%s", res.StatusCode, res.Header.Get("HX-Redirect"), res.Body)
	}
	bills, err := p.Billing.StudentBills(ctx, "2601", billing.Query{})
	if err != nil || len(bills) != 2 {
		t.Fatalf("at the service: %d %v", len(bills), err)
	}
	if entries, _, _ := p.DB.ListAudit(ctx, store.AuditFilter{Action: changes.ActionComponentsCreate, Limit: 5}); len(entries) != 1 || !strings.Contains(entries[0].Detail, "2 components, Rp 1700000") {
		t.Errorf("audit: %+v", entries)
	}

	page := c.Get("/students/2601")
	if !strings.Contains(stext(page, `[data-testid="flash"]`), "2 komponen tagihan ditambahkan") {
		t.Errorf("flash = %q", stext(page, `[data-testid="flash"]`))
	}
	rows := page.Doc.Find(`[data-testid="bill-row"]`)
	if rows.Length() != 2 {
		t.Fatalf("student page shows %d components", rows.Length())
	}
	// By due day: Seragam (10 Nov, 12 days late, no penalty) then SPP Desember (in 18 days).
	first, second := rows.Eq(0), rows.Eq(1)
	if got := strings.Join(strings.Fields(first.Text()), " "); !strings.Contains(got, "Seragam") || !strings.Contains(got, "Rp 1.250.000") ||
		!strings.Contains(got, "terlambat 12 hari") || !strings.Contains(got, "Terlambat") || !strings.Contains(got, "ukuran M") {
		t.Errorf("first row = %q", got)
	}
	if got := strings.Join(strings.Fields(second.Text()), " "); !strings.Contains(got, "SPP Desember") || !strings.Contains(got, "Rp 450.000") ||
		!strings.Contains(got, "Rp 25.000") || !strings.Contains(got, "dalam 18 hari") || !strings.Contains(got, "10 Des 2026") ||
		!strings.Contains(got, "31 Jan 2027 dalam 70 hari") {
		t.Errorf("second row = %q", got)
	}
	if got := stext(page, `[data-testid="sum-outstanding"]`); !strings.Contains(got, "Rp 1.700.000") {
		t.Errorf("outstanding = %q", got)
	}
	// The list agrees: what the student owes today, from the ledger the writer updated.
	list := c.Get("/students?q=2601")
	if got := stext(list, `[data-testid="student-2601"] [data-testid="student-outstanding"]`); got != "Rp 1.700.000" {
		t.Errorf("roster list outstanding = %q", got)
	}
	if got := stext(list, `[data-testid="student-2601"] [data-testid="student-overdue"]`); got != "1" {
		t.Errorf("roster list overdue = %q", got)
	}
}

func TestStudentPageStatesAndStatement(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	ctx := context.Background()
	bills := seedStudent(t, p, billing.Student{NIS: "2601", Name: "Budi Santoso", Description: "Kelas 7A"},
		spp("SPP Juli", 400_000, 25_000, utcDay(2026, 7, 10), utcDay(2026, 8, 31)),       // expired
		spp("SPP Oktober", 450_000, 25_000, utcDay(2026, 10, 10), utcDay(2026, 12, 31)),  // paid late below
		spp("SPP November", 450_000, 25_000, utcDay(2026, 11, 10), utcDay(2026, 12, 31)), // overdue: 475.000
		spp("SPP Desember", 450_000, 25_000, utcDay(2026, 12, 10), utcDay(2027, 1, 31)),  // unpaid: 450.000
	)
	if _, err := p.Billing.Pay(ctx, billing.Payment{NIS: "2601", RefNumber: "LOKET-77", ComponentIDs: []string{bills[1].ComponentID}}); err != nil {
		t.Fatal(err)
	}
	p.SyncLedger(t)
	c := p.SignedIn(t, "principal")
	page := c.Get("/students/2601")
	states := page.Doc.Find(`[data-testid="bill-state"]`)
	var got []string
	states.Each(func(_ int, s *goquery.Selection) { got = append(got, s.Text()) })
	if strings.Join(got, ",") != "Kedaluwarsa,Lunas,Belum dibayar,Belum dibayar" {
		t.Errorf("states = %v", got)
	}
	if n := page.Doc.Find(`[data-testid="bill-overdue"]`).Length(); n != 1 {
		t.Errorf("%d overdue badges", n)
	}
	for sel, want := range map[string]string{
		`[data-testid="sum-outstanding"]`: "Rp 925.000",
		`[data-testid="sum-overdue"]`:     "Rp 475.000",
		`[data-testid="sum-unpaid"]`:      "Rp 450.000",
		`[data-testid="sum-paid"]`:        "Rp 475.000",
		`[data-testid="sum-expired"]`:     "Rp 400.000",
		`[data-testid="bills-total-due"]`: "Rp 925.000",
	} {
		if got := stext(page, sel); !strings.Contains(got, want) {
			t.Errorf("%s = %q, want %q", sel, got, want)
		}
	}
	paid := strings.Join(strings.Fields(page.Doc.Find(`[data-testid="bill-row"]`).Eq(1).Text()), " ")
	if !strings.Contains(paid, "LOKET-77") || !strings.Contains(paid, "22 Nov 2026") {
		t.Errorf("paid row = %q", paid)
	}

	st := c.Get("/students/2601/statement")
	if st.Doc.Find(`.statement`).Length() != 1 || st.Doc.Find(`[data-print]`).Length() != 1 {
		t.Fatal("statement lacks its document or print button")
	}
	var running []string
	st.Doc.Find(`[data-testid="statement-running"]`).Each(func(_ int, s *goquery.Selection) { running = append(running, s.Text()) })
	if strings.Join(running, ",") != "Rp\u00a00,Rp\u00a00,Rp\u00a0475.000,Rp\u00a0925.000" {
		t.Errorf("running totals = %v", running)
	}
	if got := stext(st, `[data-testid="statement-total"]`); !strings.Contains(got, "Rp 925.000") {
		t.Errorf("statement total = %q", got)
	}
}

func TestStudentLoadedFromServiceOr404(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	ctx := context.Background()
	if _, err := p.Billing.CreateStudents(ctx, []billing.Student{{NIS: "2601", Name: "Budi Santoso", Description: "Kelas 7A"}}); err != nil {
		t.Fatal(err)
	}
	c := p.SignedIn(t, "principal")
	res := c.Get("/students/2601")
	if res.StatusCode != http.StatusOK || !strings.Contains(stext(res, `[data-testid="student-name"]`), "Budi Santoso") {
		t.Fatalf("student known only to the service: %d", res.StatusCode)
	}
	if s, err := p.DB.StudentByNIS(ctx, "2601"); err != nil || s.Source != store.SourceSync || s.SyncedAt.IsZero() {
		t.Fatalf("not added to the roster: %+v %v", s, err)
	}
	for _, path := range []string{"/students/9999", "/students/9999/statement", "/students/bad%20nis", "/students/" + strings.Repeat("9", 33)} {
		if res := c.Get(path); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, res.StatusCode)
		}
	}
}

func TestStudentsSearchFilterAndPages(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	ctx := context.Background()
	var roster []store.Student
	for i := range 60 {
		class := "Kelas 7A"
		if i%2 == 1 {
			class = "Kelas 7B"
		}
		roster = append(roster, store.Student{NIS: fmt.Sprintf("26%03d", i), Name: fmt.Sprintf("Siswa %02d", i), Description: class, Source: store.SourceUpload})
	}
	roster = append(roster, store.Student{NIS: "3001", Name: "Rahma Kirana", Description: "Kelas 8A", Source: store.SourcePortal})
	if err := p.DB.UpsertStudents(ctx, roster); err != nil {
		t.Fatal(err)
	}
	// 3001 owes 925.000 today: two late components (one of them with its penalty).
	seedStudent(t, p, billing.Student{NIS: "3001", Name: "Rahma Kirana", Description: "Kelas 8A"},
		spp("SPP Oktober", 450_000, 25_000, utcDay(2026, 10, 10), utcDay(2026, 12, 31)),
		spp("Seragam", 450_000, 0, utcDay(2026, 11, 1), utcDay(2026, 12, 31)))
	c := p.SignedIn(t, "finance")

	res := c.Get("/students")
	if n := res.Doc.Find(`[data-testid^="student-2"], [data-testid^="student-3"]`).Length(); n != 50 {
		t.Fatalf("first page shows %d students", n)
	}
	if href, _ := res.Doc.Find(`[data-testid="page-next"]`).Attr("href"); href != "/students?offset=50" {
		t.Errorf("next page = %q", href)
	}
	if stext(res, `[data-testid="totals-hint"]`) != "" {
		t.Error("a hint for missing totals, though the ledger is filled")
	}
	if got := stext(res, `#f-class`); !strings.Contains(got, "Kelas 7B") || !strings.Contains(got, "Kelas 8A") {
		t.Errorf("class options = %q", got)
	}
	if trig, _ := res.Doc.Find(`#f-q`).Attr("hx-trigger"); trig != "input changed delay:300ms, search" {
		t.Errorf("search trigger = %q", trig)
	}

	res = c.Get("/students?q=kirana", "HX-Request", "true")
	if strings.Contains(res.Body, "<html") || res.Doc.Find(`[data-testid="student-3001"]`).Length() != 1 || res.Doc.Find(`[data-testid^="student-26"]`).Length() != 0 {
		t.Fatalf("search by name:\n%s", res.Body)
	}
	row := res.Doc.Find(`[data-testid="student-3001"]`)
	if got := stext(res, `[data-testid="student-3001"] [data-testid="student-outstanding"]`); got != "Rp 925.000" {
		t.Errorf("outstanding = %q", got)
	}
	if got := stext(res, `[data-testid="student-3001"] [data-testid="student-overdue"]`); got != "2" {
		t.Errorf("overdue = %q", got)
	}
	if href, _ := row.Find(`[data-testid="student-link"]`).Attr("href"); href != "/students/3001" {
		t.Errorf("row link = %q", href)
	}
	if got := stext(c.Get("/students?q=26001"), `[data-testid="students-table"] tbody`); !strings.Contains(got, "Siswa 01") || strings.Contains(got, "Siswa 02") {
		t.Errorf("search by NIS = %q", got)
	}
	res = c.Get("/students?class=Kelas+7B")
	if n := res.Doc.Find(`tbody tr`).Length(); n != 30 {
		t.Errorf("class filter shows %d", n)
	}
	if sel, _ := res.Doc.Find(`#f-class option[selected]`).Attr("value"); sel != "Kelas 7B" {
		t.Errorf("class kept as %q", sel)
	}
	res = c.Get("/students?offset=50")
	if n := res.Doc.Find(`tbody tr`).Length(); n != 11 {
		t.Errorf("second page shows %d", n)
	}
	if res := c.Get("/students?q=tidak-ada"); stext(res, `[data-testid="students-empty"]`) == "" {
		t.Error("no empty message for a search without results")
	}
}

func TestStudentsUpstreamDown(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	seedStudent(t, p, billing.Student{NIS: "2601", Name: "Budi Santoso"},
		spp("SPP November", 450_000, 25_000, utcDay(2026, 11, 30), utcDay(2026, 12, 31)))
	c := p.SignedIn(t, "finance")
	ctx := context.Background()
	p.Sandbox.SetFaults(sandbox.Faults{ErrorRate: 1, Status: 503})

	const down = "Layanan pembayaran sedang tidak tersedia"
	res := c.Post("/students/new", url.Values{"nis": {"2602"}, "name": {"Siti Aminah"}, "key_name": {"NIS"}, "phone": {"0812 1111 2222"}})
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(stext(res, `[data-testid="form-error"]`), down) {
		t.Fatalf("create while down: %d %q", res.StatusCode, stext(res, `[data-testid="form-error"]`))
	}
	if svalue(res, "#f-nis") != "2602" || svalue(res, "#f-name") != "Siti Aminah" || svalue(res, "#f-phone") != "0812 1111 2222" {
		t.Error("typed values lost")
	}
	if _, err := p.DB.StudentByNIS(ctx, "2602"); !errors.Is(err, store.ErrNotFound) {
		t.Error("a failed create is in the roster")
	}

	form := url.Values{"rows": {"3"}, "name-1": {"SPP Desember"}, "account_code-1": {"SPP"}, "amount-1": {"450.000"}, "due-1": {"2026-12-10"}, "expiry-1": {"2027-01-31"}}
	res = c.Post("/students/2601/components/new", form, "HX-Request", "true")
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(stext(res, `[data-testid="form-error"]`), down) || svalue(res, "#f-amount-1") != "450.000" {
		t.Fatalf("components while down: %d %q", res.StatusCode, stext(res, `[data-testid="form-error"]`))
	}

	res = c.Post("/students/2601/edit", url.Values{"name": {"Budi S."}, "key_name": {"NIS"}})
	if res.StatusCode != http.StatusServiceUnavailable || svalue(res, "#f-name") != "Budi S." {
		t.Fatalf("edit while down: %d", res.StatusCode)
	}
	if r, _ := p.DB.StudentByNIS(ctx, "2601"); r.Name != "Budi Santoso" {
		t.Error("a failed edit changed the roster")
	}
	res = c.Post("/students/2601/delete", url.Values{"confirm": {"yes"}})
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(stext(res, `[data-testid="delete-error"]`), "tidak tersedia") {
		t.Fatalf("delete while down: %d", res.StatusCode)
	}

	// Reading needs no service: the student's page answers from the ledger.
	res = c.Get("/students/2601")
	if res.StatusCode != http.StatusOK || res.Doc.Find(`[data-testid="bill-row"]`).Length() != 1 ||
		!strings.Contains(stext(res, `[data-testid="student-name"]`), "Budi Santoso") {
		t.Fatalf("student page while down: %d", res.StatusCode)
	}
	if res := c.Get("/students/2699"); res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(res.Body, down) {
		t.Fatalf("unknown student while down: %d", res.StatusCode)
	}

	// Every write was audited as failed; nothing was recorded as done.
	entries, _, _ := p.DB.ListAudit(ctx, store.AuditFilter{Limit: 20})
	for _, e := range entries {
		if strings.HasPrefix(e.Action, "upstream.") && e.Outcome != changes.OutcomeFailed {
			t.Errorf("audit %s outcome %s", e.Action, e.Outcome)
		}
	}
	p.Sandbox.SetFaults(sandbox.Faults{})
	if bills, _ := p.Billing.StudentBills(ctx, "2601", billing.Query{}); len(bills) != 1 {
		t.Errorf("the service has %d components", len(bills))
	}
}

func TestStudentsUpstreamSlow(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow, UpstreamTimeout: 300 * time.Millisecond})
	seedStudent(t, p, billing.Student{NIS: "2601", Name: "Budi Santoso"})
	c := p.SignedIn(t, "finance")
	// The service applies the batch but never answers in time: the page must not say it
	// failed, nor that it worked.
	p.Sandbox.SetFaults(sandbox.Faults{TimeoutRate: 1})
	form := url.Values{"rows": {"1"}, "name-0": {"SPP Desember"}, "account_code-0": {"SPP"}, "amount-0": {"450.000"}, "due-0": {"2026-12-10"}, "expiry-0": {"2027-01-31"}}
	res := c.Post("/students/2601/components/new", form)
	if res.StatusCode != http.StatusGatewayTimeout || !strings.Contains(stext(res, `[data-testid="form-error"]`), "periksa datanya dulu") || svalue(res, "#f-name-0") != "SPP Desember" {
		t.Fatalf("slow service: %d %q", res.StatusCode, stext(res, `[data-testid="form-error"]`))
	}
	p.Sandbox.SetFaults(sandbox.Faults{})
	if entries, _, _ := p.DB.ListAudit(context.Background(), store.AuditFilter{Action: changes.ActionComponentsCreate, Limit: 1}); len(entries) != 1 || entries[0].Outcome != changes.OutcomeUnknown {
		t.Errorf("audit: %+v", entries)
	}

	// A slow service does not slow reading: the page answers from the ledger.
	p.Sandbox.SetFaults(sandbox.Faults{LatencyMS: 5000})
	page := c.Get("/students/2601")
	if page.StatusCode != http.StatusOK || stext(page, `[data-testid="bills-error"]`) != "" {
		t.Fatalf("slow service, read: %d %q", page.StatusCode, stext(page, `[data-testid="bills-error"]`))
	}
	// A delete first asks whether the student has payments: when that read times out,
	// nothing is sent, the page says the service did not answer and offers no button.
	res = c.Post("/students/2601/delete", url.Values{"confirm": {"yes"}})
	if res.StatusCode != http.StatusGatewayTimeout || !strings.Contains(stext(res, `[data-testid="delete-error"]`), "tidak menjawab dalam") ||
		res.Doc.Find(`[data-testid="student-delete-confirm"]`).Length() != 0 {
		t.Fatalf("slow delete: %d %q", res.StatusCode, stext(res, `[data-testid="delete-error"]`))
	}
	p.Sandbox.SetFaults(sandbox.Faults{})
}

// The roster is the service's student list: the ledger's first fill brings every
// student (a few calls, not one per student); "sync" asks the ledger to sync now and the
// page shows it waiting, running and what it found.
func TestStudentsSyncDemoSchool(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: reportsNow, Demo: true}) // the reports' day: the school is copied, not made again
	c := p.SignedIn(t, "finance")
	ctx := context.Background()
	_, total, err := p.DB.ListStudents(ctx, store.StudentFilter{})
	if err != nil || total != 600 {
		t.Fatalf("after the first fill the roster has %d students: %v", total, err)
	}
	err = p.DB.AllStudents(ctx, func(s store.Student) error {
		if s.Source != store.SourceSync || s.Name == "" || s.Description == "" {
			return fmt.Errorf("entry %+v", s)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The list shows the totals and the classes.
	list := c.Get("/students")
	if list.Doc.Find(`[data-testid="totals-hint"]`).Length() != 0 || !strings.Contains(stext(list, `#f-class`), "Kelas 7A") ||
		list.Doc.Find(`[data-testid="student-outstanding"]`).Length() != 50 {
		t.Error("the roster page lacks totals or classes after the fill")
	}
	if got := stext(list, `[data-testid="sync-summary"]`); !strings.HasPrefix(got, "Sinkron berkala terakhir 10.00:") {
		t.Errorf("roster page sync summary = %q", got)
	}

	res := c.Post("/students/sync", nil, "HX-Request", "true")
	if res.StatusCode != http.StatusOK || res.Doc.Find(`#sync-status`).Length() != 1 || strings.Contains(res.Body, "<html") {
		t.Fatalf("start: %d\n%s", res.StatusCode, res.Body)
	}
	status := waitSync(t, c, "finance")
	if trig, _ := status.Doc.Find(`#sync-status`).Attr("hx-trigger"); trig != "" {
		t.Errorf("finished status still polls: %q", trig)
	}
	if status.Header.Get("HX-Trigger") != "students-synced" {
		t.Error("the finished poll does not tell the page to reload the roster")
	}
	summary := stext(status, `[data-testid="sync-summary"]`)
	if summary != "Sinkron berkala terakhir 10.00: tidak ada perubahan. (diminta oleh Finance Staf)" {
		t.Fatalf("summary = %q", summary)
	}
	// A student added at the service behind the portal's back: the next sync brings them.
	if _, err := p.Billing.CreateStudents(ctx, []billing.Student{{NIS: "999001", Name: "Murid Baru", Description: "Kelas 7A"}}); err != nil {
		t.Fatal(err)
	}
	// Again, as a plain form.
	res = c.Post("/students/sync", nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/students" {
		t.Fatalf("second start: %d", res.StatusCode)
	}
	status = waitSync(t, c, "finance", "1 siswa")
	if got := stext(status, `[data-testid="sync-summary"]`); got != "Sinkron berkala terakhir 10.00: 1 siswa baru atau berubah. (diminta oleh Finance Staf)" {
		t.Fatalf("second summary = %q", got)
	}
	if _, total, _ := p.DB.ListStudents(ctx, store.StudentFilter{}); total != 601 {
		t.Fatalf("after the second run: %d", total)
	}
	if entries, _, _ := p.DB.ListAudit(ctx, store.AuditFilter{Action: "students.sync", Limit: 5}); len(entries) != 2 {
		t.Errorf("%d sync audit entries", len(entries))
	}
}

func TestStudentsSyncUpstreamDown(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	c := p.SignedIn(t, "finance")
	p.Sandbox.SetFaults(sandbox.Faults{ErrorRate: 1, Status: 503})
	if res := c.Post("/students/sync", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("start: %d", res.StatusCode)
	}
	status := waitSync(t, c, "finance")
	if msg := stext(status, `[data-testid="sync-error"]`); msg != "Sinkron berkala gagal 10.00: layanan pembayaran tidak menjawab. (diminta oleh Finance Staf)" {
		t.Fatalf("message = %q", msg)
	}
	// Without JavaScript the page itself shows the outcome.
	if res := c.Get("/students/sync"); !strings.Contains(res.Body, "<html") || stext(res, `[data-testid="sync-error"]`) == "" {
		t.Error("the sync page lacks the outcome")
	}
}

// waitSync polls the sync's status like the page does until a run asked for by `by` has
// ended (and its words hold every part of want).
func waitSync(t *testing.T, c *portaltest.Client, by string, want ...string) *portaltest.Response {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		res := c.Get("/students/sync", "HX-Request", "true")
		state, _ := res.Doc.Find(`[data-testid="sync-status"]`).Attr("data-state")
		text := stext(res, `[data-testid="sync-summary"], [data-testid="sync-error"]`)
		done := (state == "done" || state == "failed") && strings.Contains(text, "(diminta oleh "+strings.ToUpper(by[:1])+by[1:]+" Staf)")
		for _, w := range want {
			done = done && strings.Contains(text, w)
		}
		if done {
			return res
		}
		if state == "waiting" || state == "running" {
			if trig, _ := res.Doc.Find(`#sync-status`).Attr("hx-trigger"); trig != "every 2s" {
				t.Fatalf("%s status polls with %q", state, trig)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the sync did not finish: %s %q", state, text)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
