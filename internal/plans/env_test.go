package plans_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/store/storetest"
)

// TestMain runs several tests at once: they mostly wait on the sandbox and the settle time.
func TestMain(m *testing.M) {
	storetest.SetParallel(4)
	m.Run()
	portaltest.CloseBrowser()
}

var finance = auth.Actor{Username: "finance", Role: auth.Finance, IP: "127.0.0.1"}

// july is the day the tests' school year begins: 1 July 2026, 10:00 in Jakarta.
var july = time.Date(2026, 7, 1, 3, 0, 0, 0, time.UTC)

// writes counts the batch calls that reach the sandbox (the creates of components).
type writes struct {
	batches atomic.Int64
}

func (w *writes) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/bill_component/batch" {
			w.batches.Add(1)
		}
		next.ServeHTTP(rw, r)
	})
}

// school starts a portal on an empty sandbox and enrols students there: n per class,
// NIS numbered from 26000, then syncs the ledger (the roster learns them from the
// service, as it would from a school's existing data).
func school(t testing.TB, opts portaltest.Options, classes []string, n int) (*portaltest.Portal, []string) {
	t.Helper()
	if opts.Now.IsZero() {
		opts.Now = july
	}
	p := portaltest.Start(t, opts)
	var list []billing.Student
	var nis []string
	for ci, c := range classes {
		for i := range n {
			id := fmt.Sprintf("26%02d%03d", ci, i)
			nis = append(nis, id)
			list = append(list, billing.Student{NIS: id, Name: fmt.Sprintf("Siswa %s %d", c, i), Description: c})
		}
	}
	for start := 0; start < len(list); start += 1000 {
		if _, err := p.Billing.CreateStudents(context.Background(), list[start:min(start+1000, len(list))]); err != nil {
			t.Fatal(err)
		}
	}
	p.SyncLedger(t)
	return p, nis
}

// sppForm is the SPP of the school year 2026/2027: monthly, Rp 350.000, grade 8 at Rp
// 375.000, due on the 10th, expiring 20 days later.
func sppForm() plans.Form {
	return plans.Form{Name: "SPP 2026/2027", AccountCode: "SPP", Amount: "350.000", Penalty: "25.000", Frequency: "monthly",
		From: "2026-07", To: "2027-06", DueDay: "10", ExpiryDays: "20",
		Rates: []plans.RateForm{{For: "8", Amount: "375.000"}}}
}

// create makes the plan of f, failing the test on a problem.
func create(t testing.TB, p *portaltest.Portal, f plans.Form) plans.Plan {
	t.Helper()
	plan, probs, err := p.App.Plans.Create(context.Background(), finance, f)
	if err != nil || len(probs) > 0 {
		t.Fatalf("create the plan: %v %v", err, probs)
	}
	return plan
}

// apply previews plan applied to sel, submits it and waits for the job's end.
func apply(t testing.TB, p *portaltest.Portal, plan plans.Plan, sel plans.Selection) (plans.Preview, plans.Job) {
	t.Helper()
	pv, probs, err := p.App.Plans.Preview(context.Background(), plan, sel)
	if err != nil || len(probs) > 0 {
		t.Fatalf("preview: %v %v", err, probs)
	}
	id, err := p.App.Plans.Submit(context.Background(), finance, pv)
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	return pv, waitJob(t, p, id)
}

// waitJob waits until apply job id has ended.
func waitJob(t testing.TB, p *portaltest.Portal, id string) plans.Job {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		j, err := p.App.Plans.Job(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if !plans.Running(j.State) {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("the apply job did not end: %+v", j)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// atService counts the plan's components at the service by student and period (deleted
// ones left out), and how many keys are there more than once.
func atService(t testing.TB, p *portaltest.Portal, code string) (map[string]billing.Bill, int) {
	t.Helper()
	out, twice := map[string]billing.Bill{}, 0
	for b, err := range p.Billing.All(context.Background(), billing.Query{Limit: billing.MaxLimit}) {
		if err != nil {
			t.Fatal(err)
		}
		k, ok := ledger.ParsePlanKey(b.Notes)
		if !ok || k.Code != code {
			continue
		}
		key := b.NIS + "|" + k.Period
		if _, dup := out[key]; dup {
			twice++
		}
		out[key] = b
	}
	return out, twice
}
