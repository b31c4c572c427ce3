package students_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
	"github.com/sekolah/portal/internal/students"
)

var jakarta = func() *time.Location {
	loc, err := time.LoadLocation("Asia/Jakarta")
	if err != nil {
		return time.FixedZone("WIB", 7*3600)
	}
	return loc
}()

// syncSetup runs a sandbox over HTTP with a fixed clock, a client and a fresh roster.
func syncSetup(t *testing.T, now time.Time) (*students.Syncer, *sandbox.Server, *billing.Client, *store.DB) {
	t.Helper()
	sb, err := sandbox.New(sandbox.Options{Username: "u", Password: "p", Now: now, Location: jakarta, HangLimit: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sb)
	t.Cleanup(func() { srv.Close(); sb.Close() })
	c, err := billing.New(billing.Config{BaseURL: srv.URL, Username: "u", Password: "p", Now: sb.Now, Location: jakarta,
		Timeout: 5 * time.Second, RetryBase: time.Millisecond, RetryMax: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	db := storetest.OpenTest(t)
	clock := now
	return &students.Syncer{Billing: c, DB: db, Location: jakarta, Now: func() time.Time { return clock }, Concurrency: 3}, sb, c, db
}

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func TestSyncerFillsRosterAndTotals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC) // 10:00 in Jakarta
	sy, _, c, db := syncSetup(t, now)

	// Upstream: three students with bills, one without; the portal's roster knows one
	// billed student (stale, with an old name) and one the service has since forgotten.
	if _, err := c.CreateStudents(ctx, []billing.Student{
		{NIS: "2601", Name: "Budi Santoso", Phone: "081234567890", Description: "Kelas 7A"},
		{NIS: "2602", Name: "Siti Aminah", Description: "Kelas 7A"},
		{NIS: "2603", Name: "Andi Wijaya", Description: "Kelas 8B"},
		{NIS: "2604", Name: "Dewi Lestari", Description: "Kelas 8B"},
	}); err != nil {
		t.Fatal(err)
	}
	comp := func(nis, name string, amount, penalty int64, due, expiry time.Time) billing.ComponentInput {
		return billing.ComponentInput{NIS: nis, AccountCode: "SPP", Name: name, Amount: amount, Penalty: penalty, Due: due, Expiry: expiry}
	}
	bills, err := c.CreateComponents(ctx, []billing.ComponentInput{
		comp("2601", "SPP Oktober", 450_000, 25_000, day(2026, 10, 10), day(2026, 12, 31)), // overdue: 475.000
		comp("2601", "SPP November", 450_000, 25_000, day(2026, 11, 30), day(2027, 1, 31)), // unpaid: 450.000
		comp("2601", "SPP Juli", 450_000, 25_000, day(2026, 7, 10), day(2026, 8, 31)),      // expired: 0
		comp("2602", "SPP November", 500_000, 0, day(2026, 11, 10), day(2026, 12, 31)),     // paid below
		comp("2603", "Seragam", 300_000, 10_000, day(2026, 11, 22), day(2026, 12, 31)),     // due today: 300.000
		comp("2603", "Buku", 200_000, 10_000, day(2026, 11, 1), day(2026, 12, 31)),         // overdue: 210.000
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Pay(ctx, billing.Payment{NIS: "2602", RefNumber: "REF-1", ComponentIDs: []string{bills[3].ComponentID}}); err != nil {
		t.Fatal(err)
	}
	old := now.Add(-48 * time.Hour)
	if err := db.UpsertStudents(ctx, []store.Student{
		{NIS: "2601", Name: "Budi (lama)", Source: store.SourcePortal, SyncedAt: old},
		{NIS: "9999", Name: "Sudah Pindah", Source: store.SourceSync, SyncedAt: old},
	}); err != nil {
		t.Fatal(err)
	}

	p, err := sy.Run(ctx, "finance")
	if err != nil {
		t.Fatalf("sync: %v", err)
	}
	if p.State != students.SyncDone || p.BillsRead != 6 || p.Students != 3 || p.Added != 2 || p.Refreshed != 1 ||
		p.Removed != 1 || p.Failures != 0 || p.By != "finance" || p.Percent() != 100 {
		t.Fatalf("progress = %+v", p)
	}

	want := map[string]struct {
		name, source string
		outstanding  int64
		overdue      int
	}{
		"2601": {"Budi Santoso", store.SourcePortal, 925_000, 1},
		"2602": {"Siti Aminah", store.SourceSync, 0, 0},
		"2603": {"Andi Wijaya", store.SourceSync, 510_000, 1},
	}
	for nis, w := range want {
		s, err := db.StudentByNIS(ctx, nis)
		if err != nil {
			t.Fatalf("%s: %v", nis, err)
		}
		if s.Name != w.name || s.Source != w.source || !s.HasTotals() || s.Outstanding != w.outstanding || s.OverdueCount != w.overdue || !s.SyncedAt.Equal(now) {
			t.Errorf("%s = %+v, want %+v", nis, s, w)
		}
	}
	if _, err := db.StudentByNIS(ctx, "9999"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the student the service forgot is still in the roster: %v", err)
	}
	if _, err := db.StudentByNIS(ctx, "2604"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a student without bills was added: %v", err)
	}

	// Twice: nothing new, nothing stale, the same totals.
	p, err = sy.Run(ctx, "finance")
	if err != nil || p.Added != 0 || p.Refreshed != 0 || p.Removed != 0 || p.ToFetch != 0 || p.Totals != 3 {
		t.Fatalf("second run: %+v %v", p, err)
	}
	if s, _ := db.StudentByNIS(ctx, "2601"); s.Outstanding != 925_000 || s.OverdueCount != 1 {
		t.Errorf("after the second run 2601 = %+v", s)
	}
	_, total, err := db.ListStudents(ctx, store.StudentFilter{})
	if err != nil || total != 3 {
		t.Errorf("roster has %d entries: %v", total, err)
	}
}

func TestSyncerOneAtATime(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	sy, sb, c, _ := syncSetup(t, now)
	if _, err := c.CreateStudents(context.Background(), []billing.Student{{NIS: "1", Name: "A"}}); err != nil {
		t.Fatal(err)
	}
	sb.SetFaults(sandbox.Faults{LatencyMS: 50})
	if p := sy.Progress(); p.State != students.SyncIdle {
		t.Fatalf("before any run: %+v", p)
	}
	if err := sy.Sync("finance"); !errors.Is(err, students.ErrStopped) {
		t.Fatalf("a run before the worker started: %v", err)
	}
	if err := sy.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := sy.Sync("finance"); err != nil {
		t.Fatal(err)
	}
	if err := sy.Sync("admin"); !errors.Is(err, students.ErrSyncRunning) {
		t.Fatalf("second start while running: %v", err)
	}
	if _, err := sy.Run(context.Background(), "admin"); !errors.Is(err, students.ErrSyncRunning) {
		t.Fatalf("run while running: %v", err)
	}
	if p := sy.Progress(); !p.Running() || p.By != "finance" {
		t.Fatalf("progress while running: %+v", p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := sy.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if p := sy.Progress(); p.State != students.SyncDone {
		t.Fatalf("after the run: %+v", p)
	}
	// Once finished it may run again.
	if err := sy.Sync("admin"); err != nil {
		t.Fatalf("start after the run: %v", err)
	}
	if err := sy.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

// Stop cancels a run under way and returns only once it has ended: nothing of the run
// touches the database after.
func TestSyncerStopEndsTheRun(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	sy, sb, c, _ := syncSetup(t, now)
	if _, err := c.CreateStudents(context.Background(), []billing.Student{{NIS: "1", Name: "A"}}); err != nil {
		t.Fatal(err)
	}
	sb.SetFaults(sandbox.Faults{LatencyMS: 2000}) // the run waits on the service
	if err := sy.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := sy.Sync("finance"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := sy.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if p := sy.Progress(); p.State != students.SyncFailed || !errors.Is(p.Err, context.Canceled) {
		t.Fatalf("after Stop: %+v", p)
	}
	if err := sy.Sync("admin"); !errors.Is(err, students.ErrStopped) {
		t.Fatalf("a run after Stop: %v", err)
	}
}

func TestSyncerUpstreamDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	sy, sb, c, db := syncSetup(t, now)
	if _, err := c.CreateStudents(ctx, []billing.Student{{NIS: "1", Name: "A"}}); err != nil {
		t.Fatal(err)
	}
	if err := db.UpsertStudents(ctx, []store.Student{{NIS: "1", Name: "A", Source: store.SourcePortal, SyncedAt: now}}); err != nil {
		t.Fatal(err)
	}
	sb.SetFaults(sandbox.Faults{ErrorRate: 1, Status: 503})
	p, err := sy.Run(ctx, "finance")
	if !errors.Is(err, billing.ErrUnavailable) || p.State != students.SyncFailed || !errors.Is(p.Err, billing.ErrUnavailable) {
		t.Fatalf("run with the service down: %+v %v", p, err)
	}
	if s, _ := db.StudentByNIS(ctx, "1"); s.HasTotals() {
		t.Error("a failed run wrote totals")
	}
}
