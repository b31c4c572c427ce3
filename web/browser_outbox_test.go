package web_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/outbox"
	"github.com/sekolah/portal/internal/portaltest"
)

// TestBrowserBulkFollowUp: on a laptop and on a phone, a finance officer goes from the
// arrears report of a class to the follow-ups' preview (who gets what, where, who is
// skipped and why), reads it without scrolling sideways, and sends; the report says what
// was queued and the parents get one message each.
func TestBrowserBulkFollowUp(t *testing.T) {
	t.Parallel()
	p := startOutbox(t, portaltest.Options{})
	laptop, _ := seedArrearsIn(t, p, 3, "Kelas 8B", 0)
	phone, _ := seedArrearsIn(t, p, 2, "Kelas 9A", 10)
	b := p.NewBrowser(t)
	b.SignIn("finance", portaltest.Password)
	for _, c := range []struct {
		w, h  int64
		class string
		nis   []string
	}{{1366, 768, "Kelas 8B", laptop}, {390, 844, "Kelas 9A", phone}} {
		b.Do(chromedp.EmulateViewport(c.w, c.h))
		b.Visit("/reports/outstanding?class=" + url.QueryEscape(c.class))
		b.WaitVisible(`[data-testid="outstanding-followups"]`)
		if sideways(b) {
			t.Errorf("%d px: the arrears report with its follow-ups button scrolls sideways", c.w)
		}
		b.Click(`[data-testid="outstanding-followups"]`)
		b.WaitVisible(`[data-testid="outbox-plan"]`)
		if n := b.Count(`[data-testid="outbox-row"]`); n != len(c.nis) {
			t.Errorf("%d px: %d rows in the preview, want %d", c.w, n, len(c.nis))
		}
		if got := b.Text(`[data-testid="outbox-summary"]`); !strings.Contains(got, "pesan") {
			t.Errorf("%d px: summary %q", c.w, got)
		}
		if sideways(b) {
			t.Errorf("%d px: the preview scrolls sideways", c.w)
		}
		b.Screenshot("outbox-followups-" + map[int64]string{1366: "1366", 390: "390"}[c.w])
		b.Click(`[data-testid="outbox-send"]`)
		b.WaitVisible(`[data-testid="outstanding-table"]`)
		if !strings.Contains(b.Location(), "/reports/outstanding") {
			t.Errorf("%d px: after sending, at %s", c.w, b.Location())
		}
		if got := b.Text(`[data-testid="flash"]`); !strings.Contains(got, "antrean") {
			t.Errorf("%d px: the report says %q", c.w, got)
		}
		b.Screenshot("outbox-followups-sent-" + map[int64]string{1366: "1366", 390: "390"}[c.w])
		waitUntil(t, "the follow-ups of "+c.class, func() bool { return len(waWithAny(p, c.nis)) == len(c.nis) })
	}
}

// waWithAny are the WhatsApp messages to any of the students nis.
func waWithAny(p *portaltest.Portal, nis []string) []string {
	var out []string
	for _, n := range nis {
		for range waWith(p.WhatsApp.Messages(), phoneOf(n)) {
			out = append(out, n)
		}
	}
	return out
}

