package plans_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
)

// TestMidYearAndFreshDatabase: a student who joins in the fourth month of the plan is
// billed from that month on (the roster says when the portal added them: the day the
// database stamped their entry, so the plan's year is set around today's real month); and a portal whose database is replaced
// by a fresh one, filled from the same service, with the plan made again under the same
// code, finds every component by its key and creates nothing, the October student's
// months before October included (their first component says when they joined).
func TestMidYearAndFreshDatabase(t *testing.T) {
	t.Parallel()
	p, _ := school(t, portaltest.Options{}, []string{"Kelas 7A"}, 5)
	joined := plans.MonthOfDay(time.Now().In(p.Config.Location))
	f := sppForm()
	f.From, f.To = joined.Add(-3).String(), joined.Add(8).String()
	plan := create(t, p, f)
	sel := plans.Selection{Classes: []string{"Kelas 7A"}, From: plan.From, To: plan.To}
	if _, job := apply(t, p, plan, sel); job.Done != 60 {
		t.Fatalf("first apply: %+v", job)
	}

	// A new student, added through the portal today.
	if _, err := p.App.Writer.CreateStudents(context.Background(), finance,
		[]billing.Student{{NIS: "2600999", Name: "Siswa Baru", Description: "Kelas 7A"}}, store.SourcePortal); err != nil {
		t.Fatal(err)
	}
	pv, job := apply(t, p, plan, sel)
	var late plans.Line
	for _, ln := range pv.Lines {
		if ln.Student.NIS == "2600999" {
			late = ln
		}
	}
	if pv.Create != 9 || late.Create != 9 || late.Before != 3 || late.StartBy != plans.JoinedRoster || late.Start != joined {
		t.Fatalf("the October student: %d to create in all; theirs %+v", pv.Create, late)
	}
	if job.Done != 9 {
		t.Fatalf("second apply: %+v", job)
	}

	// The portal's database is lost; a fresh one is filled from the same service.
	path := filepath.Join(t.TempDir(), "service.db")
	if err := p.Sandbox.SaveTo(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	w := &writes{}
	fresh := portaltest.Start(t, portaltest.Options{Now: july.AddDate(0, 4, 0), Upstream: w.wrap,
		Sandbox: func(o *sandbox.Options) { o.DBPath = path }})
	again := create(t, fresh, f)
	if again.Code != plan.Code {
		t.Fatalf("the plan made again has code %s, was %s", again.Code, plan.Code)
	}
	pv, probs, err := fresh.App.Plans.Preview(context.Background(), again, sel)
	if err != nil || len(probs) > 0 {
		t.Fatal(err, probs)
	}
	if pv.Create != 0 || pv.Exists != 69 || pv.Before != 3 {
		t.Fatalf("after the fresh database: %d to create, %d exist, %d before joining", pv.Create, pv.Exists, pv.Before)
	}
	if _, err := fresh.App.Plans.Submit(context.Background(), finance, pv); err != plans.ErrNothing {
		t.Fatalf("submit: %v", err)
	}
	if n := w.batches.Load(); n != 0 {
		t.Fatalf("%d batches sent", n)
	}
}
