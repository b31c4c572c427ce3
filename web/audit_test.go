package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/followups"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/internal/school"
	"github.com/sekolah/portal/internal/store"
)

// auditAll is the log over a range that holds entries stamped with the real clock
// whatever the portal's clock says.
const auditAll = "/audit?from=2000-01-01&to=2999-12-31"

// auditRow finds the row of the first entry of action on the page.
func auditRowOf(doc *goquery.Document, action string) *goquery.Selection {
	return doc.Find(`[data-testid="audit-row"][data-action="` + action + `"]`).First()
}

func TestAuditLogInWords(t *testing.T) {
	t.Parallel()
	p, s := startCounter(t)
	ctx := t.Context()
	c := p.SignedIn(t, "finance")
	if res := c.Post("/payments", url.Values{"nis": {"2024001"}, "ref": {"KW/2026/11/0001"}, "component": {s.id("SPP Oktober"), s.id("SPP Desember")},
		"total": {"535000"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("pay: %d", res.StatusCode)
	}
	// Entries written before they carried arguments: words from the action and target.
	for _, e := range []store.AuditEntry{
		{Actor: "finance", ActorRole: "finance", Action: changes.ActionStudentUpdate, Target: "2024003", Outcome: "ok", Detail: "Dewi Lestari"},
		{Actor: "finance", ActorRole: "finance", Action: "upload.receive", Target: "0f8c2d6e-upload", Outcome: "ok",
			Detail: `components "tagihan november.xlsx", 5120 bytes, sha256 9f86d081884c7d659a2feaa0c55ad015`},
		{Actor: "system", ActorRole: "admin", Action: "staff.create", Target: "finance", Outcome: "ok", Detail: "role finance"},
		{Actor: ledger.ActorService, ActorRole: ledger.ActorRole, Action: ledger.ActionCallback, Target: "2024003", Outcome: "ok",
			Detail: "ref BANK-001 via BCA, 1 component, Rp 150000"},
	} {
		if err := p.DB.AppendAudit(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	admin := p.SignedIn(t, "admin")
	doc := admin.Get(auditAll).Doc

	pay := auditRowOf(doc, changes.ActionPay)
	words := billsText(pay.Find(`[data-testid="audit-words"]`))
	if words != "Pembayaran di loket dicatat — Siti Aminah (NIS 2024001), 2 tagihan, Rp 535.000, kuitansi KW/2026/11/0001" {
		t.Errorf("payment in words: %q", words)
	}
	if href := pay.Find(`[data-testid="audit-link"]`).AttrOr("href", ""); href != "/students/2024001" {
		t.Errorf("payment links to %q", href)
	}
	if actor := billsText(pay.Find(`[data-testid="audit-actor"]`)); actor != "Finance Staf" {
		t.Errorf("actor %q", actor)
	}
	// The codes are there for whoever opens the details, not in the words.
	if strings.Contains(words, "upstream.") || !strings.Contains(pay.Find(`[data-testid="audit-details"]`).Text(), changes.ActionPay) {
		t.Error("codes in the words, or missing from the details")
	}

	old := auditRowOf(doc, changes.ActionStudentUpdate)
	if got := billsText(old.Find(`[data-testid="audit-words"]`)); got != "Data siswa diubah — Dewi Lestari (NIS 2024003)" {
		t.Errorf("older entry: %q", got)
	}
	up := auditRowOf(doc, "upload.receive")
	if got := billsText(up.Find(`[data-testid="audit-words"]`)); got != "Berkas diunggah — tagihan november.xlsx" ||
		up.Find(`[data-testid="audit-link"]`).AttrOr("href", "") != "/uploads/0f8c2d6e-upload" {
		t.Errorf("upload: %q", got)
	}
	for _, hidden := range []string{"0f8c2d6e", "9f86d081", "system"} {
		if strings.Contains(billsText(doc.Find(`[data-testid="audit-words"], [data-testid="audit-actor"]`)), hidden) {
			t.Errorf("%q shown outside the details", hidden)
		}
	}
	if got := billsText(auditRowOf(doc, "staff.create").Find(`td`).Eq(1)); got != "Portal (otomatis)" {
		t.Errorf("the portal's own entry names %q", got)
	}
	bank := auditRowOf(doc, ledger.ActionCallback)
	if got := billsText(bank.Find(`[data-testid="audit-words"]`)); got != "Pembayaran dari bank diterima — Dewi Lestari (NIS 2024003)" {
		t.Errorf("bank payment: %q", got)
	}
	if got := billsText(bank.Find(`td`).Eq(1)); got != "Layanan pembayaran" {
		t.Errorf("the service's entry names %q", got)
	}
	if opt := doc.Find(`#f-action option[value="` + changes.ActionPay + `"]`).Text(); opt != "Pembayaran di loket dicatat" {
		t.Errorf("action filter offers %q", opt)
	}

	// The same in English.
	admin.Post("/lang", url.Values{"lang": {"en"}})
	doc = admin.Get(auditAll).Doc
	if got := billsText(auditRowOf(doc, changes.ActionPay).Find(`[data-testid="audit-words"]`)); got != "Counter payment recorded — Siti Aminah (NIS 2024001), 2 items, Rp 535.000, receipt KW/2026/11/0001" {
		t.Errorf("English: %q", got)
	}
	if got := billsText(auditRowOf(doc, "upload.receive").Find(`[data-testid="audit-words"]`)); got != "File uploaded — tagihan november.xlsx" {
		t.Errorf("English upload: %q", got)
	}
}

// Every action some package registers has its phrases, for success and for failure, in
// both languages: the log never shows a code where words belong.
func TestEveryActionHasItsWords(t *testing.T) {
	t.Parallel()
	actions := audit.Actions()
	codes := map[string]bool{}
	for _, a := range actions {
		codes[a.Code] = true
		for _, key := range []string{a.OKKey(), a.TryKey()} {
			m, ok := i18n.Lookup(key)
			if !ok || strings.TrimSpace(m.ID) == "" || strings.TrimSpace(m.EN) == "" {
				t.Errorf("%s: no phrase %s in both languages (%+v)", a.Code, key, m)
			}
		}
	}
	// The vocabulary is every maker's: the writer, staff accounts, settings, follow-ups,
	// the ledger, and the pages' own.
	for _, code := range []string{changes.ActionPay, auth.ActionStaffRole, auth.ActionSignOut, registration.ActionPublicSettings,
		school.ActionLogo, followups.ActionLetter, ledger.ActionCallback, "report.export", "students.sync", "ledger.reconcile.ask", "upload.commit"} {
		if !codes[code] {
			t.Errorf("%s is not registered (%d actions)", code, len(actions))
		}
	}
}

// sampleArgs are arguments of every kind an action can carry, as the makers write them.
var sampleArgs = audit.Collect(audit.Students([]string{"2024001"}, []string{"Siti Aminah"}), audit.StaffMember("finance"),
	audit.RoleChange("principal", "finance"), audit.Upload("u-1"), audit.File("tagihan.xlsx"), audit.Count(2), audit.Total(535000),
	audit.Ref("KW/1"), audit.Reason("salah unggah"), audit.Item("SPP Desember"), audit.Overdue(1), audit.Enabled(true),
	audit.Pattern("KW/{seq}"), audit.Source("portal"), audit.Class("7A"), audit.Fields([]string{"amount"}), audit.Component("c-1"),
	audit.Job("j-1"), audit.Bill("b-1"), audit.Bytes(2048), audit.Format("csv"))

// The log page words an entry of every registered action: its phrase, a subject when it
// has one, each figure it shows, and never a code or a catalogue key in the words.
func TestAuditLogWordsEveryAction(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{})
	ctx := t.Context()
	actions := audit.Actions()
	for _, a := range actions {
		args := store.AuditArgs{}
		for _, k := range a.Carries() {
			v := sampleArgs.Get(k)
			if v == "" {
				v = "7" // a package's own argument (a form's hourly cap, an application's reference)
			}
			args[string(k)] = v
		}
		target := map[audit.About]string{audit.AboutReport: "/reports/payments?format=csv", audit.AboutTypedUsername: "sitti"}[a.About]
		for _, outcome := range []audit.Outcome{audit.OK, audit.Failed} {
			e := store.AuditEntry{Actor: "sampler", ActorRole: "finance", Action: a.Code, Target: target, Outcome: string(outcome), Args: args}
			if err := audit.Read(e).Check(); err != nil && outcome == audit.OK {
				t.Errorf("%s: the sample is not an entry of it: %v", a.Code, err)
			}
			if err := p.DB.AppendAudit(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
	}
	admin := p.SignedIn(t, "admin")
	id := i18n.NewPrinter(i18n.Indonesian, nil)
	for _, a := range actions {
		rows := admin.Get(auditAll + "&actor=sampler&action=" + url.QueryEscape(a.Code)).Doc.Find(`[data-testid="audit-row"]`)
		if rows.Length() != 2 || rows.First().AttrOr("data-action", "") != a.Code {
			t.Errorf("%s: %d rows", a.Code, rows.Length())
			continue
		}
		rows.Each(func(i int, row *goquery.Selection) {
			words := billsText(row.Find(`[data-testid="audit-words"]`))
			phrase := id.T(a.OKKey())
			if i == 0 { // newest first: the failure was written last
				phrase = id.T(a.TryKey())
			}
			rest, ok := strings.CutPrefix(words, phrase)
			if !ok {
				t.Errorf("%s: words %q do not start with %q", a.Code, words, phrase)
			}
			if strings.Contains(words, a.Code) || strings.Contains(words, "audit.") || strings.Contains(words, "role.") {
				t.Errorf("%s: a code or a key in the words %q", a.Code, words)
			}
			subject := billsText(row.Find(`[data-testid="audit-words"] a`).First())
			wantSubject := a.About != audit.AboutNothing && !(a.About == audit.AboutTypedUsername && i == 1)
			if (subject != "") != wantSubject {
				t.Errorf("%s: subject %q in %q (one expected: %v)", a.Code, subject, words, wantSubject)
			}
			figures := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(rest, " — "), subject), ", ")
			if n := len(strings.Split(figures, ", ")); len(a.Shows) > 0 && (figures == "" || n < len(a.Shows)) {
				t.Errorf("%s: words %q show fewer than its %d figures", a.Code, words, len(a.Shows))
			}
		})
	}
}

// The portal's own makers, each through its real path, write entries their actions
// describe, and the log says each in words; the portal, acting under two names, is one
// choice of the actor filter, which finds both.
func TestAuditEntriesOfEachMaker(t *testing.T) {
	t.Parallel()
	p, _ := startCounter(t)
	ctx := t.Context()
	admin := p.SignedIn(t, "admin")
	actor := auth.Actor{Username: "admin", Role: auth.Admin, IP: "10.0.0.5"}

	rina, err := p.Auth.CreateUser(ctx, actor, "rina", "Rina Wati", auth.Finance, "kopi-susu-hangat")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Auth.SetRole(ctx, actor, rina.ID, auth.Principal); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Auth.SignIn(ctx, "sitti", "salah-sandi", "10.0.0.6"); err == nil {
		t.Fatal("signed in with a wrong password")
	}
	tpl, err := p.App.Registration.CreateTemplate(ctx, actor, registration.TemplateInput{Name: "Daftar ulang 2027", Lines: []registration.LineInput{
		{Name: "Uang gedung", AccountCode: "SPP", Amount: "1.000.000", Due: "+14", Expiry: "60"}, {Name: "Seragam", AccountCode: "SPP", Amount: "350.000", Due: "+14", Expiry: "60"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.App.Registration.SetPublicSettings(ctx, actor, registration.PublicInput{Enabled: true, TemplateID: tpl.ID, HourlyCap: "30"}); err != nil {
		t.Fatal(err)
	}
	st, err := p.DB.StudentByNIS(ctx, "2024001")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.App.FollowUps.Send(ctx, actor, "Admin", st, followups.Letter); err != nil {
		t.Fatal(err)
	}
	if res := admin.Get("/reports/payments?format=csv"); res.StatusCode != http.StatusOK {
		t.Fatalf("export: %d", res.StatusCode)
	}
	if res := admin.Post("/students/sync", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sync: %d", res.StatusCode)
	}
	if res := admin.Post("/students/2024002/delete", url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d %s", res.StatusCode, res.Body)
	}
	// The ledger's sync acts as the portal too.
	if err := p.DB.AppendAudit(ctx, store.AuditEntry{Actor: ledger.ActorSync, ActorRole: ledger.ActorRole, Action: ledger.ActionReconcile,
		Target: "ledger", Outcome: "ok", Detail: "full reconcile"}); err != nil {
		t.Fatal(err)
	}

	all, _, err := p.DB.ListAudit(ctx, store.AuditFilter{Limit: store.MaxAuditLimit})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range all {
		if err := audit.Read(e).Check(); err != nil {
			t.Errorf("%+v: %v", e, err)
		}
	}
	doc := admin.Get(auditAll).Doc
	for _, tt := range []struct{ action, words, link string }{
		{auth.ActionStaffRole, "Peran staf diubah — Rina Wati, Keuangan → Kepala Sekolah", "/staff/" + rina.ID},
		{auth.ActionStaffCreate, "Akun staf dibuat — Rina Wati, Keuangan", "/staff/" + rina.ID},
		{auth.ActionSignIn, "Mencoba masuk — dengan nama pengguna “sitti”", ""},
		{registration.ActionTemplateCreate, "Template biaya dibuat — Daftar ulang 2027, 2 komponen, Rp 1.350.000", ""},
		{registration.ActionPublicSettings, "Pengaturan pendaftaran daring diubah — dibuka untuk umum, Daftar ulang 2027, batas 30 per jam", ""},
		{school.ActionProfile, "Profil sekolah diubah — SMP Nusantara, pola kuitansi KW/{YYYY}/{MM}/{seq}", ""},
		{followups.ActionLetter, "Surat pengingat dicatat terkirim — Siti Aminah (NIS 2024001), 1 tagihan terlambat, Rp 275.000", "/students/2024001"},
		{"report.export", "Laporan diunduh — Pembayaran diterima (CSV (,))", "/reports/payments"},
		{"students.sync", "Sinkronisasi data siswa dimulai", ""},
		{changes.ActionStudentDelete, "Siswa dihapus — Budi Santoso (NIS 2024002)", ""}, // a deleted student has no page
		{ledger.ActionReconcile, "Data portal dicocokkan dengan layanan pembayaran", ""},
	} {
		row := auditRowOf(doc, tt.action)
		if got := billsText(row.Find(`[data-testid="audit-words"]`)); got != tt.words {
			t.Errorf("%s: %q, want %q", tt.action, got, tt.words)
		}
		if got := row.Find(`[data-testid="audit-link"]`).AttrOr("href", ""); !strings.HasPrefix(got, tt.link) || (tt.link == "") != (got == "") {
			t.Errorf("%s links to %q, want %q", tt.action, got, tt.link)
		}
	}

	// One choice for the portal, whichever of its names it acted under; it finds both.
	var portal []string
	doc.Find(`#f-actor option`).Each(func(_ int, o *goquery.Selection) {
		if o.Text() == "Portal (otomatis)" {
			portal = append(portal, o.AttrOr("value", ""))
		}
	})
	if len(portal) != 1 {
		t.Fatalf("the portal is offered %d times: %v", len(portal), portal)
	}
	rows := admin.Get(auditAll + "&actor=" + url.QueryEscape(portal[0])).Doc.Find(`[data-testid="audit-row"]`)
	seen := map[string]bool{}
	rows.Each(func(_ int, r *goquery.Selection) {
		seen[r.Find(`[data-testid="audit-details"] dd.mono`).Eq(1).Text()] = true
	})
	if !seen[ledger.ActorSync] || !seen[auth.SystemActor.Username] {
		t.Errorf("the portal's choice finds %v, want its entries under both names", seen)
	}
	if opt := admin.Get(auditAll + "&actor=system").Doc.Find(`#f-actor option[selected]`); opt.Text() != "Portal (otomatis)" {
		t.Errorf("actor=system selects %q", opt.Text())
	}
}
