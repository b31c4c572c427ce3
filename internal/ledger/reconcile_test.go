package ledger_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/store"
)

// roster is the portal's student list by NIS.
func (e *env) roster() map[string]store.Student {
	e.t.Helper()
	out := map[string]store.Student{}
	if err := e.db.AllStudents(context.Background(), func(s store.Student) error {
		out[s.NIS] = s
		return nil
	}); err != nil {
		e.t.Fatal(err)
	}
	return out
}

// sameStudents fails unless the roster lists exactly the service's students.
func (e *env) sameStudents() {
	e.t.Helper()
	r := e.roster()
	n := 0
	for s, err := range e.c.AllStudents(context.Background(), billing.StudentQuery{}) {
		if err != nil {
			e.t.Fatal(err)
		}
		n++
		got, ok := r[s.NIS]
		if !ok || got.Name != s.Name || got.Phone != s.Phone || got.Email != s.Email || got.Description != s.Description {
			e.t.Errorf("student %s: roster %+v, service %+v", s.NIS, got, s)
		}
	}
	if n != len(r) {
		e.t.Errorf("the roster has %d students, the service %d", len(r), n)
	}
}

// TestReconcileCorrectsAndAudits: changes made at the service outside the portal (an
// update, deletions, a bank payment whose callback never came, a counter payment, a
// student changed, deleted and added, the clock past due and expiry) are all found by
// one reconcile, each correction audited with its old and new value; a second
// reconcile finds nothing.
func TestReconcileCorrectsAndAudits(t *testing.T) { eachEngine(t, testReconcileCorrectsAndAudits) }

func testReconcileCorrectsAndAudits(t *testing.T, engine string) {
	e := newEnvOn(t, engine, syncNow)
	ctx := context.Background()
	st := e.students("R", 12)
	bills := e.components(st, 240, "SPP")
	e.sync()
	open := func(nis string, skip int) billing.Bill {
		for _, b := range bills {
			if b.NIS == nis && e.component(b.ComponentID).State == billing.StateProvisioned {
				if skip == 0 {
					return b
				}
				skip--
			}
		}
		t.Fatalf("nothing open for %s", nis)
		return billing.Bill{}
	}

	upd := open("R0001", 0)
	amount := upd.Amount + 50_000
	due := upd.Due.AddDate(0, 0, 5)
	if _, err := e.c.UpdateComponent(ctx, upd.ComponentID, billing.ComponentUpdate{Amount: &amount, Due: &due}); err != nil {
		t.Fatal(err)
	}
	del := []string{open("R0002", 0).ComponentID, open("R0002", 1).ComponentID}
	if _, err := e.c.DeleteComponents(ctx, billing.ComponentDeletion{ComponentIDs: del}); err != nil {
		t.Fatal(err)
	}
	e.recv.mu.Lock()
	e.recv.drop = true // the bank's callback never arrives
	e.recv.mu.Unlock()
	bank := open("R0003", 0)
	e.bankPay(bank.NIS, bank.ComponentID)
	counter := open("R0004", 0)
	if _, err := e.c.Pay(ctx, billing.Payment{NIS: counter.NIS, RefNumber: "KASIR-1", ComponentIDs: []string{counter.ComponentID}}); err != nil {
		t.Fatal(err)
	}
	changed := st[4]
	changed.Phone, changed.Description = "0899", "Kelas 9C"
	if _, err := e.c.UpdateStudent(ctx, changed); err != nil {
		t.Fatal(err)
	}
	if err := e.c.DeleteStudent(ctx, st[5].NIS); err != nil {
		t.Fatal(err)
	}
	newcomer := e.students("N", 1)
	e.components(newcomer, 5, "Pendaftaran")
	e.sb.SetClock(syncNow.AddDate(0, 1, 3)) // components fall due and expire
	e.waitCallbacks()

	r := e.reconcile()
	e.sameAsService()
	e.sameStudents()
	if r.Corrected == 0 || r.Removed != 1 || r.Missing < 2 {
		t.Errorf("reconcile %+v", r)
	}
	details := map[string]string{}
	for _, a := range e.audit(ledger.ActionReconcileComponent) {
		if a.Actor != ledger.ActorSync {
			t.Errorf("audit actor %q", a.Actor)
		}
		details[a.Target] += a.Detail + "\n"
	}
	for _, want := range []struct{ nis, text string }{
		{"R0001", "amount " + i18n.Rupiah(upd.Amount) + " → " + i18n.Rupiah(amount)},
		{"R0001", "due "},
		{"R0002", "deleted at the service but open in the ledger"},
		{"R0003", "paid at the service"},
		{"R0004", "ref KASIR-1"},
		{"N0001", "at the service but missing from the ledger"},
	} {
		if !strings.Contains(details[want.nis], want.text) {
			t.Errorf("audit of %s lacks %q:\n%s", want.nis, want.text, details[want.nis])
		}
	}
	var studentDetails []string
	for _, a := range e.audit(ledger.ActionReconcileStudent) {
		studentDetails = append(studentDetails, a.Detail)
	}
	all := strings.Join(studentDetails, "\n")
	for _, want := range []string{"phone 08120004 → 0899", "class Kelas 8A → Kelas 9C", "no longer at the service", "N0001"} {
		if !strings.Contains(all, want) {
			t.Errorf("student audit lacks %q:\n%s", want, all)
		}
	}
	if runs := e.audit(ledger.ActionReconcile); len(runs) != 1 {
		t.Errorf("%d reconcile run entries", len(runs))
	}

	again := e.reconcile()
	if again.Corrected != 0 || again.Students != 0 || again.Removed != 0 {
		t.Errorf("a second reconcile found %+v", again)
	}
	e.quiet()
	before := e.calls.Load()
	inc, err := e.s.RunIncremental(ctx)
	if n := e.calls.Load() - before; err != nil || n > 3 {
		t.Errorf("incremental after the reconcile: %d calls (%s), %v", n, inc.Summary(), err)
	}
}

