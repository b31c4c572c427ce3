package web_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/config"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/messagesandbox"
	"github.com/sekolah/portal/internal/outbox"
	"github.com/sekolah/portal/internal/parents"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/whatsapp"
)

// outboxPublicURL is the portal's public address in these tests: messages carry the
// parent page's link under it, and the tests open its path on the test server.
const outboxPublicURL = "https://portal.test"

// startOutbox runs a portal with the message sandboxes (a Cloud API over HTTP, an SMTP
// server) on billsNow (10:00 school time, within the sending hours) unless o says another.
func startOutbox(t *testing.T, o portaltest.Options) *portaltest.Portal {
	t.Helper()
	return startOutboxB(t, o)
}

// startOutboxB is startOutbox for a benchmark too.
func startOutboxB(t testing.TB, o portaltest.Options) *portaltest.Portal {
	t.Helper()
	o.Messages = true
	if o.Now.IsZero() {
		o.Now = billsNow
	}
	prev := o.Config
	o.Config = func(c *config.Config) {
		c.PublicURL = outboxPublicURL
		if prev != nil {
			prev(c)
		}
	}
	return portaltest.Start(t, o)
}

// waitUntil polls cond until it holds (the test's timeout, or 60 s, bounds it).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 60 s for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// outboxOf is the outbox's messages about nis, newest first.
func outboxOf(t *testing.T, p *portaltest.Portal, nis string) []outbox.StudentMessage {
	t.Helper()
	ms, err := p.App.Outbox.OfStudent(t.Context(), nis, 100)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// ended reports whether every message of ms is taken to an end and, when sent, has its
// record.
func ended(ms []outbox.StudentMessage) bool {
	for _, m := range ms {
		if m.State == "pending" || m.State == "sent" || m.State == "done" && m.Status == "" {
			return false
		}
	}
	return true
}

func waWith(ms []messagesandbox.WhatsAppMessage, to string) []messagesandbox.WhatsAppMessage {
	var out []messagesandbox.WhatsAppMessage
	for _, m := range ms {
		if m.To == to {
			out = append(out, m)
		}
	}
	return out
}

// linkPath is the parent page's path in a message's link.
func linkPath(t *testing.T, link string) string {
	t.Helper()
	path, ok := strings.CutPrefix(link, outboxPublicURL)
	if !ok || !strings.HasPrefix(path, "/p/") {
		t.Fatalf("the message's link %q is not the parent page's", link)
	}
	return path
}

// A bank payment's callback, confirmed with the service, writes one receipt per channel
// the parents have (WhatsApp from the student's phone, e-mail from their contacts) with
// the amount, what it paid and a parent page link that opens; the same callback twice
// more writes nothing. Each receipt is audited when it went.
func TestReceiptOnceForABankPayment(t *testing.T) {
	t.Parallel()
	p := startOutbox(t, portaltest.Options{})
	s := seedBills(t, p)
	ctx := t.Context()
	if _, err := p.App.Parents.SetContacts(ctx, auth.SystemActor, "2024001", parents.Input{Name: "Ibu Aminah", Email: "aminah@example.id"}); err != nil {
		t.Fatal(err)
	}
	if err := sandboxPost(p, "/_sandbox/bank-payment", map[string]any{"bill_key": "2024001", "bill_component_list": []string{s.id("SPP Oktober")},
		"merchant_name": "BCA"}); err != nil {
		t.Fatal(err)
	}
	p.AwaitCallbacks(t)
	cbs := p.Sandbox.Callbacks()
	cb := cbs[len(cbs)-1]
	for range 2 { // the service sends it again, twice
		if code, body := postCallback(t, p, cb.Signature, cb.Body); code != http.StatusOK {
			t.Fatalf("the callback again: %d %s", code, body)
		}
	}
	// The same payment confirmed again (another instance's confirmer, a reconcile that
	// hears of it): its key is taken, nothing is written.
	if q, err := p.App.Outbox.Receipt(ctx, outbox.Payment{Ref: cb.RefNumber, NIS: "2024001", Name: "Siti Aminah", Total: 275_000,
		Paid: []string{"SPP Oktober"}}); err != nil || q.Messages != 0 {
		t.Fatalf("the receipt written again: %+v %v", q, err)
	}
	waitUntil(t, "the receipt on both channels", func() bool {
		ms := outboxOf(t, p, "2024001")
		return len(ms) == 2 && ended(ms)
	})
	time.Sleep(300 * time.Millisecond) // anything a resend would have written has had its time
	if ms := outboxOf(t, p, "2024001"); len(ms) != 2 {
		t.Fatalf("%d outbox messages, want 2", len(ms))
	}
	wa := p.WhatsApp.Messages()
	if len(wa) != 1 {
		t.Fatalf("%d WhatsApp messages, want 1: %+v", len(wa), wa)
	}
	amount := i18n.Rupiah(275_000) // SPP Oktober with its late fee
	if m := wa[0]; m.To != "6281200000001" || m.Template != "kuitansi_pembayaran" || len(m.Params) != 4 ||
		m.Params[0] != "Siti Aminah" || m.Params[1] != amount || m.Params[2] != "SPP Oktober" {
		t.Fatalf("the WhatsApp receipt: %+v", m)
	}
	path := linkPath(t, wa[0].Params[3])
	page := p.NewClient(t).Get(path)
	if page.StatusCode != http.StatusOK || !strings.Contains(page.Body, "Siti Aminah") || !strings.Contains(page.Body, "SPP Desember") {
		t.Fatalf("the parent page of the link: %d", page.StatusCode)
	}
	mails := p.Mail.Mails()
	if len(mails) != 1 || len(mails[0].To) != 1 || mails[0].To[0] != "aminah@example.id" || !strings.Contains(mails[0].Text, amount) ||
		!strings.Contains(mails[0].Text, "SPP Oktober") || !strings.Contains(mails[0].Text, outboxPublicURL+path) {
		t.Fatalf("the e-mail receipt: %+v", mails)
	}
	es, _, err := p.DB.ListAudit(ctx, store.AuditFilter{Action: outbox.ActionReceipt, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 {
		t.Fatalf("%d receipt entries, want one a message", len(es))
	}
	for _, e := range es {
		if err := audit.Read(e).Check(); err != nil || e.Args["nis"] != "2024001" || e.Args["total"] != "275000" || e.Outcome != "ok" {
			t.Errorf("receipt entry %+v: %v", e, err)
		}
	}
	// The student page's block: both sent, then delivered and read by the webhook.
	waitUntil(t, "the WhatsApp receipt read", func() bool {
		ms := outboxOf(t, p, "2024001")
		return slices.ContainsFunc(ms, func(m outbox.StudentMessage) bool { return m.Channel == "whatsapp" && m.Status == "read" })
	})
	block := p.SignedIn(t, "finance").Get("/students/2024001").Doc.Find(`[data-testid="student-outbox-row"]`)
	if block.Length() != 2 || !strings.Contains(billsText(block), "dibaca") || !strings.Contains(billsText(block), "aminah@example.id") {
		t.Errorf("the student page's messages: %q", billsText(block))
	}
}

// A payment at the counter writes the receipt at once.
func TestReceiptOfACounterPayment(t *testing.T) {
	t.Parallel()
	p := startOutbox(t, portaltest.Options{})
	s := seedBills(t, p)
	c := p.SignedIn(t, "finance")
	if res := c.Post("/payments", url.Values{"nis": {"2024002"}, "ref": {"KW/2026/11/0009"}, "component": {s.id("SPP November")},
		"total": {"200000"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("pay: %d", res.StatusCode)
	}
	waitUntil(t, "the counter's receipt", func() bool { return len(p.WhatsApp.Messages()) == 1 })
	m := p.WhatsApp.Messages()[0]
	if m.To != "6281200000002" || m.Params[0] != "Budi Santoso" || m.Params[1] != i18n.Rupiah(200_000) || m.Params[2] != "SPP November" {
		t.Fatalf("the receipt: %+v", m)
	}
	linkPath(t, m.Params[3])
}

// At 22:00 the day's pass writes the reminders of what falls due in ReminderDays (3)
// days, and they wait for the sending hours: nothing goes before 06:00, then each goes
// once, naming the bill, its due day and amount. The pass again writes nothing.
func TestReminderBeforeTheDueDateWaitsForTheSendingHours(t *testing.T) {
	t.Parallel()
	p := startOutbox(t, portaltest.Options{})
	seedBills(t, p)
	ctx := t.Context()
	// 24 November, 22:00 in Jakarta: SPP November (2024002) is due on the 27th.
	p.SetNow(time.Date(2026, 11, 24, 15, 0, 0, 0, time.UTC))
	n, err := p.App.Outbox.RunReminders(ctx)
	if err != nil || n != 1 {
		t.Fatalf("the day's reminders: %d, %v", n, err)
	}
	p.App.Outbox.Wake()
	time.Sleep(500 * time.Millisecond)
	if got := p.WhatsApp.Messages(); len(got) != 0 {
		t.Fatalf("a reminder went out at 22:00: %+v", got)
	}
	if ms := outboxOf(t, p, "2024002"); len(ms) != 1 || ms[0].State != "pending" || ms[0].Day != "2026-11-25" {
		t.Fatalf("the reminder waits: %+v", ms)
	}
	p.SetNow(time.Date(2026, 11, 24, 23, 0, 0, 0, time.UTC)) // 06:00 on the 25th
	p.App.Outbox.Wake()
	waitUntil(t, "the reminder at 06:00", func() bool { return len(p.WhatsApp.Messages()) == 1 })
	m := p.WhatsApp.Messages()[0]
	if m.To != "6281200000002" || m.Template != "pengingat_jatuh_tempo" || m.Params[1] != "SPP November" ||
		m.Params[2] != i18n.NewPrinter(i18n.Indonesian, time.UTC).Day(billDay("2026-11-27")) || m.Params[3] != i18n.Rupiah(200_000) {
		t.Fatalf("the reminder: %+v", m)
	}
	if n, err := p.App.Outbox.RunReminders(ctx); err != nil || n != 0 {
		t.Fatalf("the pass again wrote %d (%v)", n, err)
	}
}

// seedArrears creates n students of Kelas 8B, each with a mobile number and one
// component overdue since 1 November, and brings them into the ledger; the components
// by NIS.
func seedArrears(t *testing.T, p *portaltest.Portal, n int) ([]string, map[string]string) {
	t.Helper()
	return seedArrearsIn(t, p, n, "Kelas 8B", 0)
}

// seedArrearsIn is seedArrears in class, numbering the students from first+1.
func seedArrearsIn(t *testing.T, p *portaltest.Portal, n int, class string, first int) ([]string, map[string]string) {
	t.Helper()
	ctx := t.Context()
	var ss []billing.Student
	var in []billing.ComponentInput
	var nis []string
	for i := first; i < first+n; i++ {
		id := fmt.Sprintf("30%05d", i+1)
		nis = append(nis, id)
		ss = append(ss, billing.Student{NIS: id, Name: fmt.Sprintf("Siswa %03d", i+1), Phone: fmt.Sprintf("0813%08d", i+1),
			Description: class})
		in = append(in, billing.ComponentInput{NIS: id, AccountCode: "SPP", Name: "SPP Oktober", Due: billDay("2026-11-01"),
			Expiry: billDay("2027-01-31"), Amount: 150_000})
	}
	if _, err := p.Billing.CreateStudents(ctx, ss); err != nil {
		t.Fatal(err)
	}
	created, err := p.Billing.CreateComponents(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, b := range created {
		ids[b.NIS] = b.ComponentID
	}
	p.SyncLedger(t)
	return nis, ids
}

// The arrears report's selection → a preview of who gets what on which channel and who
// is skipped and why → send: one message each, one audit entry for the batch; the same
// again sends nothing new (one a student a day).
func TestBulkFollowUpWithPreview(t *testing.T) {
	t.Parallel()
	p := startOutbox(t, portaltest.Options{})
	nis, _ := seedArrears(t, p, 6)
	ctx := t.Context()
	// One family opted out of WhatsApp; another has an e-mail too.
	if _, err := p.App.Parents.SetContacts(ctx, auth.SystemActor, nis[0], parents.Input{WhatsAppOptOut: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.App.Parents.SetContacts(ctx, auth.SystemActor, nis[1], parents.Input{Email: "wali2@example.id"}); err != nil {
		t.Fatal(err)
	}
	c := p.SignedIn(t, "finance")
	report := c.Get("/reports/outstanding?class=" + url.QueryEscape("Kelas 8B"))
	form := report.Doc.Find(`[data-testid="outstanding-followups-form"]`)
	if form.Length() != 1 {
		t.Fatal("no follow-up form on the arrears report")
	}
	q := url.Values{}
	form.Find("input[type=hidden]").Each(func(_ int, s *goquery.Selection) { q.Set(s.AttrOr("name", ""), s.AttrOr("value", "")) })
	preview := c.Get("/followups/bulk?" + q.Encode())
	if preview.StatusCode != http.StatusOK {
		t.Fatalf("preview: %d", preview.StatusCode)
	}
	rows := preview.Doc.Find(`[data-testid="outbox-row"]`)
	if rows.Length() != 6 {
		t.Fatalf("%d rows in the preview", rows.Length())
	}
	first := preview.Doc.Find(`[data-testid="outbox-row"][data-nis="` + nis[0] + `"]`)
	if got := billsText(first.Find(`[data-testid="outbox-whatsapp"]`)); !strings.Contains(got, "tidak ingin menerima") {
		t.Errorf("the opted-out family's WhatsApp: %q", got)
	}
	if got := billsText(preview.Doc.Find(`[data-testid="outbox-row"][data-nis="` + nis[1] + `"] [data-testid="outbox-email"]`)); got != "wali2@example.id" {
		t.Errorf("the second family's e-mail: %q", got)
	}
	if got := billsText(preview.Doc.Find(`[data-testid="outbox-summary"]`)); !strings.Contains(got, "6 pesan") {
		t.Errorf("summary %q", got)
	}
	if got := billsText(preview.Doc.Find(`[data-testid="outbox-sample"]`)); !strings.Contains(got, "lewat jatuh tempo") {
		t.Errorf("sample %q", got)
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
	res := c.Post("/followups/bulk", send)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("send: %d", res.StatusCode)
	}
	waitUntil(t, "the follow-ups", func() bool { return len(p.WhatsApp.Messages()) == 5 && len(p.Mail.Mails()) == 1 })
	for _, n := range nis[1:] {
		ms := waWith(p.WhatsApp.Messages(), phoneOf(n))
		if len(ms) != 1 || ms[0].Template != "tunggakan_sekolah" || ms[0].Params[1] != "1" || ms[0].Params[2] != i18n.Rupiah(150_000) {
			t.Errorf("%s's follow-up: %+v", n, ms)
		}
	}
	// The arrears report's "last follow-up" of each family reached, on the channel it went by.
	waitUntil(t, "the follow-ups recorded", func() bool {
		for _, n := range nis {
			if !ended(outboxOf(t, p, n)) {
				return false
			}
		}
		return true
	})
	for i, n := range nis[1:] {
		for _, by := range []string{"whatsapp", "email"}[:1+max(0, 1-i)] { // the second family by both
			if f, err := p.DB.LastFollowUp(ctx, n, by); err != nil || f.Actor != "finance" || f.Components != 1 || f.Total != 150_000 {
				t.Errorf("%s's last follow-up by %s: %+v %v", n, by, f, err)
			}
		}
	}
	if f, err := p.DB.LastFollowUp(ctx, nis[0], ""); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the opted-out family has a follow-up: %+v %v", f, err)
	}
	es, _, _ := p.DB.ListAudit(ctx, store.AuditFilter{Action: outbox.ActionFollowUps, Limit: 10})
	if len(es) != 1 || es[0].Args["messages"] != "6" || es[0].Args["count"] != "5" || es[0].Actor != "finance" {
		t.Fatalf("the batch's audit entries: %+v", es)
	}
	// Again the same day: nothing new, and the preview says why.
	if res := c.Post("/followups/bulk", send); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("send again: %d", res.StatusCode)
	}
	again := c.Get("/followups/bulk?" + q.Encode())
	if got := billsText(again.Doc.Find(`[data-testid="outbox-summary"]`)); !strings.Contains(got, "0 pesan") ||
		!strings.Contains(billsText(again.Doc.Find(`[data-testid="outbox-row"]`)), "sudah dikirim") {
		t.Errorf("the preview after sending: %q", got)
	}
	time.Sleep(300 * time.Millisecond)
	if got := len(p.WhatsApp.Messages()); got != 5 {
		t.Errorf("%d WhatsApp messages after sending twice, want 5", got)
	}
}

// phoneOf is the WhatsApp number (international digits) of seedArrears' student nis.
func phoneOf(nis string) string {
	var i int
	fmt.Sscanf(strings.TrimPrefix(nis, "30"), "%d", &i)
	return fmt.Sprintf("62813%08d", i)
}

// The gateway answers 500 twice, then takes the receipt: it goes once, on the third
// attempt. A 429 with Retry-After: 2 holds every send back for that second, whatever the
// engine's own back-off (5 ms here) and pace (10 ms).
func TestGatewayFailuresRetried(t *testing.T) {
	t.Parallel()
	p := startOutbox(t, portaltest.Options{})
	s := seedBills(t, p)
	p.WhatsApp.Fail(2, http.StatusInternalServerError, 131000, 0)
	if err := sandboxPost(p, "/_sandbox/bank-payment", map[string]any{"bill_key": "2024001", "bill_component_list": []string{s.id("SPP Oktober")}}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the receipt through two 500s", func() bool { return len(p.WhatsApp.Messages()) == 1 })
	waitUntil(t, "the receipt recorded", func() bool { return ended(outboxOf(t, p, "2024001")) })
	if ms := outboxOf(t, p, "2024001"); len(ms) != 1 || ms[0].State != "done" || ms[0].Attempts != 3 {
		t.Fatalf("after two 500s: %+v", ms)
	}

	setPace(t, p, 6000) // 10 ms apart: only the Retry-After holds the retry back
	p.WhatsApp.Fail(1, http.StatusTooManyRequests, 130429, 2)
	start := time.Now()
	c := p.SignedIn(t, "finance")
	if res := c.Post("/payments", url.Values{"nis": {"2024002"}, "ref": {"KW/2026/11/0010"}, "component": {s.id("SPP November")},
		"total": {"200000"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("pay: %d", res.StatusCode)
	}
	waitUntil(t, "the receipt after a 429", func() bool { return len(p.WhatsApp.Messages()) == 2 })
	if d := time.Since(start); d < 2*time.Second {
		t.Errorf("sent again %v after a 429 that asked for 2 seconds", d)
	}
	waitUntil(t, "the second receipt recorded", func() bool { return ended(outboxOf(t, p, "2024002")) })
	if ms := outboxOf(t, p, "2024002"); ms[0].Attempts != 2 {
		t.Errorf("after a 429: %d attempts", ms[0].Attempts)
	}
}

// setPace sets the gateway's limit to perMinute messages.
func setPace(t *testing.T, p *portaltest.Portal, perMinute int) {
	t.Helper()
	if _, err := p.App.Outbox.SaveSettings(t.Context(), auth.SystemActor, outbox.SettingsInput{ReminderDays: "3", HoursFrom: "06:00",
		HoursTo: "20:00", PerMinute: fmt.Sprint(perMinute)}); err != nil {
		t.Fatal(err)
	}
}

// eachOnce fails the test unless every student of nis got exactly one WhatsApp message.
func eachOnce(t *testing.T, got []messagesandbox.WhatsAppMessage, nis []string) {
	t.Helper()
	for _, n := range nis {
		if k := len(waWith(got, phoneOf(n))); k != 1 {
			t.Errorf("%s got %d messages", n, k)
		}
	}
	if len(got) != len(nis) {
		t.Errorf("%d messages to %d students", len(got), len(nis))
	}
}

// The portal stops (as at SIGTERM) in the middle of a paced batch and another process
// takes it up: each message goes exactly once. Then, as if a process had died during
// two calls, one message whose answer had come (its record is there) and one whose answer
// never came are left "sent": after a restart the first is done, the second marked as
// possibly sent, and neither goes again.
func TestRestartMidSendSendsEachOnce(t *testing.T) {
	t.Parallel()
	p := startOutbox(t, portaltest.Options{})
	nis, _ := seedArrears(t, p, 12)
	ctx := t.Context()
	setPace(t, p, 600) // 100 ms apart: the stop comes mid-batch
	q, err := p.App.Outbox.QueueFollowUps(ctx, auth.SystemActor, outbox.FollowUpFilter{Report: followUpReport("Kelas 8B")})
	if err != nil || q.Messages != 12 {
		t.Fatalf("queue: %+v %v", q, err)
	}
	waitUntil(t, "a few sent", func() bool { return len(p.WhatsApp.Messages()) >= 3 })
	p.Stop()
	before := len(p.WhatsApp.Messages())
	if before >= 12 {
		t.Fatalf("all %d went before the stop: nothing was left to resume", before)
	}
	next := p.Instance(t)
	waitUntil(t, "the rest after the restart", func() bool {
		if len(p.WhatsApp.Messages()) < 12 {
			return false
		}
		for _, n := range nis {
			if !ended(outboxOf(t, next, n)) {
				return false
			}
		}
		return true
	})
	time.Sleep(300 * time.Millisecond)
	eachOnce(t, p.WhatsApp.Messages(), nis)

	answered, lost := outboxOf(t, next, nis[0])[0], outboxOf(t, next, nis[1])[0]
	db := p.DB.SQL()
	for _, stmt := range []string{
		`UPDATE outbox_messages SET state = 'sent' WHERE id IN ('` + answered.ID + `', '` + lost.ID + `')`,
		`UPDATE outbox_jobs SET state = 'queued', finished_at = NULL WHERE id = '` + answered.JobID + `'`,
		`DELETE FROM messages WHERE id LIKE '` + lost.ID + `.%'`,
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	next.Stop()
	last := next.Instance(t)
	waitUntil(t, "the two looked at", func() bool {
		a, l := outboxOf(t, last, nis[0])[0], outboxOf(t, last, nis[1])[0]
		return a.State == "done" && l.State == "failed"
	})
	if l := outboxOf(t, last, nis[1])[0]; l.Problem != outbox.ProblemUnsure {
		t.Errorf("the message without an answer: %s %q", l.State, l.Problem)
	}
	time.Sleep(300 * time.Millisecond)
	eachOnce(t, p.WhatsApp.Messages(), nis)
}

// followUpReport is the arrears report's selection of a class.
func followUpReport(class string) ledger.OutstandingFilter {
	return ledger.OutstandingFilter{Class: class, Overdue: true}
}

// Two instances on one PostgreSQL: the same follow-ups queued on both at once and a
// receipt's callback confirmed on both send each message once.
func TestTwoInstancesSendEachMessageOnce(t *testing.T) {
	t.Parallel()
	p := startOutbox(t, portaltest.Options{Postgres: true})
	other := p.Instance(t)
	nis, ids := seedArrears(t, p, 10)
	ctx := t.Context()
	setPace(t, p, 600) // 100 ms apart: both instances look for the batch while it goes
	errs := make(chan error, 2)
	for _, inst := range []*portaltest.Portal{p, other} {
		go func() {
			_, err := inst.App.Outbox.QueueFollowUps(ctx, auth.SystemActor, outbox.FollowUpFilter{Report: followUpReport("Kelas 8B")})
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	p.App.Outbox.Wake()
	other.App.Outbox.Wake()
	waitUntil(t, "the follow-ups", func() bool {
		for _, n := range nis {
			if ms := outboxOf(t, p, n); len(ms) == 0 || !ended(ms) {
				return false
			}
		}
		return true
	})
	time.Sleep(300 * time.Millisecond)
	eachOnce(t, p.WhatsApp.Messages(), nis)

	// A bank payment of the first student: its callback reaches the first instance, and
	// the service sends it again to the second.
	if err := sandboxPost(p, "/_sandbox/bank-payment", map[string]any{"bill_key": nis[0], "bill_component_list": []string{ids[nis[0]]}}); err != nil {
		t.Fatal(err)
	}
	p.AwaitCallbacks(t)
	cbs := p.Sandbox.Callbacks()
	cb := cbs[len(cbs)-1]
	req, _ := http.NewRequest(http.MethodPost, other.URL+"/hooks/payments", bytes.NewReader(cb.Body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(billing.CallbackHeader, cb.Signature)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("the callback on the second instance: %d", res.StatusCode)
	}
	waitUntil(t, "the receipt", func() bool {
		return slices.ContainsFunc(p.WhatsApp.Messages(), func(m messagesandbox.WhatsAppMessage) bool { return m.Template == "kuitansi_pembayaran" })
	})
	time.Sleep(500 * time.Millisecond)
	receipts := 0
	for _, m := range p.WhatsApp.Messages() {
		if m.Template == "kuitansi_pembayaran" {
			receipts++
		}
	}
	if receipts != 1 {
		t.Errorf("%d receipts for one payment on two instances", receipts)
	}
}

// The Cloud API's statuses reach a receipt's row only signed with the app secret: a
// forged "failed" is refused (401) and changes nothing; the signed one is shown.
func TestWebhookStatusOfAReceiptNeedsItsSignature(t *testing.T) {
	t.Parallel()
	p := startOutbox(t, portaltest.Options{})
	s := seedBills(t, p)
	if err := sandboxPost(p, "/_sandbox/bank-payment", map[string]any{"bill_key": "2024001", "bill_component_list": []string{s.id("SPP Oktober")}}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the receipt read", func() bool {
		ms := outboxOf(t, p, "2024001")
		return len(ms) == 1 && ms[0].Status == "read"
	})
	wamid := p.WhatsApp.Messages()[0].ID
	body := []byte(`{"object":"whatsapp_business_account","entry":[{"id":"1","changes":[{"field":"messages","value":{"messaging_product":"whatsapp",` +
		`"metadata":{"phone_number_id":"100000000000001"},"statuses":[{"id":"` + wamid + `","status":"failed","timestamp":"1795402800",` +
		`"recipient_id":"6281200000001","errors":[{"code":131026,"title":"Message undeliverable"}]}]}}]}]}`)
	post := func(sig string) int {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, p.URL+"/hooks/whatsapp", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(whatsapp.SignatureHeader, sig)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := post(whatsapp.Sign("not-the-secret", body)); code != http.StatusUnauthorized {
		t.Fatalf("a forged status: %d", code)
	}
	if ms := outboxOf(t, p, "2024001"); ms[0].Status != "read" {
		t.Fatalf("a forged status moved the receipt to %s", ms[0].Status)
	}
	if code := post(whatsapp.Sign("sandbox-app-secret", body)); code != http.StatusOK {
		t.Fatalf("the signed status: %d", code)
	}
	if ms := outboxOf(t, p, "2024001"); ms[0].Status != "failed" || !strings.Contains(ms[0].StatusError, "undeliverable") {
		t.Fatalf("the signed status: %+v", ms[0])
	}
	row := p.SignedIn(t, "finance").Get("/students/2024001").Doc.Find(`[data-testid="student-outbox-row"]`)
	if got := billsText(row.Find(`[data-testid="student-outbox-status"]`)); got != "gagal" || !strings.Contains(billsText(row), "undeliverable") {
		t.Errorf("the student page's row: %q", billsText(row))
	}
}

// Follow-ups queued at 22:00 wait for 06:00; a family that opts out of WhatsApp
// meanwhile (on the contacts form) gets none, and the student page says why. Their
// receipt is not sent on WhatsApp either.
func TestOptOutHonouredWhenTheMessageGoes(t *testing.T) {
	t.Parallel()
	p := startOutbox(t, portaltest.Options{Now: time.Date(2026, 11, 22, 15, 0, 0, 0, time.UTC)}) // 22:00 in Jakarta
	nis, _ := seedArrears(t, p, 2)
	c := p.SignedIn(t, "finance")
	res := c.Post("/followups/bulk", url.Values{"class": {"Kelas 8B"}, "nis": nis})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("send: %d", res.StatusCode)
	}
	if res := c.Post("/students/"+nis[0]+"/contacts", url.Values{"whatsapp_opt_out": {"on"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("opt out: %d", res.StatusCode)
	}
	p.App.Outbox.Wake()
	time.Sleep(300 * time.Millisecond)
	if len(p.WhatsApp.Messages()) != 0 {
		t.Fatal("a follow-up went out at 22:00")
	}
	p.SetNow(time.Date(2026, 11, 22, 23, 0, 0, 0, time.UTC)) // 06:00
	p.App.Outbox.Wake()
	waitUntil(t, "the follow-ups at 06:00", func() bool { return ended(outboxOf(t, p, nis[0])) && ended(outboxOf(t, p, nis[1])) })
	eachOnce(t, p.WhatsApp.Messages(), nis[1:])
	if ms := outboxOf(t, p, nis[0]); ms[0].State != "skipped" || ms[0].Problem != outbox.ProblemOptedOut {
		t.Fatalf("the opted-out family's follow-up: %+v", ms[0])
	}
	row := c.Get("/students/" + nis[0]).Doc.Find(`[data-testid="student-outbox-row"]`)
	if !strings.Contains(billsText(row.Find(`[data-testid="student-outbox-why"]`)), "tidak ingin menerima") {
		t.Errorf("the student page says %q", billsText(row))
	}
}
