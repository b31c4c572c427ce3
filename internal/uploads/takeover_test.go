package uploads_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// receiveIdle records an upload through a runner that never started: the upload waits in
// "analysing", as one whose instance stopped (or died) before or during its analysis.
func receiveIdle(t *testing.T, e *env, cfg uploads.Config, path string) string {
	t.Helper()
	idle := uploads.NewRunner(cfg, e.db, e.client, e.writer, e.log)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := idle.Receive(context.Background(), financeActor, uploads.Components, filepath.Base(path), f)
	if err != nil {
		t.Fatal(err)
	}
	return rec.Job.ID
}

// TestAnalysisTakenOverWhenTheLeaseLapses: an analysis whose instance died holding its
// lease is taken over by a running instance once the lease lapses, as commit jobs are;
// it does not stay "being checked" until the next restart.
func TestAnalysisTakenOverWhenTheLeaseLapses(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2*time.Second)
	sh, err := sheettest.Components(filepath.Join(e.dir, "a.xlsx"), sheettest.Options{Rows: 30, Students: 10})
	if err != nil {
		t.Fatal(err)
	}
	e.enrol(t, sh)
	cfg := e.config()
	cfg.LeaseTTL, cfg.LeaseRenew = 400*time.Millisecond, 50*time.Millisecond
	id := receiveIdle(t, e, cfg, sh.Path)
	ctx := context.Background()
	now := time.Now()
	if ok, err := e.db.JobLeases(store.UploadJobsTable).Claim(ctx, id, "dead-instance", now.Add(cfg.LeaseTTL), now); err != nil || !ok {
		t.Fatalf("claim for the dead instance: %v %v", ok, err)
	}
	r := e.start(t, cfg) // finds the analysis leased elsewhere, leaves it; takes it when the lease lapses
	if j := wait(t, r, id); j.State != uploads.StateReady || j.RowsNew != 30 {
		t.Fatalf("taken over: %s, %d new", j.State, j.RowsNew)
	}
}

// TestStuckAnalysisCanBeDiscarded: an analysis can be discarded while it is being checked,
// here or in an instance that holds it: its sheet, problems and lease go, and the instance
// holding it stops.
func TestStuckAnalysisCanBeDiscarded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2*time.Second)
	sh, err := sheettest.Components(filepath.Join(e.dir, "a.xlsx"), sheettest.Options{Rows: 30, Students: 10, Bad: []int{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := e.config()
	id := receiveIdle(t, e, cfg, sh.Path)
	ctx := context.Background()
	now := time.Now()
	if ok, err := e.db.JobLeases(store.UploadJobsTable).Claim(ctx, id, "other-instance", now.Add(time.Hour), now); err != nil || !ok {
		t.Fatalf("claim for the other instance: %v %v", ok, err)
	}
	r := e.start(t, cfg)
	if err := r.Discard(ctx, id, financeActor); err != nil {
		t.Fatalf("discard a stuck analysis: %v", err)
	}
	j, err := e.db.UploadJobByID(ctx, id)
	if err != nil || j.State != uploads.StateDiscarded || j.FileKept {
		t.Fatalf("after discard: %s, kept %v, %v", j.State, j.FileKept, err)
	}
	if _, err := e.db.UploadFileSize(ctx, id, store.UploadSheet); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("sheet kept: %v", err)
	}
	// The other instance's lease is gone: its next renewal fails and it stops.
	if ok, err := e.db.JobLeases(store.UploadJobsTable).Renew(ctx, id, "other-instance", time.Now().Add(time.Hour)); err != nil || ok {
		t.Errorf("the other instance still holds the discarded upload: %v %v", ok, err)
	}
	if err := r.Discard(ctx, id, financeActor); !errors.Is(err, uploads.ErrState) {
		t.Errorf("discarded twice: %v", err)
	}
}
