package web_test

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/portaltest"
)

// What is billed is what was shown: a confirmation carries the total its page showed, and
// the server, which works the total out again from the template and the ticks, registers
// nothing when the two differ.
func TestRegistrationBillsWhatWasShown(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: regNow})
	tpl := createTemplate(t, p, p.SignedIn(t, "admin"), "Pendaftaran SMP 2027")
	c := p.SignedIn(t, "finance")

	res := c.Post("/registrations/new", with(student("2027040"), "template", tpl.ID, "action", "next"))
	shown := value(res, "shown_total")
	if shown == "" || res.Doc.Find(`form[data-sum] [data-sum-output]`).Length() != 1 || res.Doc.Find(`[data-sum-fixed]`).Length() == 0 {
		t.Fatalf("the review cannot keep its total: shown_total %q", shown)
	}
	// Every optional line unticked, but the total of the page before (the script did not
	// run, or was tampered with): refused, and the review shows the right total.
	confirm := with(student("2027040"), "template", tpl.ID, "fingerprint", value(res, "fingerprint"), "shown_total", shown, "action", "confirm")
	res = c.Post("/registrations/new", confirm)
	alert := text(res, `[data-testid="wizard-alert"]`)
	if res.StatusCode != http.StatusConflict || !strings.Contains(alert, "Tidak ada yang didaftarkan") {
		t.Fatalf("stale total: %d %q", res.StatusCode, alert)
	}
	if _, err := p.Billing.Student(t.Context(), "2027040"); !errors.Is(err, billing.ErrNotFound) {
		t.Fatalf("registered at a total that was not shown: %v", err)
	}
	right := value(res, "shown_total")
	if right == shown || text(res, `[data-testid="review-total"]`) == "" {
		t.Fatalf("the review still shows %q", right)
	}
	// Confirmed at the total now shown: registered, at that total.
	res = c.Post("/registrations/new", with(confirm, "shown_total", right, "fingerprint", value(res, "fingerprint")))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("confirm: %d %q", res.StatusCode, text(res, `[data-testid="wizard-alert"]`))
	}
	rec, err := p.DB.RegistrationByBillID(t.Context(), strings.TrimPrefix(res.Header.Get("Location"), "/registrations/"))
	if err != nil || strconv.FormatInt(rec.Total, 10) != right {
		t.Fatalf("billed %d, shown %s: %v", rec.Total, right, err)
	}
}
