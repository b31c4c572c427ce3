package changes_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
)

var actor = auth.Actor{ID: "u1", Username: "siti", Role: auth.Finance, IP: "10.1.2.3"}

func setup(t *testing.T, timeout time.Duration) (*changes.Writer, *sandbox.Server, *store.DB) {
	w, sb, db, _ := setupLedger(t, timeout)
	return w, sb, db
}

// setupLedger is setup with the ledger the writer records into.
func setupLedger(t *testing.T, timeout time.Duration) (*changes.Writer, *sandbox.Server, *store.DB, *ledger.Ledger) {
	t.Helper()
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	sb, err := sandbox.New(sandbox.Options{Username: "u", Password: "p", Now: now, HangLimit: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sb)
	t.Cleanup(func() { srv.Close(); sb.Close() })
	c, err := billing.New(billing.Config{BaseURL: srv.URL, Username: "u", Password: "p", Now: sb.Now, Timeout: timeout,
		RetryBase: time.Millisecond, RetryMax: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	db := storetest.OpenTest(t)
	l, err := ledger.New(context.Background(), ledger.Config{DB: db, Clock: clock.New(sb.Now, sb.Location())})
	if err != nil {
		t.Fatal(err)
	}
	return &changes.Writer{Client: c, DB: db, Ledger: l, Clock: clock.System(time.UTC)}, sb, db, l
}

// inLedger reads one student's components from the ledger, by name.
func inLedger(t *testing.T, l *ledger.Ledger, nis string) map[string]billing.Bill {
	t.Helper()
	out := map[string]billing.Bill{}
	for b, err := range l.AllForStudent(context.Background(), nis, billing.Query{State: billing.StateDeleted}) {
		if err != nil {
			t.Fatal(err)
		}
		out["deleted "+b.Name] = b
	}
	for b, err := range l.AllForStudent(context.Background(), nis, billing.Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		out[b.Name] = b
	}
	return out
}

func lastAudit(t *testing.T, db *store.DB) store.AuditEntry {
	t.Helper()
	entries, _, err := db.ListAudit(context.Background(), store.AuditFilter{Limit: 1})
	if err != nil || len(entries) == 0 {
		t.Fatalf("no audit entry: %v", err)
	}
	// Every entry carries what its action says it does (the log's words need it).
	if err := audit.Read(entries[0]).Check(); err != nil {
		t.Error(err)
	}
	return entries[0]
}

// Every confirmed write is audited and recorded in the ledger from the service's answer
// (students in the roster, components as answered); a refused one reaches neither.
func TestWritesAreAuditedAndMirrored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w, _, db, l := setupLedger(t, 5*time.Second)
	seq := func() int64 {
		n, err := l.ChangeSeq(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := seq()

	_, err := w.CreateStudents(ctx, actor, []billing.Student{{NIS: "2601", Name: "Budi Santoso", KeyName: "NIS", Description: "Kelas 7A"}}, store.SourcePortal)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := db.StudentByNIS(ctx, "2601"); err != nil || s.Name != "Budi Santoso" || s.Source != store.SourcePortal {
		t.Fatalf("roster: %+v %v", s, err)
	}
	if e := lastAudit(t, db); e.Action != changes.ActionStudentsCreate || e.Outcome != "ok" || e.Target != "2601" || e.Actor != "siti" || e.IP != "10.1.2.3" {
		t.Fatalf("audit: %+v", e)
	}
	if seq() == before {
		t.Error("a new student did not move the ledger's change sequence on (live pages would miss it)")
	}

	// A refused write is audited with the service's status and nothing reaches the roster.
	_, err = w.CreateStudents(ctx, actor, []billing.Student{{NIS: "2601", Name: "Again", KeyName: "NIS"}}, store.SourcePortal)
	if !errors.Is(err, billing.ErrValidation) {
		t.Fatalf("duplicate student: %v", err)
	}
	e := lastAudit(t, db)
	if e.Outcome != "failed" || e.UpstreamStatus != 400 || e.UpstreamDesc == "" {
		t.Fatalf("audit of refusal: %+v", e)
	}
	if s, _ := db.StudentByNIS(ctx, "2601"); s.Name != "Budi Santoso" {
		t.Fatal("a refused write changed the roster")
	}

	due := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
	bills, err := w.CreateComponents(ctx, actor, []billing.ComponentInput{{NIS: "2601", AccountCode: "SPP", Name: "SPP November",
		Due: due, Expiry: due.AddDate(0, 2, 0), Amount: 450_000, Penalty: 25_000}}, "form")
	if err != nil || len(bills) != 1 {
		t.Fatalf("components: %v %v", bills, err)
	}
	if got := inLedger(t, l, "2601")["SPP November"]; got.ComponentID != bills[0].ComponentID || got.Amount != 450_000 || got.State != billing.StateProvisioned {
		t.Fatalf("the new component in the ledger: %+v", got)
	}
	paid, err := w.Pay(ctx, actor, billing.Payment{NIS: "2601", RefNumber: "KASIR-1", ComponentIDs: []string{bills[0].ComponentID}})
	if err != nil || paid[0].AmountPaid != 475_000 {
		t.Fatalf("pay: %v %v", paid, err)
	}
	if e := lastAudit(t, db); e.Action != changes.ActionPay || !strings.Contains(e.Detail, "KASIR-1") || !strings.Contains(e.Detail, "475000") {
		t.Fatalf("pay audit: %+v", e)
	}
	if got := inLedger(t, l, "2601")["SPP November"]; got.State != billing.StatePaid || got.AmountPaid != 475_000 || got.RefNumber != "KASIR-1" {
		t.Fatalf("the payment in the ledger: %+v", got)
	}
	if err := w.DeleteStudent(ctx, actor, "2601"); !errors.Is(err, billing.ErrValidation) {
		t.Fatalf("delete with payments: %v", err)
	}
	if _, err := db.StudentByNIS(ctx, "2601"); err != nil {
		t.Fatal("a refused delete removed the roster entry")
	}

	res, err := w.Checkout(ctx, actor, billing.Checkout{Student: billing.Student{NIS: "2602", Name: "Rina"},
		Components: []billing.CheckoutComponent{{AccountCode: "BCA", Name: "Uang Pangkal", Due: due.AddDate(0, 1, 0), Expiry: due.AddDate(0, 3, 0), Amount: 5_000_000}}}, store.SourceCheckout)
	if err != nil || res.BillID == "" {
		t.Fatalf("checkout: %+v %v", res, err)
	}
	if s, err := db.StudentByNIS(ctx, "2602"); err != nil || s.Source != store.SourceCheckout || s.KeyName != "NIS" {
		t.Fatalf("checkout roster: %+v %v", s, err)
	}
	// The service answered only ids: the writer read the new components back.
	if got := inLedger(t, l, "2602")["Uang Pangkal"]; got.ComponentID != res.ComponentIDs[0] || got.Amount != 5_000_000 {
		t.Fatalf("the checkout's component in the ledger: %+v", got)
	}
	if err := w.DeleteStudent(ctx, actor, "2602"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.StudentByNIS(ctx, "2602"); !errors.Is(err, store.ErrNotFound) {
		t.Fatal("deleted student still in the roster")
	}
	if got := inLedger(t, l, "2602"); got["Uang Pangkal"].ComponentID != "" || got["deleted Uang Pangkal"].ComponentID == "" {
		t.Fatalf("a deleted student's unpaid components are deleted with them: %+v", got)
	}
}

// A student the service no longer has (deleted elsewhere meanwhile) leaves the roster and
// the ledger the way a delete the portal makes does: one path, whatever the service says.
func TestDeleteOfAStudentTheServiceNoLongerHas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w, _, db, l := setupLedger(t, 5*time.Second)
	due := time.Date(2026, 12, 10, 0, 0, 0, 0, time.UTC)
	if _, err := w.CreateStudents(ctx, actor, []billing.Student{{NIS: "2604", Name: "Wati", KeyName: "NIS"}}, store.SourcePortal); err != nil {
		t.Fatal(err)
	}
	if _, err := w.CreateComponents(ctx, actor, []billing.ComponentInput{{NIS: "2604", AccountCode: "SPP", Name: "SPP Desember",
		Amount: 300_000, Due: due, Expiry: due.AddDate(0, 1, 0)}}, "form"); err != nil {
		t.Fatal(err)
	}
	if err := w.Client.DeleteStudent(ctx, "2604"); err != nil { // elsewhere, not through the writer
		t.Fatal(err)
	}
	err := w.DeleteStudent(ctx, actor, "2604")
	if !errors.Is(err, changes.ErrStudentGone) || !errors.Is(err, billing.ErrNotFound) {
		t.Fatalf("err = %v, want ErrStudentGone", err)
	}
	if _, err := db.StudentByNIS(ctx, "2604"); !errors.Is(err, store.ErrNotFound) {
		t.Error("the student is still in the roster")
	}
	if got := inLedger(t, l, "2604"); got["SPP Desember"].ComponentID != "" || got["deleted SPP Desember"].ComponentID == "" {
		t.Errorf("the student's unpaid components are still counted: %+v", got)
	}
	if e := lastAudit(t, db); e.Action != changes.ActionStudentDelete || e.Outcome != changes.OutcomeFailed {
		t.Errorf("audit: %+v", e)
	}
}

func TestTimeoutIsUnknownAndNotMirrored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w, sb, db := setup(t, 300*time.Millisecond)
	sb.SetFaults(sandbox.Faults{TimeoutRate: 1})
	_, err := w.CreateStudents(ctx, actor, []billing.Student{{NIS: "2603", Name: "Tono", KeyName: "NIS"}}, store.SourcePortal)
	if !errors.Is(err, billing.ErrTimeout) || !changes.Ambiguous(err) {
		t.Fatalf("err = %v", err)
	}
	if e := lastAudit(t, db); e.Outcome != changes.OutcomeUnknown {
		t.Fatalf("audit outcome %q", e.Outcome)
	}
	if _, err := db.StudentByNIS(ctx, "2603"); !errors.Is(err, store.ErrNotFound) {
		t.Fatal("an unconfirmed write reached the roster")
	}
}

// A correction changes only the fields it names, at the service and in the ledger, and the
// audit entry keeps the old and new values; a cancel keeps its reason, is sent as the
// delete's transfer_ref, and leaves the components deleted in the ledger; a paid component
// can be neither changed nor cancelled, and a refusal changes nothing.
func TestCorrectionsAreAuditedAndRecorded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w, _, db, l := setupLedger(t, 5*time.Second)
	if _, err := w.CreateStudents(ctx, actor, []billing.Student{{NIS: "2701", Name: "Sari Dewi", KeyName: "NIS"}}, store.SourcePortal); err != nil {
		t.Fatal(err)
	}
	due := time.Date(2026, 12, 10, 0, 0, 0, 0, time.UTC)
	var in []billing.ComponentInput
	for _, name := range []string{"SPP Desember", "SPP Januari", "Buku", "Seragam"} {
		in = append(in, billing.ComponentInput{NIS: "2701", AccountCode: "SPP", Name: name, Due: due, Expiry: due.AddDate(0, 2, 0), Amount: 450_000, Penalty: 25_000})
	}
	bills, err := w.CreateComponents(ctx, actor, in, "form")
	if err != nil {
		t.Fatal(err)
	}
	id := func(name string) string {
		for _, b := range bills {
			if b.Name == name {
				return b.ComponentID
			}
		}
		t.Fatalf("no %s", name)
		return ""
	}

	amount, newDue := int64(500_000), due.AddDate(0, 0, 5)
	got, err := w.UpdateComponent(ctx, actor, id("SPP Desember"), billing.ComponentUpdate{Amount: &amount, Due: &newDue}, "form")
	if err != nil || got.Amount != 500_000 || !got.Due.Equal(newDue) || got.Penalty != 25_000 || got.Name != "SPP Desember" {
		t.Fatalf("update: %+v %v", got, err)
	}
	if at, err := w.Client.GetComponent(ctx, id("SPP Desember")); err != nil || at.Amount != 500_000 || at.Penalty != 25_000 {
		t.Fatalf("at the service: %+v", at)
	}
	if b := inLedger(t, l, "2701")["SPP Desember"]; b.Amount != 500_000 || !b.Due.Equal(newDue) {
		t.Fatalf("in the ledger: %+v", b)
	}
	e := lastAudit(t, db)
	if e.Action != changes.ActionComponentUpdate || e.Outcome != changes.OutcomeOK || e.Args["nis"] != "2701" || e.Args["name"] != "Sari Dewi" ||
		e.Args["item"] != "SPP Desember" || e.Args["fields"] != "amount,due_date" ||
		!strings.Contains(e.Detail, "amount 450000 → 500000") || !strings.Contains(e.Detail, "due_date 2026-12-10 → 2026-12-15") {
		t.Fatalf("update audit: %+v", e)
	}

	cancelled, err := w.CancelComponents(ctx, actor, []string{id("SPP Januari"), id("Buku")}, "salah unggah", "form")
	if err != nil || len(cancelled) != 2 {
		t.Fatalf("cancel: %+v %v", cancelled, err)
	}
	held := inLedger(t, l, "2701")
	if held["SPP Januari"].ComponentID != "" || held["deleted SPP Januari"].State != billing.StateDeleted || held["deleted Buku"].State != billing.StateDeleted {
		t.Fatalf("cancelled components in the ledger: %+v", held)
	}
	if at, err := w.Client.GetComponent(ctx, id("Buku")); err != nil || at.State != billing.StateDeleted {
		t.Fatalf("at the service: %+v %v", at, err)
	}
	e = lastAudit(t, db)
	if e.Action != changes.ActionComponentsCancel || e.Outcome != changes.OutcomeOK || e.Args["reason"] != "salah unggah" ||
		e.Args["count"] != "2" || e.Args["total"] != "900000" || e.Args["name"] != "Sari Dewi" {
		t.Fatalf("cancel audit: %+v", e)
	}

	// Paid: refused at the service, audited as failed, the ledger untouched.
	if _, err := w.Pay(ctx, actor, billing.Payment{NIS: "2701", RefNumber: "K-1", ComponentIDs: []string{id("Seragam")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.UpdateComponent(ctx, actor, id("Seragam"), billing.ComponentUpdate{Amount: &amount}, "form"); !errors.Is(err, billing.ErrValidation) {
		t.Fatalf("update of a paid component: %v", err)
	}
	if e := lastAudit(t, db); e.Action != changes.ActionComponentUpdate || e.Outcome != changes.OutcomeFailed || e.Args["item"] != "Seragam" {
		t.Fatalf("refused update audit: %+v", e)
	}
	if _, err := w.CancelComponents(ctx, actor, []string{id("Seragam")}, "x", "form"); !errors.Is(err, billing.ErrValidation) {
		t.Fatalf("cancel of a paid component: %v", err)
	}
	if b := inLedger(t, l, "2701")["Seragam"]; b.State != billing.StatePaid || b.Amount != 450_000 {
		t.Fatalf("a refused correction changed the ledger: %+v", b)
	}
}
