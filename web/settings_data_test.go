package web_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/config"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/store"
)

// The admins' data page: what the ledger holds, the last runs of the sync, the payment
// callbacks (and the hint when payments come but callbacks do not), "reconcile now".
func TestDataSettingsPage(t *testing.T) {
	t.Parallel()
	p, s := startBills(t)
	admin := p.SignedIn(t, "admin")
	res := admin.Get("/settings/data")
	if res.StatusCode != http.StatusOK || res.Doc.Find(`[data-testid="tab-data"][aria-current="page"]`).Length() != 1 {
		t.Fatalf("data page: %d", res.StatusCode)
	}
	if got := billsText(res.Doc.Find(`[data-testid="data-components"]`)); got != "6" {
		t.Errorf("components held %q", got)
	}
	if got := billsText(res.Doc.Find(`[data-testid="data-students"]`)); got != "3" {
		t.Errorf("students held %q", got)
	}
	if got := billsText(res.Doc.Find(`[data-testid="data-last-incremental"]`)); !strings.Contains(got, "22 Nov 2026 10:00 · Berhasil") {
		t.Errorf("last incremental %q", got)
	}
	if got := billsText(res.Doc.Find(`[data-testid="data-fill"]`)); !strings.Contains(got, "Berhasil") {
		t.Errorf("fill %q", got)
	}
	// Without PORTAL_PUBLIC_URL the page says how to get the address (never from the
	// request's Host); with it, the address.
	if res.Doc.Find(`[data-testid="callback-url"]`).Length() != 0 || !strings.Contains(billsText(res.Doc.Find(`[data-testid="callback-url-unset"]`)), "PORTAL_PUBLIC_URL") {
		t.Errorf("callback address without PORTAL_PUBLIC_URL: %q", billsText(res.Doc.Find(`[data-testid="data-callbacks"]`)))
	}
	q := portaltest.Start(t, portaltest.Options{Now: billsNow, Config: func(c *config.Config) { c.PublicURL = "https://portal.sekolah.sch.id" }})
	if got := billsText(q.SignedIn(t, "admin").Get("/settings/data").Doc.Find(`[data-testid="callback-url"]`)); got != "https://portal.sekolah.sch.id/hooks/payments" {
		t.Errorf("callback URL %q", got)
	}
	// A payment in the last week, yet no callback: the hint says what to check.
	if got := billsText(res.Doc.Find(`[data-testid="callbacks-hint"]`)); !strings.Contains(got, "1 pembayaran") || !strings.Contains(got, "operator") {
		t.Errorf("callbacks hint %q", got)
	}
	if n := res.Doc.Find(`[data-testid="data-run"]`).Length(); n < 3 {
		t.Errorf("%d runs listed", n)
	}
	if res.Doc.Find(`#data-settings[hx-get="/settings/data"]`).Length() != 1 {
		t.Error("the page does not keep itself current")
	}

	// Reconcile now: asked, audited, run by the instance holding the sync, listed.
	res = admin.Post("/settings/data/reconcile", confirmYes())
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/settings/data" {
		t.Fatalf("reconcile now: %d", res.StatusCode)
	}
	run := awaitRun(t, p, func(r ledger.Run) bool { return r.Kind == ledger.RunReconcile && r.AskedBy == "admin" })
	if !run.OK {
		t.Errorf("the reconcile: %+v", run)
	}
	if e, _, _ := p.DB.ListAudit(t.Context(), store.AuditFilter{Action: "ledger.reconcile.ask", Limit: 2}); len(e) != 1 || e[0].Actor != "admin" {
		t.Errorf("audit of the request: %+v", e)
	}
	res = admin.Get("/settings/data")
	if got := billsText(res.Doc.Find(`[data-testid="data-last-reconcile"]`)); !strings.Contains(got, "Berhasil") {
		t.Errorf("last reconcile %q", got)
	}
	if got := billsText(res.Doc.Find(`[data-testid="data-run"][data-kind="reconcile"]`).First()); !strings.Contains(got, "diminta oleh Admin Staf") {
		t.Errorf("reconcile row %q", got)
	}

	// A bank payment's callback arrives: the hint goes.
	if err := sandboxPost(p, "/_sandbox/bank-payment", map[string]any{"bill_key": "2024001", "bill_component_list": []string{s.id("SPP Desember")}}); err != nil {
		t.Fatal(err)
	}
	p.AwaitCallbacks(t)
	res = admin.Get("/settings/data")
	if res.Doc.Find(`[data-testid="callbacks-hint"]`).Length() != 0 || !strings.Contains(billsText(res.Doc.Find(`[data-testid="callbacks-received"]`)), "1 notifikasi") {
		t.Errorf("after a callback: %q", billsText(res.Doc.Find(`[data-testid="data-callbacks"]`)))
	}

	// Admins only.
	for _, role := range []string{"finance", "principal"} {
		c := p.SignedIn(t, role)
		if res := c.Get("/settings/data"); res.StatusCode != http.StatusForbidden {
			t.Errorf("%s GET: %d", role, res.StatusCode)
		}
		if res := c.Post("/settings/data/reconcile", confirmYes()); res.StatusCode != http.StatusForbidden {
			t.Errorf("%s POST: %d", role, res.StatusCode)
		}
	}
}

