package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/sandbox"
)

// serviceDown makes the portal's sandbox answer 503 to every call (its own /_sandbox
// routes, where banks pay, keep working), or answer again.
func serviceDown(t *testing.T, p *portaltest.Portal, down bool) {
	t.Helper()
	faults := map[string]any{}
	if down {
		faults = map[string]any{"error_rate": 1, "status": 503}
	}
	if err := sandboxPost(p, "/_sandbox/faults", faults); err != nil {
		t.Fatal(err)
	}
}

// awaitConfirmed waits, however long it takes, until no payment callback of p's ledger
// waits for the service's confirmation (the test's own timeout is the bound).
func awaitConfirmed(t *testing.T, p *portaltest.Portal) {
	t.Helper()
	for {
		u, err := p.App.Ledger.UnconfirmedPayments(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if u.Count == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// While the service does not answer, a bank's callback is stored and answered 200, and
// the pages say that a payment was announced but not confirmed: the dashboard counts it
// in no figure, the bills list still has the bill unpaid, the data page says what waits
// and why. Once the service answers, the payment is confirmed and everywhere.
func TestCallbackWaitsForTheService(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			p := portaltest.Start(t, portaltest.Options{Now: billsNow, Postgres: engine == "postgres"})
			s := seedBills(t, p)
			c := p.SignedIn(t, "finance")
			oktober := s.id("SPP Oktober")

			serviceDown(t, p, true)
			if err := sandboxPost(p, "/_sandbox/bank-payment", map[string]any{"bill_key": "2024001", "bill_component_list": []string{oktober},
				"merchant_name": "BCA"}); err != nil {
				t.Fatal(err)
			}
			p.AwaitCallbacks(t)
			cbs := p.Sandbox.Callbacks()
			if cb := cbs[len(cbs)-1]; !cb.Delivered || len(cb.Attempts) != 1 {
				t.Fatalf("the notice was not answered 200 at once: %+v", cb.Attempts)
			}
			dash := c.Get("/")
			if got := billsText(dash.Doc.Find(`[data-testid="unconfirmed-payments"]`)); !strings.Contains(got, "1 pembayaran dari bank (Rp 275.000)") ||
				!strings.Contains(got, "belum dikonfirmasi") {
				t.Errorf("the dashboard's notice %q", got)
			}
			if got := billsText(dash.Doc.Find(`[data-testid="card-collected-today"] [data-testid="value"]`)); got != "Rp 0" {
				t.Errorf("collected today before the confirmation: %q", got)
			}
			if row := billRow(c.Get("/bills").Doc, oktober); row.Length() != 1 || row.AttrOr("data-status", "") == "paid" {
				t.Errorf("the bills list before the confirmation: %q", row.AttrOr("data-status", "(missing)"))
			}
			if billRow(c.Get("/bills?state=paid").Doc, oktober).Length() != 0 {
				t.Error("paid on the bills list before the confirmation")
			}
			data := p.SignedIn(t, "admin").Get("/settings/data").Doc
			if got := billsText(data.Find(`[data-testid="callbacks-waiting"]`)); !strings.Contains(got, "1 notifikasi menunggu konfirmasi") ||
				!strings.Contains(got, "layanan pembayaran tidak menjawab") {
				t.Errorf("the data page's waiting %q", got)
			}

			serviceDown(t, p, false)
			awaitConfirmed(t, p)
			dash = c.Get("/")
			if n := dash.Doc.Find(`[data-testid="unconfirmed-payments"]`).Length(); n != 0 {
				t.Error("the notice stays after the confirmation")
			}
			if got := billsText(dash.Doc.Find(`[data-testid="card-collected-today"] [data-testid="value"]`)); got != "Rp 275.000" {
				t.Errorf("collected today after the confirmation: %q", got)
			}
			if row := billRow(c.Get("/bills?state=paid").Doc, oktober); row.AttrOr("data-status", "") != "paid" {
				t.Error("not paid on the bills list after the confirmation")
			}
		})
	}
}