// TestFillResumesAndFreshness: a first fill cut short by the service going down leaves
// the ledger usable (it answers what it read, Freshness says it is filling and why it
// stopped); the next run resumes where it stopped instead of starting over.
func TestFillResumesAndFreshness(t *testing.T) {
	t.Parallel()
	e := newEnv(t, syncNow)
	ctx := context.Background()
	st := e.students("F", 30)
	e.components(st, 4500, "SPP")

	// Eleven calls of one record count the 4,500 components, two pages of students,
	// then two component pages.
	e.down.Store(e.calls.Load() + 11 + 2 + 2)
	if _, err := e.s.RunIncremental(ctx); err == nil {
		t.Fatal("the fill ended well with the service down")
	}
	f, err := e.l.Freshness(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Pages are fetched ahead in parallel: which ones the cut hits varies, but what
	// was written is whole pages from the start.
	if !f.Filling() || f.FillRead == 0 || f.FillRead%1000 != 0 || f.FillRead >= 4500 || !f.Failing() ||
		f.FillTotal < 4500 || f.FillTotal > 4545 || f.FillPermille() != f.FillRead*1000/f.FillTotal ||
		f.LastProblem != ledger.ProblemUnavailable || f.LastKind != ledger.RunFill {
		t.Fatalf("freshness after the cut: %+v", f)
	}
	d, err := e.l.Dashboard(ctx)
	if err != nil || d.Bills != f.FillRead {
		t.Fatalf("dashboard while filling: %d components, %v", d.Bills, err)
	}
	page, err := e.l.Bills(ctx, ledger.BillsQuery{Tab: ledger.TabAll})
	if err != nil || page.Totals.Count != f.FillRead || len(page.Bills) != 50 {
		t.Fatalf("bills while filling: %+v %v", page.Totals, err)
	}

	e.down.Store(0)
	e.quiet()
	before := e.calls.Load()
	r, err := e.s.RunIncremental(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Resumed: students (2 pages), the components not read yet (a page each, the
	// empty one, and pages fetched ahead), then the incremental sync's 3.
	if n := e.calls.Load() - before; n > int64(2+(4500-f.FillRead)/1000+2+2+3) {
		t.Errorf("resuming took %d calls (%s): it started over", n, r.Summary())
	}
	e.sameAsService()
	f, _ = e.l.Freshness(ctx)
	if f.Filling() || f.Failing() || f.SyncedAt.IsZero() || f.FillRead != 4500 {
		t.Errorf("freshness after the fill: %+v", f)
	}

	// The service down after the fill: the figures stay, with the reason.
	synced := f.SyncedAt
	e.sb.SetClock(syncNow.Add(40 * time.Minute))
	e.sb.SetFaults(failAll())
	if _, err := e.s.RunIncremental(ctx); !errors.Is(err, billing.ErrUnavailable) {
		t.Fatalf("sync with the service down: %v", err)
	}
	f, _ = e.l.Freshness(ctx)
	if !f.Failing() || f.LastProblem != ledger.ProblemUnavailable || !f.SyncedAt.Equal(synced) || f.Age(e.sb.Now()) < 40*time.Minute {
		t.Errorf("freshness with the service down: %+v", f)
	}
	if d, err := e.l.Dashboard(ctx); err != nil || d.Bills != 4500 {
		t.Errorf("dashboard with the service down: %d, %v", d.Bills, err)
	}
}

// TestOneInstanceSyncs: while another instance holds the sync's lease, Run leaves the
// work to it; once that lease lapses (the instance died), this one takes over.
func TestOneInstanceSyncs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, syncNow)
	ctx := context.Background()
	e.components(e.students("L", 3), 10, "SPP")
	now := e.sb.Now()
	before := e.calls.Load()
	if ok, err := e.db.ClaimLease(ctx, "ledger.sync", "other-instance", now.Add(time.Minute), now); err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	if _, err := e.s.RunIncremental(ctx); !errors.Is(err, ledger.ErrLeaseHeld) {
		t.Fatalf("ran under another's lease: %v", err)
	}
	if n := e.calls.Load() - before; n != 0 {
		t.Fatalf("%d calls under another's lease", n)
	}
	e.sb.SetClock(now.Add(2 * time.Minute)) // the other instance's lease lapsed
	if _, err := e.s.RunIncremental(ctx); err != nil {
		t.Fatal(err)
	}
	e.sameAsService()
}
