package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/outbox"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/store"
)

// A term's bill notices for a class: the preview lists each student with what the term's
// unpaid components cost (a component of the next term is not in it) and the notice
// says so; sending queues one message a student, audited once; asking again for the same
// term sends nothing new. A wrong form is refused with a plain message (422).
func TestClassNoticesWithPreview(t *testing.T) {
	t.Parallel()
	p := startOutbox(t, portaltest.Options{})
	nis, _ := seedArrearsIn(t, p, 3, "Kelas 7A", 20) // SPP Oktober, 150,000, due 1 November 2026
	ctx := t.Context()
	var next []billing.ComponentInput
	for _, n := range nis {
		next = append(next, billing.ComponentInput{NIS: n, AccountCode: "SPP", Name: "SPP Februari", Due: billDay("2027-02-01"),
			Expiry: billDay("2027-03-31"), Amount: 175_000})
	}
	if _, err := p.Billing.CreateComponents(ctx, next); err != nil {
		t.Fatal(err)
	}
	p.SyncLedger(t)
	c := p.SignedIn(t, "finance")

	page := c.Get("/notices")
	if page.StatusCode != http.StatusOK || page.Doc.Find(`[data-testid="notices-form"]`).Length() != 1 {
		t.Fatalf("the notices page: %d", page.StatusCode)
	}
	if page.Doc.Find(`[data-testid="outbox-plan"]`).Length() != 0 {
		t.Error("a preview before a class was chosen")
	}
	if got := page.Doc.Find(`[data-testid="notices-term"] option`).Length(); got != 2 {
		t.Errorf("%d terms offered, want the current and the next", got)
	}

	preview := c.Get("/notices?" + url.Values{"class": {"Kelas 7A"}, "term": {"2026-1"}}.Encode())
	if preview.StatusCode != http.StatusOK {
		t.Fatalf("preview: %d", preview.StatusCode)
	}
	if rows := preview.Doc.Find(`[data-testid="outbox-row"]`); rows.Length() != 3 {
		t.Fatalf("%d rows in the preview, want 3", rows.Length())
	}
	if got := billsText(preview.Doc.Find(`[data-testid="outbox-row"][data-nis="` + nis[0] + `"]`)); !strings.Contains(got, "150.000") ||
		strings.Contains(got, "175.000") || strings.Contains(got, "325.000") {
		t.Errorf("the first student's notice for the first term: %q", got)
	}
	if got := billsText(preview.Doc.Find(`[data-testid="outbox-summary"]`)); !strings.Contains(got, "3 pesan") {
		t.Errorf("summary %q", got)
	}
	if len(p.WhatsApp.Messages()) != 0 {
		t.Fatal("the preview sent something")
	}

	send := url.Values{}
	preview.Doc.Find(`[data-testid="outbox-send-form"] input[type=hidden]`).Each(func(_ int, s *goquery.Selection) {
		if name := s.AttrOr("name", ""); name != "csrf_token" {
			send.Add(name, s.AttrOr("value", ""))
		}
	})
	res := c.Post("/notices", send)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("send: %d", res.StatusCode)
	}
	waitUntil(t, "the notices", func() bool { return len(waWithAny(p, nis)) == 3 })
	for _, n := range nis {
		ms := waWith(p.WhatsApp.Messages(), phoneOf(n))
		if len(ms) != 1 || ms[0].Template != "tagihan_semester" || !strings.Contains(strings.Join(ms[0].Params, "|"), i18n.Rupiah(150_000)) {
			t.Errorf("%s's notice: %+v", n, ms)
		}
	}
	es, _, _ := p.DB.ListAudit(ctx, store.AuditFilter{Action: outbox.ActionNotices, Limit: 10})
	if len(es) != 1 || es[0].Args["messages"] != "3" || es[0].Actor != "finance" {
		t.Fatalf("the batch's audit entries: %+v", es)
	}

	// The same term again: nothing new; the preview says each was sent already.
	if res := c.Post("/notices", send); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("send again: %d", res.StatusCode)
	}
	again := c.Get("/notices?" + url.Values{"class": {"Kelas 7A"}, "term": {"2026-1"}}.Encode())
	if got := billsText(again.Doc.Find(`[data-testid="outbox-summary"]`)); !strings.Contains(got, "0 pesan") ||
		!strings.Contains(billsText(again.Doc.Find(`[data-testid="outbox-row"]`)), "sudah dikirim") {
		t.Errorf("the preview after sending: %q", got)
	}
	time.Sleep(300 * time.Millisecond)
	if got := len(waWithAny(p, nis)); got != 3 {
		t.Errorf("%d notices after sending twice, want 3", got)
	}

	// No class: refused, the term kept.
	bad := c.Post("/notices", url.Values{"term": {"2026-2"}})
	if bad.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("no class: %d", bad.StatusCode)
	}
	if got := billsText(bad.Doc.Find(`[data-testid="outbox-error"]`)); got != "Pilih kelas dan semester." {
		t.Errorf("no class: %q", got)
	}
	if got := bad.Doc.Find(`[data-testid="notices-term"] option[selected]`).AttrOr("value", ""); got != "2026-2" {
		t.Errorf("the term chosen was not kept: %q", got)
	}
}

