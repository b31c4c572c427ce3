package plans_test

import (
	"context"
	"testing"

	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/internal/portaltest"
)

// TestApplyYear applies a year of SPP to two classes: every student gets twelve months
// at their grade's price, named as bursars write them, with the key in the notes; the
// ledger recognises them; applying again sends nothing.
func TestApplyYear(t *testing.T) {
	t.Parallel()
	engines(t, testApplyYear)
}

// engines runs test on SQLite and on PostgreSQL (skipped unless PORTAL_TEST_POSTGRES_URL
// is set), each a subtest.
func engines(t *testing.T, test func(t *testing.T, postgres bool)) {
	for _, pg := range []bool{false, true} {
		name := "sqlite"
		if pg {
			name = "postgres"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t, pg)
		})
	}
}

func testApplyYear(t *testing.T, postgres bool) {
	w := &writes{}
	p, _ := school(t, portaltest.Options{Upstream: w.wrap, Postgres: postgres}, []string{"Kelas 7A", "Kelas 8A"}, 5)
	plan := create(t, p, sppForm())
	if plan.Code != "SPP2627" || plan.ItemName != "SPP" {
		t.Fatalf("plan %q item %q", plan.Code, plan.ItemName)
	}
	pv, job := apply(t, p, plan, plans.Selection{Classes: []string{"Kelas 7A", "Kelas 8A"}, From: plan.From, To: plan.To})
	if pv.Create != 120 || pv.Amount != 12*(5*350_000+5*375_000) {
		t.Fatalf("preview: %d components, %d", pv.Create, pv.Amount)
	}
	if job.State != plans.StateDone || job.Done != 120 || job.Failed != 0 {
		t.Fatalf("job: %+v", job)
	}
	got, twice := atService(t, p, plan.Code)
	if len(got) != 120 || twice != 0 {
		t.Fatalf("at the service: %d, %d twice", len(got), twice)
	}
	b := got["2601000|2027-02"]
	if b.Name != "SPP Februari 2027" || b.Amount != 375_000 || b.Penalty != 25_000 || b.Due.Format("2006-01-02") != "2027-02-10" ||
		b.Expiry.Format("2006-01-02") != "2027-03-02" || b.Active.Format("2006-01-02") != "2027-02-01" || b.Notes != "[plan SPP2627 2027-02]" {
		t.Fatalf("component: %+v", b)
	}
	comps, err := p.App.Ledger.PlanComponents(context.Background(), plan.Code, nil)
	if err != nil || len(comps) != 120 {
		t.Fatalf("the ledger recognises %d (%v)", len(comps), err)
	}

	before := w.batches.Load()
	again, _, err := p.App.Plans.Preview(context.Background(), plan, plans.Selection{Classes: []string{"Kelas 7A", "Kelas 8A"}, From: plan.From, To: plan.To})
	if err != nil {
		t.Fatal(err)
	}
	if again.Create != 0 || again.Exists != 120 {
		t.Fatalf("applied again: %d to create, %d exist", again.Create, again.Exists)
	}
	if _, err := p.App.Plans.Submit(context.Background(), finance, again); err != plans.ErrNothing {
		t.Fatalf("submit of nothing: %v", err)
	}
	if n := w.batches.Load() - before; n != 0 {
		t.Fatalf("applying again sent %d batches", n)
	}
}

// TestApplyConfirmedTwice confirms two previews of the same apply, both made before
// either job ran: the second job finds at its start what the first made (in the ledger)
// and leaves it all out, so the service has each component once and the second job
// sends nothing.
func TestApplyConfirmedTwice(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, postgres bool) {
		ctx := context.Background()
		w := &writes{}
		p, _ := school(t, portaltest.Options{Upstream: w.wrap, Postgres: postgres}, []string{"Kelas 7A", "Kelas 8A"}, 5)
		plan := create(t, p, sppForm())
		sel := plans.Selection{Classes: []string{"Kelas 7A"}, From: plan.From, To: plan.To}
		var ids []string
		var pvs []plans.Preview
		for range 2 {
			pv, probs, err := p.App.Plans.Preview(ctx, plan, sel)
			if err != nil || len(probs) > 0 || pv.Create != 60 {
				t.Fatalf("preview: %d to create, %v %v", pv.Create, probs, err)
			}
			pvs = append(pvs, pv)
		}
		for _, pv := range pvs {
			id, err := p.App.Plans.Submit(ctx, finance, pv)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		first, second := waitJob(t, p, ids[0]), waitJob(t, p, ids[1])
		if first.State != plans.StateDone || first.Done != 60 {
			t.Fatalf("first job: %+v", first)
		}
		if second.State != plans.StateDone || second.Done != 0 || second.Skipped != 60 {
			t.Fatalf("second job: %+v, want its 60 components left out as made", second)
		}
		if n := w.batches.Load(); n != 1 {
			t.Fatalf("%d batches sent, want the first job's one", n)
		}
		if got, twice := atService(t, p, plan.Code); len(got) != 60 || twice != 0 {
			t.Fatalf("at the service: %d, %d twice", len(got), twice)
		}
	})
}
