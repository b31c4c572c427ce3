package uploads_test

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// TestTwoInstancesOneJob: two portal instances share the database and the service, and
// both find the same committed job when they start. Only the one holding the job's lease
// sends it (renewing the lease for longer than a lease lasts), the other stays out, and
// every component reaches the service exactly once.
func TestTwoInstancesOneJob(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2*time.Second)
	const rows, chunk = 400, 50
	sh, err := sheettest.Components(filepath.Join(e.dir, "a.xlsx"), sheettest.Options{Rows: rows, Students: 80})
	if err != nil {
		t.Fatal(err)
	}
	e.enrol(t, sh)
	cfg := e.config()
	cfg.ChunkSize, cfg.Concurrency = chunk, 1
	// Sending takes about 8 × 150ms, longer than the lease: it holds only if renewed.
	cfg.LeaseTTL, cfg.LeaseRenew = time.Second, 100*time.Millisecond

	// Previewed and committed while no instance runs, so both find it queued at start.
	r0 := uploads.NewRunner(cfg, e.db, e.client, e.writer, e.log)
	if err := r0.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	j := receive(t, r0, uploads.Components, sh.Path)
	if err := r0.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r0.Commit(context.Background(), j.ID, financeActor); err != nil {
		t.Fatal(err)
	}

	var calls [2]*faulty
	var runners [2]*uploads.Runner
	for i := range runners {
		f := &faulty{path: "/bill_component/batch", delay: 150 * time.Millisecond}
		client, writer := e.instance(t, func(next http.RoundTripper) http.RoundTripper { f.next = next; return f })
		calls[i], runners[i] = f, uploads.NewRunner(cfg, e.db, client, writer, e.log)
	}
	for _, r := range runners {
		e.startRunner(t, r)
	}
	j = wait(t, runners[1], j.ID)
	if j.State != uploads.StateDone || j.Created != rows {
		t.Fatalf("job %s, created %d", j.State, j.Created)
	}

	a, b := calls[0].calls.Load(), calls[1].calls.Load()
	if a+b != rows/chunk || (a != 0 && b != 0) {
		t.Errorf("batch calls per instance %d and %d; want all %d from one", a, b, rows/chunk)
	}
	chunks, err := e.db.UploadChunks(context.Background(), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range chunks {
		if c.State != uploads.ChunkConfirmed || c.Attempts != 1 || c.Recognised != 0 {
			t.Errorf("chunk %d: %s, attempts %d, recognised %d; want confirmed at the first send", c.Seq, c.State, c.Attempts, c.Recognised)
		}
	}
	keys := e.upstreamKeys(t)
	if len(keys) != rows {
		t.Errorf("%d components at the service, want %d", len(keys), rows)
	}
	for k, n := range keys {
		if n != 1 {
			t.Errorf("component %s at the service %d times", k, n)
		}
	}
}

// TestLapsedLeaseIsTakenUp: a job whose lease is held by an instance that died (it never
// renews nor releases it) is run by another once the lease lapses.
func TestLapsedLeaseIsTakenUp(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2*time.Second)
	sh, err := sheettest.Components(filepath.Join(e.dir, "a.xlsx"), sheettest.Options{Rows: 30, Students: 10})
	if err != nil {
		t.Fatal(err)
	}
	e.enrol(t, sh)
	cfg := e.config()
	cfg.LeaseTTL, cfg.LeaseRenew = 500*time.Millisecond, 50*time.Millisecond
	r0 := uploads.NewRunner(cfg, e.db, e.client, e.writer, e.log)
	if err := r0.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	j := receive(t, r0, uploads.Components, sh.Path)
	if err := r0.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r0.Commit(context.Background(), j.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if ok, err := e.db.JobLeases(store.UploadJobsTable).Claim(context.Background(), j.ID, "dead-instance", now.Add(cfg.LeaseTTL), now); err != nil || !ok {
		t.Fatalf("claim for the dead instance: %v %v", ok, err)
	}
	r := e.start(t, cfg)
	j = wait(t, r, j.ID)
	if j.State != uploads.StateDone || j.Created != 30 {
		t.Fatalf("job %s, created %d", j.State, j.Created)
	}
	if keys := e.upstreamKeys(t); len(keys) != 30 {
		t.Errorf("%d components at the service, want 30", len(keys))
	}
}

// TestIdleInstanceTakesOverAStoppedOnesJob: a job committed on one instance, which stops
// while sending it, is taken over by another instance that had nothing to do: idle
// instances look for work every LeaseRenew, not only when their own Commit wakes them.
func TestIdleInstanceTakesOverAStoppedOnesJob(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2*time.Second)
	sh, err := sheettest.Components(filepath.Join(e.dir, "a.xlsx"), sheettest.Options{Rows: 60, Students: 6})
	if err != nil {
		t.Fatal(err)
	}
	e.enrol(t, sh)
	cfg := e.config()
	cfg.ChunkSize, cfg.Concurrency = 10, 1
	// A lease long enough that busy keeps it however loaded the machine is (Stop releases
	// it, so the takeover does not wait for it to lapse); idle looks every 50 ms.
	cfg.LeaseTTL, cfg.LeaseRenew = 5*time.Second, 50*time.Millisecond
	idle := e.start(t, cfg) // started first, so it is idle when the job comes
	f := &faulty{path: "/bill_component/batch", delay: 50 * time.Millisecond}
	client, writer := e.instance(t, func(next http.RoundTripper) http.RoundTripper { f.next = next; return f })
	busy := uploads.NewRunner(cfg, e.db, client, writer, e.log)
	e.startRunner(t, busy)
	j := receive(t, busy, uploads.Components, sh.Path)
	// The job is busy's (its lease taken for it first, so the idle one cannot win the race
	// to it), and busy is stopped while sending it.
	now := time.Now()
	if ok, err := e.db.JobLeases(store.UploadJobsTable).Claim(context.Background(), j.ID, busy.ID(), now.Add(cfg.LeaseTTL), now); err != nil || !ok {
		t.Fatalf("lease for busy: %v %v", ok, err)
	}
	if err := busy.Commit(context.Background(), j.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); f.calls.Load() < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("busy did not send the job")
		}
	}
	if err := busy.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	j, err = idle.Wait(ctx, j.ID)
	if err != nil || j.State != uploads.StateDone || j.Created != 60 {
		t.Fatalf("taken over by the idle instance: %s, created %d, %v", j.State, j.Created, err)
	}
	if keys := e.upstreamKeys(t); len(keys) != 60 {
		t.Errorf("%d components at the service, want 60", len(keys))
	}
}
