package web_test

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/config"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
)

// allStates are every state of an application.
var allStates = []string{string(registration.StateNew), string(registration.StateSending), string(registration.StatePending),
	string(registration.StateRegistered), string(registration.StateRejected)}

// applications reads every application of the portal, oldest first.
func applications(t *testing.T, p *portaltest.Portal) []registration.PublicApplication {
	t.Helper()
	recs, err := p.DB.RegistrationApplications(t.Context(), allStates, true, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []registration.PublicApplication
	for _, r := range recs {
		a, err := p.App.Registration.Application(t.Context(), r.ID)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
	return out
}

// settleApplications runs the intake until no application is new or being sent, and
// returns them all, oldest first.
func settleApplications(t *testing.T, p *portaltest.Portal) []registration.PublicApplication {
	t.Helper()
	return untilApplications(t, p, func(apps []registration.PublicApplication) bool {
		for _, a := range apps {
			if a.State == registration.StateNew || a.State == registration.StateSending {
				return false
			}
		}
		return true
	})
}

// untilApplications runs the intake until done says the applications are as wanted (the
// background intake may hold the lease meanwhile: then it is waited for), and returns
// them, oldest first.
func untilApplications(t *testing.T, p *portaltest.Portal, done func([]registration.PublicApplication) bool) []registration.PublicApplication {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if err := p.App.Intake.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		apps := applications(t, p)
		if done(apps) {
			return apps
		}
		if time.Now().After(deadline) {
			t.Fatalf("the applications are not as wanted after 20s: %+v", apps)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// thanksShape is the thank-you page's text with its reference taken out: what a parent
// reads, which must not depend on whether the number existed.
func thanksShape(res *portaltest.Response) string {
	ref := text(res, `[data-testid="public-reference"]`)
	return strconv.Itoa(res.StatusCode) + " " + strings.Join(strings.Fields(strings.ReplaceAll(text(res, `[data-testid="public-thanks"]`), ref, "PPDB-…")), " ")
}

// regNumber is the school's registration number n of regNow's year, with the default
// prefix.
func regNumber(n int) string {
	return registration.PublicNumber(registration.DefaultNumberPrefix, regNow.Year(), int64(n))
}

// from is the header pair that makes a request come from addr through the trusted proxy.
func from(addr string) []string { return []string{"X-Forwarded-For", addr} }

// TestPublicApplicationsCapAndDecisions: past the form's hourly cap, submissions from many
// addresses are kept for staff and the parent is told the same as before; an address, an
// IPv6 one by its /64, is held to its own limit beside it. Finance staff approve one (it
// goes to the service as the form would have sent it) and reject one with a reason, both
// audited; an existing NIS cannot be approved; a principal sees none of it.
func TestPublicApplicationsCapAndDecisions(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: regNow, Config: func(c *config.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	}})
	admin := p.SignedIn(t, "admin")
	tpl := createTemplate(t, p, admin, "Pendaftaran SMP 2027")
	// Bad caps are refused on their field, the values kept.
	for _, bad := range []string{"-1", "dua", "1001"} {
		res := admin.Post("/settings/registration", url.Values{"enabled": {"1"}, "template": {tpl.ID}, "hourly_cap": {bad}})
		if res.StatusCode != http.StatusUnprocessableEntity || text(res, `[data-testid="error-hourly_cap"]`) == "" || value(res, "hourly_cap") != bad {
			t.Fatalf("cap %q: %d", bad, res.StatusCode)
		}
	}
	if res := admin.Get("/settings/registration"); value(res, "hourly_cap") != "30" {
		t.Fatalf("default cap %q", value(res, "hourly_cap"))
	}
	if res := admin.Post("/settings/registration", url.Values{"enabled": {"1"}, "template": {tpl.ID}, "hourly_cap": {"2"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("cap 2: %d", res.StatusCode)
	}

	// Four parents from four addresses: two go to the service, two wait for staff, and all
	// four read the same page.
	var shapes []string
	for i := range 4 {
		c := p.NewClient(t)
		c.Get("/register", from("203.0.113."+strconv.Itoa(i+1))...)
		res := c.Post("/register", publicForm(), from("203.0.113."+strconv.Itoa(i+1))...)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("parent %d: %d\n%s", i+1, res.StatusCode, res.Body)
		}
		shapes = append(shapes, thanksShape(c.Get("/register/thanks")))
		settleApplications(t, p) // in order: the cap counts those sent
	}
	for i, s := range shapes {
		if s != shapes[0] {
			t.Fatalf("parent %d read\n%s\nnot\n%s", i+1, s, shapes[0])
		}
	}
	apps := settleApplications(t, p)
	for i, a := range apps {
		want, hold := registration.StateRegistered, registration.Hold("")
		if i >= 2 {
			want, hold = registration.StatePending, registration.HoldOverCap
		}
		if a.State != want || a.Hold != hold || a.IP != "203.0.113."+strconv.Itoa(i+1) {
			t.Fatalf("application %d: %s %s from %s, want %s %s", i+1, a.State, a.Hold, a.IP, want, hold)
		}
	}
	if _, err := p.Billing.Student(t.Context(), regNumber(3)); !errors.Is(err, billing.ErrNotFound) {
		t.Fatalf("an application past the cap reached the service: %v", err)
	}

	// One IPv6 subscriber changing addresses within its /64 is one address to the limit.
	ipv6 := p.NewClient(t)
	ipv6.Get("/register")
	for i := range 5 {
		if res := ipv6.Post("/register", publicForm(), from("2001:db8:7:8::"+strconv.Itoa(i+1))...); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("IPv6 %d: %d", i+1, res.StatusCode)
		}
	}
	if res := ipv6.Post("/register", publicForm(), from("2001:db8:7:8:ffff::9")...); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("the 6th from the same /64: %d", res.StatusCode)
	}
	if res := ipv6.Post("/register", publicForm(), from("2001:db8:7:9::1")...); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("another /64: %d", res.StatusCode)
	}
	apps = settleApplications(t, p)
	if len(apps) != 10 {
		t.Fatalf("%d applications, want 10", len(apps))
	}
	// And a number the service holds already (staff made a student with the school's
	// next number by hand), past the cap or not, waits for staff as "the NIS exists".
	p.SetNow(regNow.Add(2 * time.Hour))
	if _, err := p.Billing.CreateStudent(t.Context(), billing.Student{NIS: regNumber(11), Name: "Raka Pratama"}); err != nil {
		t.Fatal(err)
	}
	c := p.NewClient(t)
	c.Get("/register", from("198.51.100.7")...)
	c.Post("/register", publicForm(), from("198.51.100.7")...)
	apps = settleApplications(t, p)
	known := apps[len(apps)-1]
	if known.State != registration.StatePending || known.Hold != registration.HoldNISKnown {
		t.Fatalf("existing NIS: %s %s", known.State, known.Hold)
	}

	// The staff's list: a principal may not see it.
	if res := p.SignedIn(t, "principal").Get("/registrations/applications"); res.StatusCode != http.StatusForbidden {
		t.Fatalf("principal: %d", res.StatusCode)
	}
	fin := p.SignedIn(t, "finance")
	res := fin.Get("/registrations/applications")
	if res.StatusCode != http.StatusOK || res.Doc.Find(`[data-testid="application"]`).Length() != 9 ||
		!strings.Contains(text(res, `[data-testid="applications-held"]`), "9") ||
		res.Doc.Find(`[data-testid="nav-applications"][aria-current="page"]`).Length() != 1 {
		t.Fatalf("list: %d, %d waiting\n%s", res.StatusCode, res.Doc.Find(`[data-testid="application"]`).Length(), res.Body)
	}
	card := func(res *portaltest.Response, ref string) string {
		return text(res, `[data-testid="application"][data-ref="`+ref+`"]`)
	}
	if !strings.Contains(card(res, apps[2].Reference), "Melewati batas per jam") || !strings.Contains(card(res, known.Reference), "NIS sudah ada") {
		t.Fatalf("holds not said:\n%s\n%s", card(res, apps[2].Reference), card(res, known.Reference))
	}

	// Approve one past the cap: it goes to the service as the form would have.
	res = fin.Post("/registrations/applications/"+apps[2].ID+"/approve", nil)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("approve: %d\n%s", res.StatusCode, res.Body)
	}
	if s, err := p.Billing.Student(t.Context(), regNumber(3)); err != nil || s.Description != "Pendaftaran SMP 2027" {
		t.Fatalf("approved, at the service: %+v %v", s, err)
	}
	if a, _ := p.App.Registration.Application(t.Context(), apps[2].ID); a.State != registration.StateRegistered || a.Auto ||
		a.DecidedBy != "finance" || a.BillID == "" {
		t.Fatalf("approved: %+v", a)
	}
	if e := auditEntries(t, p, registration.ActionApplicationApprove); len(e) != 1 || e[0].Actor != "finance" || e[0].Args["application"] != apps[2].Reference {
		t.Fatalf("approve audit = %+v", e)
	}
	if e := auditEntries(t, p, changes.ActionCheckout); e[0].Actor != "finance" || e[0].Args["nis"] != regNumber(3) {
		t.Fatalf("checkout audit = %+v", e[0])
	}
	// Twice: it is decided already.
	if res := fin.Post("/registrations/applications/"+apps[2].ID+"/approve", nil); res.StatusCode != http.StatusConflict ||
		text(res, `[data-testid="applications-alert"]`) == "" {
		t.Fatalf("approve twice: %d", res.StatusCode)
	}
	// An existing NIS cannot be approved: said, and it stays waiting.
	res = fin.Post("/registrations/applications/"+known.ID+"/approve", nil)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(text(res, `[data-testid="applications-alert"]`), "sudah ada di layanan pembayaran") {
		t.Fatalf("approve an existing NIS: %d %q", res.StatusCode, text(res, `[data-testid="applications-alert"]`))
	}
	if a, _ := p.App.Registration.Application(t.Context(), known.ID); a.State != registration.StatePending || a.Hold != registration.HoldNISKnown {
		t.Fatalf("after a refused approval: %s %s", a.State, a.Hold)
	}

	// Reject it: a reason is needed, the form shown again open with what was typed.
	res = fin.Post("/registrations/applications/"+known.ID+"/reject", url.Values{"reason": {"  "}})
	if res.StatusCode != http.StatusUnprocessableEntity || text(res, `[data-testid="error-reason"]`) == "" ||
		res.Doc.Find(`[data-ref="`+known.Reference+`"] details[open]`).Length() != 1 {
		t.Fatalf("reject without a reason: %d", res.StatusCode)
	}
	res = fin.Post("/registrations/applications/"+known.ID+"/reject", url.Values{"reason": {"NIS milik siswa lain; orang tua dihubungi"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("reject: %d\n%s", res.StatusCode, res.Body)
	}
	e := auditEntries(t, p, registration.ActionApplicationReject)
	if len(e) != 1 || e[0].Actor != "finance" || e[0].Args["reason"] != "NIS milik siswa lain; orang tua dihubungi" {
		t.Fatalf("reject audit = %+v", e)
	}
	res = fin.Get("/registrations/applications")
	if res.Doc.Find(`[data-testid="application"]`).Length() != 7 ||
		!strings.Contains(text(res, `[data-testid="application-decided"][data-ref="`+known.Reference+`"]`), "NIS milik siswa lain") {
		t.Fatalf("after the decisions:\n%s", res.Body)
	}
	// The audit log says both in words.
	res = admin.Get("/audit")
	if body := text(res, "table"); !strings.Contains(body, "Pendaftaran online disetujui") || !strings.Contains(body, "Pendaftaran online ditolak") ||
		!strings.Contains(body, "pendaftaran "+known.Reference) {
		t.Fatalf("audit page:\n%s", body)
	}
}

// TestPublicFormNeverAsksTheService: the form's answer does not wait for the service:
// with the service down, parents are answered at once with the school's next numbers, a
// number the service holds already (a student staff made by hand) waits for staff as
// such, and the intake sends the other once the service is back.
func TestPublicFormNeverAsksTheService(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: regNow})
	admin := p.SignedIn(t, "admin")
	tpl := createTemplate(t, p, admin, "Pendaftaran SMP 2027")
	admin.Post("/settings/registration", url.Values{"enabled": {"1"}, "template": {tpl.ID}})
	// Staff made a student with the school's second number by hand.
	if _, err := p.Billing.CreateStudent(t.Context(), billing.Student{NIS: regNumber(2), Name: "Raka Pratama"}); err != nil {
		t.Fatal(err)
	}
	c := p.NewClient(t)
	c.Get("/register")
	c.Post("/register", publicForm())
	settleApplications(t, p)

	p.Sandbox.SetFaults(sandbox.Faults{ErrorRate: 1, Status: 503})
	var shapes []string
	for i := range 2 {
		v := p.NewClient(t)
		v.Get("/register")
		res := v.Post("/register", publicForm())
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/register/thanks" {
			t.Fatalf("parent %d with the service down: %d", i+2, res.StatusCode)
		}
		thanks := v.Get("/register/thanks")
		if got := text(thanks, `[data-testid="public-reference"]`); got != regNumber(i+2) {
			t.Fatalf("parent %d's number %q, want %q", i+2, got, regNumber(i+2))
		}
		shapes = append(shapes, thanksShape(thanks))
	}
	if shapes[0] != shapes[1] {
		t.Fatalf("answered differently:\n%s\n%s", shapes[0], shapes[1])
	}
	// The service down, both wait; once back, the number the service holds waits for
	// staff as "the NIS exists", the other is sent.
	p.Sandbox.SetFaults(sandbox.Faults{})
	apps := settleApplications(t, p)
	if apps[1].Hold != registration.HoldNISKnown || apps[2].State != registration.StateRegistered {
		t.Fatalf("once back: %s %s, %s", apps[1].State, apps[1].Hold, apps[2].State)
	}
}

