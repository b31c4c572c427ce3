package uploads_test

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// TestFaultsAndRestart is the promise of the upload job: 5,000 rows sent while the service
// fails a fifth of the calls, applies some and then never answers, and the portal is
// stopped in the middle of the job and started again, end as exactly 5,000 components at
// the service: none missing, none twice.
func TestFaultsAndRestart(t *testing.T) {
	t.Parallel()
	// The sandbox's faults are random; two answers lost after the batch was applied are
	// certain, so the case that matters most happens in every run.
	rows, timeout, stopAt := 5000, 150*time.Millisecond, 8
	if raceEnabled {
		rows, timeout, stopAt = 1000, 3*time.Second, 2
	}
	f := &faulty{path: "/bill_component/batch", lose: 2}
	e := newEnvWith(t, timeout, func(next http.RoundTripper) http.RoundTripper { f.next = next; return f })
	sh, err := sheettest.Components(filepath.Join(e.dir, "tagihan.xlsx"), sheettest.Options{Rows: rows, Students: rows / 10})
	if err != nil {
		t.Fatal(err)
	}
	e.enrol(t, sh)
	cfg := e.config()
	cfg.Settle = timeout + 50*time.Millisecond // past the client's timeout: a lost call has landed by then

	r1 := e.start(t, cfg)
	job := receive(t, r1, uploads.Components, sh.Path)
	if job.State != uploads.StateReady || job.RowsNew != rows || job.RowsError != 0 {
		t.Fatalf("preview: state %s, new %d, errors %d, problem %s", job.State, job.RowsNew, job.RowsError, job.Problem)
	}

	e.sb.SetFaults(sandbox.Faults{ErrorRate: 0.2, Status: 503, TimeoutRate: 0.05})
	if err := r1.Commit(context.Background(), job.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	// Stop the portal hard once a third of the chunks are through: calls in flight are cut.
	deadline := time.Now().Add(40 * time.Second)
	for {
		p, err := e.db.UploadProgressOf(context.Background(), job.ID, uploads.ChunkConfirmed, uploads.ChunkFailed, uploads.ChunkSent, uploads.ChunkUnknown)
		if err != nil {
			t.Fatal(err)
		}
		if p.Confirmed >= stopAt {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job made no progress: %+v", p)
		}
		time.Sleep(5 * time.Millisecond)
	}
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	_ = r1.Stop(stopped)
	mid, err := e.db.UploadJobByID(context.Background(), job.ID)
	if err != nil {
		t.Fatal(err)
	}
	if uploads.StateOf(mid).Finished() {
		t.Fatalf("the job finished before the restart (%s); the test would prove nothing", mid.State)
	}
	chunks, _ := e.db.UploadChunks(context.Background(), job.ID)
	states := map[string]int{}
	for _, c := range chunks {
		states[c.State]++
	}
	t.Logf("stopped with chunks %v", states)

	r2 := e.start(t, cfg)
	done := wait(t, r2, job.ID)
	e.sb.SetFaults(sandbox.Faults{})
	if done.State != uploads.StateDone || done.Created != rows || done.Failed != 0 {
		t.Fatalf("job ended %s: created %d, failed %d", done.State, done.Created, done.Failed)
	}

	keys := e.upstreamKeys(t)
	total, twice := 0, 0
	for _, n := range keys {
		total += n
		if n > 1 {
			twice++
		}
	}
	if len(keys) != rows || total != rows || twice != 0 {
		t.Fatalf("at the service: %d distinct components, %d in all, %d twice; want exactly %d", len(keys), total, twice, rows)
	}
	chunks, _ = e.db.UploadChunks(context.Background(), job.ID)
	attempts, recognised := 0, 0
	for _, c := range chunks {
		attempts += c.Attempts
		recognised += c.Recognised
	}
	t.Logf("%d chunks, %d sends, %d rows recognised after lost answers", len(chunks), attempts, recognised)
	if recognised < 400 {
		t.Errorf("%d rows recognised; the two lost answers alone were 400 rows", recognised)
	}
}