// Settings → Messages, the sending: a mistake is shown beside its field with what was
// typed kept (422) and nothing stored; good values are stored, audited and shown.
func TestOutboxSettingsSaved(t *testing.T) {
	t.Parallel()
	p := startOutbox(t, portaltest.Options{})
	c := p.SignedIn(t, "admin")
	bad := c.Post("/settings/messages/sending", url.Values{outbox.FieldReminderDays: {"99"}, outbox.FieldHoursFrom: {"21:00"},
		outbox.FieldHoursTo: {"07:00"}, outbox.FieldPerMinute: {"lots"}})
	if bad.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("bad settings: %d", bad.StatusCode)
	}
	form := bad.Doc.Find(`[data-testid="outbox-settings"]`)
	for field, want := range map[string]string{outbox.FieldReminderDays: "Tulis 0 sampai", outbox.FieldPerMinute: "pesan per menit",
		outbox.FieldHoursTo: "Jam selesai harus setelah jam mulai."} {
		if got := billsText(form.Find(`[data-testid="error-` + field + `"]`)); !strings.Contains(got, want) {
			t.Errorf("%s's error: %q, want %q", field, got, want)
		}
	}
	if got := form.Find(`input[name="`+outbox.FieldPerMinute+`"]`).AttrOr("value", ""); got != "lots" {
		t.Errorf("what was typed was not kept: %q", got)
	}
	if set, err := p.App.Outbox.Settings(t.Context()); err != nil || set != outbox.DefaultSettings {
		t.Errorf("a refused form changed the settings: %+v %v", set, err)
	}

	good := c.Post("/settings/messages/sending", url.Values{outbox.FieldReminderDays: {"5"}, outbox.FieldHoursFrom: {"07:00"},
		outbox.FieldHoursTo: {"19:30"}, outbox.FieldPerMinute: {"40"}})
	if good.StatusCode != http.StatusSeeOther {
		t.Fatalf("good settings: %d", good.StatusCode)
	}
	page := c.Get("/settings/messages")
	for field, want := range map[string]string{outbox.FieldReminderDays: "5", outbox.FieldHoursFrom: "07:00", outbox.FieldHoursTo: "19:30",
		outbox.FieldPerMinute: "40"} {
		if got := page.Doc.Find(`[data-testid="outbox-settings"] input[name="`+field+`"]`).AttrOr("value", ""); got != want {
			t.Errorf("%s shown as %q, want %q", field, got, want)
		}
	}
	es, _, _ := p.DB.ListAudit(t.Context(), store.AuditFilter{Action: outbox.ActionSettings, Limit: 10})
	if len(es) != 1 || es[0].Actor != "admin" {
		t.Errorf("the settings' audit entries: %+v", es)
	}
	// Finance may not change them.
	if res := p.SignedIn(t, "finance").Post("/settings/messages/sending", url.Values{outbox.FieldReminderDays: {"1"}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("finance changing the sending: %d", res.StatusCode)
	}
}