// A callback stored by an instance that stops before the service confirmed it is
// confirmed by the next instance to start, from the stored body.
func TestCallbackConfirmedAfterARestart(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			p := portaltest.Start(t, portaltest.Options{Now: billsNow, Postgres: engine == "postgres"})
			s := seedBills(t, p)
			serviceDown(t, p, true)
			if err := sandboxPost(p, "/_sandbox/bank-payment", map[string]any{"bill_key": "2024002", "bill_component_list": []string{s.id("SPP November")}}); err != nil {
				t.Fatal(err)
			}
			p.AwaitCallbacks(t)
			if u, _ := p.App.Ledger.UnconfirmedPayments(t.Context()); u.Count != 1 {
				t.Fatalf("unconfirmed %+v", u)
			}
			p.Stop()
			serviceDown(t, p, false)
			q := p.Instance(t)
			awaitConfirmed(t, q)
			row := billRow(q.SignedIn(t, "finance").Get("/bills?state=paid").Doc, s.id("SPP November"))
			if row.AttrOr("data-status", "") != "paid" || !strings.Contains(billsText(row), "Rp 200.000") {
				t.Errorf("after the restart: %q", billsText(row))
			}
			stored, err := q.App.Ledger.Callbacks(t.Context(), 0)
			if err != nil || len(stored) != 1 || stored[0].Status != ledger.CallbackConfirmed || stored[0].Attempts < 2 {
				t.Errorf("stored %+v %v", stored, err)
			}
		})
	}
}

// A bank payment reaches the dashboard on the callback's own round trip: no sync runs
// between the payment and the figure (the next one is an hour away), and an open
// dashboard's next poll gets the new figures.
func TestCallbackReachesTheDashboardWithoutASync(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: billsNow, Sync: func(c *ledger.SyncConfig) { c.Every = time.Hour }})
	s := seedBills(t, p)
	c := p.SignedIn(t, "principal")
	live := c.Get("/").Doc.Find("#dashboard").AttrOr("hx-get", "")
	runs, err := p.App.Ledger.Runs(t.Context(), "", 100)
	if err != nil {
		t.Fatal(err)
	}
	if err := sandboxPost(p, "/_sandbox/bank-payment", map[string]any{"bill_key": "2024002", "bill_component_list": []string{s.id("SPP November")},
		"merchant_name": "Alfamart"}); err != nil {
		t.Fatal(err)
	}
	card := `[data-testid="card-collected-today"] [data-testid="value"]`
	for billsText(c.Get("/").Doc.Find(card)) != "Rp 200.000" {
		time.Sleep(10 * time.Millisecond) // no deadline: what matters is that no sync brought it
	}
	if after, _ := p.App.Ledger.Runs(t.Context(), "", 100); len(after) != len(runs) {
		t.Errorf("%d sync runs before the payment showed, %d after", len(runs), len(after))
	}
	res := c.Get(live, "HX-Request", "true")
	if res.StatusCode != http.StatusOK || billsText(res.Doc.Find(card)) != "Rp 200.000" {
		t.Errorf("an open dashboard's next poll: %d %q", res.StatusCode, billsText(res.Doc.Find(card)))
	}
}

// The embedded sandbox's demo parents pay at banks on their own; each payment's callback
// comes to the portal's route, is confirmed with the service, and the ledger holds it as
// the service does.
func TestDemoBankPaymentsAreConfirmed(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: reportsNow, Demo: true,
		Sandbox: func(o *sandbox.Options) { o.BankPayments = 20 * time.Millisecond }})
	ctx := t.Context()
	var stored []ledger.StoredCallback
	for len(stored) < 3 {
		time.Sleep(20 * time.Millisecond)
		var err error
		if stored, err = p.App.Ledger.Callbacks(ctx, 0); err != nil {
			t.Fatal(err)
		}
	}
	awaitConfirmed(t, p)
	if stored, _ = p.App.Ledger.Callbacks(ctx, 0); len(stored) < 3 {
		t.Fatalf("%d callbacks", len(stored))
	}
	for _, c := range stored {
		if c.Status != ledger.CallbackConfirmed || c.Service.Components == 0 {
			t.Errorf("%s: %+v", c.RefNumber, c)
			continue
		}
		payment, err := p.Billing.Search(ctx, billing.Query{RefNumber: c.RefNumber})
		if err != nil || len(payment) == 0 {
			t.Fatalf("%s at the service: %v", c.RefNumber, err)
		}
		for _, b := range payment {
			agrees(t, p, b.ComponentID)
		}
	}
}