// sideways says whether the page is wider than the viewport.
func sideways(b *portaltest.Browser) bool {
	return portaltest.Get(b, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`))
}

// TestBrowserOutboxPages: the student page's block of messages to the parents (after a
// follow-up went) and Settings → Messages' sending form, each read on a laptop and a
// phone without scrolling sideways.
func TestBrowserOutboxPages(t *testing.T) {
	t.Parallel()
	p := startOutbox(t, portaltest.Options{})
	nis, _ := seedArrearsIn(t, p, 1, "Kelas 8C", 30)
	if _, err := p.App.Outbox.QueueFollowUps(t.Context(), auth.SystemActor, outbox.FollowUpFilter{Report: followUpReport("Kelas 8C")}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the follow-up", func() bool { return ended(outboxOf(t, p, nis[0])) })
	b := p.NewBrowser(t)
	b.SignIn("admin", portaltest.Password)
	for _, w := range []struct{ w, h int64 }{{1366, 768}, {390, 844}} {
		b.Do(chromedp.EmulateViewport(w.w, w.h))
		b.Visit("/students/" + nis[0])
		b.WaitVisible(`[data-testid="student-outbox"]`)
		if n := b.Count(`[data-testid="student-outbox-row"]`); n != 1 {
			t.Errorf("%d px: %d messages on the student page, want 1", w.w, n)
		}
		if sideways(b) {
			t.Errorf("%d px: the student page scrolls sideways", w.w)
		}
		b.Screenshot(fmt.Sprintf("outbox-student-%d", w.w))
		b.Visit("/settings/messages")
		b.WaitVisible(`[data-testid="outbox-settings"]`)
		if sideways(b) {
			t.Errorf("%d px: Settings → Messages scrolls sideways", w.w)
		}
		b.Screenshot(fmt.Sprintf("outbox-settings-%d", w.w))
	}
}

// TestBrowserClassNotices: on a laptop and on a phone, a finance officer opens the term's
// notices from the navigation's page, chooses a class and the term, reads the preview
// without scrolling sideways, and sends; the page says what was queued, the parents get
// one notice each, and the preview then says each was sent already.
func TestBrowserClassNotices(t *testing.T) {
	t.Parallel()
	p := startOutbox(t, portaltest.Options{})
	laptop, _ := seedArrearsIn(t, p, 3, "Kelas 8B", 0)
	phone, _ := seedArrearsIn(t, p, 2, "Kelas 9A", 10)
	b := p.NewBrowser(t)
	b.SignIn("finance", portaltest.Password)
	for _, c := range []struct {
		w, h  int64
		class string
		nis   []string
	}{{1366, 768, "Kelas 8B", laptop}, {390, 844, "Kelas 9A", phone}} {
		size := map[int64]string{1366: "1366", 390: "390"}[c.w]
		b.Do(chromedp.EmulateViewport(c.w, c.h))
		b.Visit("/notices")
		b.WaitVisible(`[data-testid="notices-form"]`)
		if b.Count(`[data-testid="outbox-plan"]`) != 0 {
			t.Errorf("%d px: a preview before a class was chosen", c.w)
		}
		b.Do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector('[data-testid="notices-class"]').value = %q`, c.class)))
		b.Click(`[data-testid="notices-preview"]`)
		b.WaitVisible(`[data-testid="outbox-plan"]`)
		if n := b.Count(`[data-testid="outbox-row"]`); n != len(c.nis) {
			t.Errorf("%d px: %d rows in the preview, want %d", c.w, n, len(c.nis))
		}
		if got := b.Text(`[data-testid="outbox-summary"]`); !strings.Contains(got, fmt.Sprintf("%d pesan", len(c.nis))) {
			t.Errorf("%d px: summary %q", c.w, got)
		}
		if sideways(b) {
			t.Errorf("%d px: the notices' preview scrolls sideways", c.w)
		}
		b.Screenshot("notices-preview-" + size)
		b.Click(`[data-testid="outbox-send"]`)
		b.WaitVisible(`[data-testid="flash"]`)
		if got := b.Text(`[data-testid="flash"]`); !strings.Contains(got, "antrean") {
			t.Errorf("%d px: after sending the page says %q", c.w, got)
		}
		// Back on the same class and term: nobody is sent the notice again.
		if got := b.Text(`[data-testid="outbox-summary"]`); !strings.Contains(got, "0 pesan") {
			t.Errorf("%d px: the preview after sending says %q", c.w, got)
		}
		b.Screenshot("notices-sent-" + size)
		waitUntil(t, "the notices of "+c.class, func() bool { return len(waWithAny(p, c.nis)) == len(c.nis) })
	}
}
