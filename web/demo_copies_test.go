package web_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/portaltest"
)

// A second demo portal on the same day starts from copies of the first one's databases
// (portaltest's snapshot): it must hold the same school, in the service and in its
// ledger, sign in the same accounts, and be a world of its own (a write in one is not
// seen by the other). The test of the harness lives here, with the tests that use it,
// rather than in a test binary of its own. Its day is the reports tests': both portals
// may be copies, of the one another test made.
func TestDemoPortalsOnOneDayAreOneSchoolApart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opts := portaltest.Options{Now: reportsNow, Demo: true}
	first := portaltest.Start(t, opts)
	second := portaltest.Start(t, opts)

	for _, p := range []*portaltest.Portal{first, second} {
		components, students, err := p.App.Ledger.Counts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if components < 5_000 || students < 500 {
			t.Fatalf("ledger holds %d components of %d students, want the demo school", components, students)
		}
	}
	d1, err := first.App.Ledger.Dashboard(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d2, err := second.App.Ledger.Dashboard(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d1, d2) {
		t.Errorf("dashboards differ:\n%+v\n%+v", d1, d2)
	}
	s1, s2 := serviceBills(t, first), serviceBills(t, second)
	if len(s1) != len(s2) {
		t.Fatalf("the services hold %d and %d components", len(s1), len(s2))
	}
	for id, b := range s1 {
		if !reflect.DeepEqual(s2[id], b) {
			t.Fatalf("component %s differs: %+v and %+v", id, b, s2[id])
		}
	}
	for _, p := range []*portaltest.Portal{first, second} {
		p.SignedIn(t, "finance") // fails the test when the account is missing
	}

	// Apart: a component billed at the second service is not at the first, nor in its
	// ledger.
	var some billing.Bill
	for _, b := range s1 {
		some = b
		break
	}
	due := opts.Now.AddDate(0, 1, 0)
	made, err := second.Billing.CreateComponent(ctx, billing.ComponentInput{NIS: some.NIS, AccountCode: "SPP",
		Name: "Iuran baru", Due: due, Expiry: due.AddDate(0, 1, 0), Amount: 75_000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Billing.GetComponent(ctx, made.ComponentID); err == nil {
		t.Error("a component billed at the second portal's service is at the first's")
	}
	second.SyncLedger(t)
	c1, _, err := first.App.Ledger.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c2, _, err := second.App.Ledger.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c2 != c1+1 {
		t.Errorf("after the new component: the ledgers count %d and %d components, want the second one more", c1, c2)
	}
}

// serviceBills is every component at the portal's service, by ID.
func serviceBills(t *testing.T, p *portaltest.Portal) map[string]billing.Bill {
	t.Helper()
	out := map[string]billing.Bill{}
	for b, err := range p.Billing.All(context.Background(), billing.Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		out[b.ComponentID] = b
	}
	return out
}