// Two instances on one database: the sync's state is the database's, the same on both;
// a sync asked for on the instance that does not hold the lease is run by the one that
// does.
func TestSyncStateSharedByInstances(t *testing.T) {
	t.Parallel()
	p, _ := startBills(t)
	q := p.Instance(t)
	c := p.SignedIn(t, "finance")
	d := c.On(q)
	if a, b := stext(c.Get("/students"), `[data-testid="sync-summary"]`), stext(d.Get("/students"), `[data-testid="sync-summary"]`); a == "" || a != b {
		t.Errorf("the instances disagree: %q and %q", a, b)
	}
	if res := d.Post("/students/sync", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sync on the second instance: %d", res.StatusCode)
	}
	status := waitSync(t, d, "finance")
	run := awaitRun(t, p, func(r ledger.Run) bool { return r.AskedBy == "finance" })
	if run.Instance != p.App.Sync.Owner() || run.Instance == q.App.Sync.Owner() {
		t.Errorf("the asked run ran on %s; the lease holder is %s", run.Instance, p.App.Sync.Owner())
	}
	if a, b := stext(status, `[data-testid="sync-summary"]`), stext(c.Get("/students"), `[data-testid="sync-summary"]`); a != b {
		t.Errorf("after the sync the instances disagree: %q and %q", a, b)
	}
}

// The first fill of a large school takes minutes; the portal is usable meanwhile: every
// page answers, from what has been read, saying it is still filling and how far it is.
func TestPagesAnswerWhileFilling(t *testing.T) {
	t.Parallel()
	var once sync.Once
	hold := make(chan struct{})
	release := func() { once.Do(func() { close(hold) }) }
	t.Cleanup(release)
	p := portaltest.Start(t, portaltest.Options{Now: reportsNow, Demo: true, NoFirstSync: true,
		Upstream: func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				// The walk's pages past the first 6,000 components wait (the fill writes
				// 5,000 at a time, so 5,000 are in the ledger meanwhile).
				q := r.URL.Query()
				if strings.HasSuffix(r.URL.Path, "/search/biller") && q.Get("limit") == "1000" && q.Get("offset") >= "6000" && len(q.Get("offset")) == 4 {
					select {
					case <-hold:
					case <-r.Context().Done():
					}
				}
				next.ServeHTTP(w, r)
			})
		}})
	deadline := time.Now().Add(30 * time.Second)
	for {
		f, err := p.App.Ledger.Freshness(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if f.FillRead >= 5000 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fill did not get to 5,000: %+v", f)
		}
		time.Sleep(20 * time.Millisecond)
	}
	c := p.SignedIn(t, "admin")
	for _, path := range []string{"/", "/bills", "/bills?state=all&q=a", "/reports/payments", "/reports/outstanding", "/reports/accounts",
		"/students", "/settings/data"} {
		res := c.Get(path)
		sel := `[data-testid="freshness-text"]`
		if path == "/students" {
			sel = `[data-testid="sync-text"]` // the sync's own status, the fill running
		}
		text := billsText(res.Doc.Find(sel))
		if res.StatusCode != http.StatusOK || !strings.HasPrefix(text, "Masih mengisi data: 5") || !strings.Contains(text, "(5.000 dari 9.") {
			t.Errorf("%s while filling: %d %q", path, res.StatusCode, text)
		}
	}
	// The roster's totals would be partial: the list says so instead of showing them.
	if stext(c.Get("/students"), `[data-testid="totals-hint"]`) == "" {
		t.Error("no hint that the totals are still being read")
	}
	release()
	select {
	case <-p.App.Sync.FirstRun():
	case <-time.After(60 * time.Second):
		t.Fatal("the fill did not end")
	}
	if got := billsText(c.Get("/").Doc.Find(`[data-testid="freshness-text"]`)); got != "Terkini · 10.00" {
		t.Errorf("after the fill: %q", got)
	}
}
