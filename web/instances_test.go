package web_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// TestTwoInstancesOnPostgres is the portal as it runs behind a load balancer: two instances
// in one test process (two handlers, each with its own connection pool and workers) on one
// PostgreSQL database and one sandbox, sharing nothing else. A session made on one is used
// on the other, and once revoked is refused on both; a commit job is taken over when the
// instance running it stops, every row reaching the service once; an analysis left by a
// stopped instance, and one left by a dead one (its lease never released), are taken over.
// It runs when PORTAL_TEST_POSTGRES_URL is set, as in CI (.ci/run checks it did not skip).
func TestTwoInstancesOnPostgres(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: uploadNow, Postgres: true, Uploads: func(c *uploads.Config) {
		c.ChunkSize, c.Concurrency = 10, 1
		c.LeaseTTL, c.LeaseRenew = 2*time.Second, 100*time.Millisecond
	}})
	q := p.Instance(t)
	ctx := context.Background()

	// Sessions: made on one, used on the other; revoked on the other, refused on both.
	a := p.SignedIn(t, "finance")
	if res := a.On(q).Get("/"); res.StatusCode != http.StatusOK || res.Doc.Find(`[data-testid="user-name"]`).Text() != "Finance Staf" {
		t.Fatalf("a session made on one instance, on the other: %d", res.StatusCode)
	}
	b := q.SignedIn(t, "finance") // a second browser
	if res := b.Post("/account/sessions/end-all", confirmYes()); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign out everywhere: %d", res.StatusCode)
	}
	for name, c := range map[string]*portaltest.Client{"first": a, "first on the other": a.On(q), "second": b, "second on the other": b.On(p)} {
		if res := c.Get("/"); res.StatusCode != http.StatusSeeOther {
			t.Errorf("the %s instance after sign-out everywhere: %d, want a redirect to sign in", name, res.StatusCode)
		}
	}

	// A commit job taken over when the instance running it stops.
	sh, err := sheettest.Components(filepath.Join(t.TempDir(), "a.xlsx"), sheettest.Options{Rows: 80, Students: 8})
	if err != nil {
		t.Fatal(err)
	}
	enrol(t, p, sh, true)
	data, _ := os.ReadFile(sh.Path)
	c := p.SignedIn(t, "finance")
	id := uploadIDFrom(t, postUpload(t, p, c, "components", "a.xlsx", data))
	if j := waitUpload(t, p, id); j.State != uploads.StateReady || j.RowsNew != 80 {
		t.Fatalf("analysed: %s, %d new", j.State, j.RowsNew)
	}
	p.Sandbox.SetFaults(sandbox.Faults{LatencyMS: 60}) // a slow service: the job takes a while
	if res := c.On(q).Post("/uploads/"+id+"/commit", confirmYes()); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("commit on the other instance: %d", res.StatusCode)
	}
	running := waitFor(t, "a chunk confirmed", func() (*portaltest.Portal, bool) {
		j, err := p.DB.UploadJobByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		o, err := p.Uploads.Outcome(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, inst := range []*portaltest.Portal{p, q} {
			if j.LeaseOwner == inst.Uploads.ID() && o.Progress.Confirmed > 0 {
				return inst, true
			}
		}
		return nil, false
	})
	other := p
	if running == p {
		other = q
	}
	running.Stop() // as at SIGTERM: its lease is released, the other goes on
	p.Sandbox.SetFaults(sandbox.Faults{})
	ctx30, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	j, err := other.Uploads.Wait(ctx30, id)
	if err != nil || j.State != uploads.StateDone || j.Created != 80 {
		t.Fatalf("taken over: %s, created %d, %v", j.State, j.Created, err)
	}
	// Its lease is released once it finished (just after its state says so).
	waitFor(t, "the finished job's lease released", func() (bool, bool) {
		j, err := other.DB.UploadJobByID(ctx, id)
		return true, err == nil && j.LeaseOwner == ""
	})
	if n := countComponents(t, other); n != 80 {
		t.Errorf("%d components at the service, want 80", n)
	}
	chunks, err := other.DB.UploadChunks(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range chunks {
		if ch.State != uploads.ChunkConfirmed {
			t.Errorf("chunk %d: %s", ch.Seq, ch.State)
		}
	}

	// An analysis left by the stopped instance (it stored the sheet but will not read it)
	// is read by the one still running.
	students, err := sheettest.Students(filepath.Join(t.TempDir(), "s.xlsx"), sheettest.Options{Rows: 5, NISPrefix: "S"})
	if err != nil {
		t.Fatal(err)
	}
	receive := func() uploads.Received {
		f, err := os.Open(students.Path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rec, err := running.Uploads.Receive(ctx, auth.Actor{ID: "u", Username: "finance", Role: auth.Finance}, uploads.Students, "siswa.xlsx", f)
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	left := receive().Job
	if j := waitUploadOn(t, other, left.ID); j.State != uploads.StateReady || j.RowsNew != 5 {
		t.Fatalf("analysis left by a stopped instance: %s, %d new", j.State, j.RowsNew)
	}

	// One left by a dead instance, its lease never released, is read once the lease lapses.
	// (The same file again waits for a person's go-ahead, so nothing reads it before the
	// dead instance has its lease.)
	dead := receive().Job
	now := time.Now()
	if ok, err := other.DB.JobLeases(store.UploadJobsTable).Claim(ctx, dead.ID, "dead-instance", now.Add(2*time.Second), now); err != nil || !ok {
		t.Fatalf("claim for the dead instance: %v %v", ok, err)
	}
	if ok, err := other.DB.SetUploadJobState(ctx, dead.ID, uploads.StateAnalysing, uploads.StateHeld); err != nil || !ok {
		t.Fatalf("analysing under the dead instance: %v %v", ok, err)
	}
	if j, _ := other.DB.UploadJobByID(ctx, dead.ID); j.State != uploads.StateAnalysing || j.LeaseOwner != "dead-instance" {
		t.Fatalf("the dead instance's analysis: %s, leased to %q", j.State, j.LeaseOwner)
	}
	if j := waitUploadOn(t, other, dead.ID); j.State != uploads.StateReady || j.LeaseOwner == "dead-instance" || time.Since(now) < 2*time.Second {
		t.Fatalf("analysis left by a dead instance: %s, leased to %q after %v", j.State, j.LeaseOwner, time.Since(now))
	}
}

// waitFor polls cond until it holds (or fails the test after 20 s) and returns its value.
func waitFor[T any](t *testing.T, what string, cond func() (T, bool)) T {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if v, ok := cond(); ok {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 20 s for %s", what)
		}
	}
}

// waitUploadOn waits until the upload is no longer busy, as instance p sees it.
func waitUploadOn(t *testing.T, p *portaltest.Portal, id string) store.UploadJob {
	t.Helper()
	return waitUpload(t, p, id)
}
