package uploads_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// countIssues counts the problems the database holds for a job.
func countIssues(t *testing.T, db *store.DB, id string) int {
	t.Helper()
	n := 0
	for _, err := range db.AllUploadIssues(context.Background(), id) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

// TestIssuesKeptAreCapped: a sheet with more problems than are kept (300 bad cells and 4
// rows of a student the service does not know, with 100 kept here instead of
// uploads.MaxIssuesKept) stores only the first ones, with exact counts per kind of
// problem; the commit still skips every bad row, those whose problems were not kept
// included; discarding the upload forgets its problems.
func TestIssuesKeptAreCapped(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2*time.Second)
	bad := make([]int, 300)
	for i := range bad {
		bad[i] = i
	}
	sh, err := sheettest.Components(filepath.Join(e.dir, "a.xlsx"), sheettest.Options{Rows: 400, Students: 100, Bad: bad})
	if err != nil {
		t.Fatal(err)
	}
	known := sh
	known.NIS, known.Names = sh.NIS[:99], sh.Names[:99] // the 100th student is not at the service
	e.enrol(t, known)
	cfg := e.config()
	cfg.MaxIssues = 100
	r := e.start(t, cfg)
	ctx := context.Background()

	j := receive(t, r, uploads.Components, sh.Path)
	if j.State != uploads.StateReady || j.Issues != 304 || j.IssuesKept != 100 || j.RowsNew != 99 {
		t.Fatalf("analysed: %s, %d issues, %d kept, %d new", j.State, j.Issues, j.IssuesKept, j.RowsNew)
	}
	if n := countIssues(t, e.db, j.ID); n != 100 {
		t.Fatalf("%d problems stored, want 100", n)
	}
	counts := map[string]int{}
	total := 0
	for _, k := range j.IssueKinds {
		counts[k.Code[strings.LastIndex(k.Code, ".")+1:]] += k.Count
		total += k.Count
	}
	if total != 304 || counts["amount_invalid"] != 100 || counts["nis_unknown"] != 4 {
		t.Fatalf("counts per kind %v (total %d)", counts, total)
	}

	if err := r.Commit(ctx, j.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	j = wait(t, r, j.ID)
	if o, _ := r.Outcome(ctx, j.ID); j.State != uploads.StateDone || j.Created != 99 || len(o.Failures) != 0 {
		t.Fatalf("sent: %s, created %d, refused %v", j.State, j.Created, o.Failures)
	}
	if n := len(e.upstreamKeys(t)); n != 99 {
		t.Fatalf("%d components at the service, want 99", n)
	}

	// A second upload of a bad sheet, discarded: its problems go with it.
	small, err := sheettest.Components(filepath.Join(e.dir, "b.xlsx"), sheettest.Options{Rows: 10, Students: 5, NISPrefix: "B", Bad: []int{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	d := receive(t, r, uploads.Components, small.Path)
	if n := countIssues(t, e.db, d.ID); n == 0 {
		t.Fatal("no problems found in the bad sheet")
	}
	if err := r.Discard(ctx, d.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	if n := countIssues(t, e.db, d.ID); n != 0 {
		t.Fatalf("%d problems kept after discarding", n)
	}
}
