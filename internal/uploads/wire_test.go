package uploads_test

import (
	"context"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// TestAnalysisReadsTheStudentList: students the roster has not heard of are found in the
// service's student list, not asked for one GET at a time; those found join the roster,
// those the service does not know are the sheet's problem.
func TestAnalysisReadsTheStudentList(t *testing.T) {
	t.Parallel()
	var gets, lists atomic.Int64
	e := newEnvWith(t, 2*time.Second, func(next http.RoundTripper) http.RoundTripper {
		return countCalls{next: next, gets: &gets, lists: &lists}
	})
	const students, unknown = 300, 10
	sh, err := sheettest.Components(filepath.Join(e.dir, "a.xlsx"), sheettest.Options{Rows: 2 * students, Students: students})
	if err != nil {
		t.Fatal(err)
	}
	// At the service only (not through the writer: the roster does not learn of them),
	// all but the last few.
	var list []billing.Student
	for i := range students - unknown {
		list = append(list, billing.Student{NIS: sh.NIS[i], Name: sh.Names[i]})
	}
	if _, err := e.client.CreateStudents(context.Background(), list); err != nil {
		t.Fatal(err)
	}
	r := e.start(t, e.config())
	gets.Store(0)
	lists.Store(0)
	j := receive(t, r, uploads.Components, sh.Path)
	if j.State != uploads.StateReady || j.RowsNew != 2*(students-unknown) || j.RowsError != 2*unknown {
		t.Fatalf("preview: state %s, new %d, errors %d", j.State, j.RowsNew, j.RowsError)
	}
	if g, l := gets.Load(), lists.Load(); g != 0 || l < 1 || l > 2 {
		t.Fatalf("the analysis made %d student GETs and %d list calls; want none and one page (and the empty one)", g, l)
	}
	roster, err := e.db.StudentsByNIS(context.Background(), sh.NIS)
	if err != nil {
		t.Fatal(err)
	}
	if len(roster) != students-unknown || roster[sh.NIS[0]].Source != store.SourceSync {
		t.Fatalf("roster has %d of the sheet's students (first: %+v), want %d", len(roster), roster[sh.NIS[0]], students-unknown)
	}

	// The commit sends what the analysis kept; a few unknown students (a second sheet)
	// are asked one by one, the list is not read again for them.
	if err := r.Commit(context.Background(), j.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	if done := wait(t, r, j.ID); done.State != uploads.StatePartial && done.State != uploads.StateDone || done.Created != 2*(students-unknown) {
		t.Fatalf("job: state %s, created %d", done.State, done.Created)
	}
	if keys := e.upstreamKeys(t); len(keys) != 2*(students-unknown) {
		t.Fatalf("%d components at the service, want %d", len(keys), 2*(students-unknown))
	}
}

// TestCommitReadsTheSheetWhenNoRowsWereKept: an upload analysed before the analysis kept
// its rows (here: their file removed) is sent from its sheet, read once.
func TestCommitReadsTheSheetWhenNoRowsWereKept(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2*time.Second)
	sh, err := sheettest.Components(filepath.Join(e.dir, "a.xlsx"), sheettest.Options{Rows: 450, Students: 50, Bad: []int{3, 70}})
	if err != nil {
		t.Fatal(err)
	}
	e.enrol(t, sh)
	r := e.start(t, e.config())
	j := receive(t, r, uploads.Components, sh.Path)
	if err := e.db.DeleteUploadFiles(context.Background(), j.ID, store.UploadRows); err != nil {
		t.Fatal(err)
	}
	if err := r.Commit(context.Background(), j.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	if done := wait(t, r, j.ID); done.Created != 448 || done.ToSend != 448 {
		t.Fatalf("job: state %s, to send %d, created %d", done.State, done.ToSend, done.Created)
	}
	if keys := e.upstreamKeys(t); len(keys) != 448 {
		t.Fatalf("%d components at the service, want 448", len(keys))
	}
}