// TestIntakeLooksForUnansweredCalls: an application left being sent (the call got no
// answer, or the process died during it) is settled by asking the service once the call
// can no longer land: registered when the student is there, sent again when not, held
// as not sent when a person had approved it.
func TestIntakeLooksForUnansweredCalls(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: regNow})
	admin := p.SignedIn(t, "admin")
	tpl := createTemplate(t, p, admin, "Pendaftaran SMP 2027")
	admin.Post("/settings/registration", url.Values{"enabled": {"1"}, "template": {tpl.ID}, "hourly_cap": {"0"}})
	for range 3 {
		c := p.NewClient(t)
		c.Get("/register")
		c.Post("/register", publicForm())
	}
	apps := settleApplications(t, p)
	for _, a := range apps {
		if a.State != registration.StatePending || a.Hold != registration.HoldReview {
			t.Fatalf("cap 0: %s %s", a.State, a.Hold)
		}
	}
	// The first's call landed (the student is at the service), the second's did not (the
	// intake's), the third's did not (a person's): all three left being sent a while ago.
	if _, err := p.App.Writer.CreateStudents(t.Context(), registration.PublicActor("127.0.0.1"),
		[]billing.Student{{NIS: regNumber(1), Name: "Dewi Anggraini"}}, store.SourceRegistration); err != nil {
		t.Fatal(err)
	}
	sent := regNow.Add(-2 * time.Hour)
	for i, a := range apps {
		moved, err := p.DB.MoveRegistrationApplication(t.Context(), store.ApplicationChange{ID: a.ID, From: []string{string(registration.StatePending)},
			To: string(registration.StateSending), SentAt: sent, Auto: i < 2, At: sent})
		if err != nil || !moved {
			t.Fatalf("move %d: %v %v", i, moved, err)
		}
	}
	admin.Post("/settings/registration", url.Values{"enabled": {"1"}, "template": {tpl.ID}, "hourly_cap": {"30"}})
	apps = settleApplications(t, p)
	if apps[0].State != registration.StateRegistered || apps[1].State != registration.StateRegistered || !apps[1].Auto ||
		apps[2].State != registration.StatePending || apps[2].Hold != registration.HoldNotSent {
		t.Fatalf("settled: %s, %s, %s %s", apps[0].State, apps[1].State, apps[2].State, apps[2].Hold)
	}
	if _, err := p.Billing.Student(context.WithoutCancel(t.Context()), regNumber(2)); err != nil {
		t.Fatalf("sent again: %v", err)
	}
	if _, err := p.Billing.Student(t.Context(), regNumber(3)); !errors.Is(err, billing.ErrNotFound) {
		t.Fatalf("a person's approval was sent again without them: %v", err)
	}
}
