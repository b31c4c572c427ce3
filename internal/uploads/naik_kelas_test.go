package uploads_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// TestNaikKelas: a students sheet of the whole school at the start of the year. Existing
// students whose class changed are updated through the writer, each exactly once at the
// sandbox, under 503s and unanswered calls and a hard restart in the middle; unchanged ones
// are counted, not listed; an empty phone cell keeps the phone; new NIS are created as
// before.
func TestNaikKelas(t *testing.T) {
	t.Parallel()
	ce := newCorrectionsEnv(t, 300*time.Millisecond)
	const n = 120
	sh, err := sheettest.Students(filepath.Join(ce.dir, "siswa.xlsx"), sheettest.Options{Rows: n})
	if err != nil {
		t.Fatal(err)
	}
	ce.enrol(t, sh) // every student in "Kelas 7A", no phone
	// One student has a phone the sheet leaves empty.
	if _, err := ce.setup.UpdateStudent(context.Background(), financeActor, billing.Student{NIS: sh.NIS[0], Name: sh.Names[0],
		Description: "Kelas 7A", Phone: "6281200000001", KeyName: billing.DefaultKeyName}); err != nil {
		t.Fatal(err)
	}

	f := excelize.NewFile()
	must(t, f.SetSheetRow("Sheet1", "A1", &sheettest.StudentHeader))
	class := func(i int) string {
		if i%4 == 3 {
			return "Kelas 7A" // stays
		}
		return fmt.Sprintf("Kelas 8%c", 'A'+rune(i%3))
	}
	for i := range n + 2 {
		nis, name := sheettest.NIS("T", i), sheettest.StudentName(i)
		row := []any{nis, name, class(i), "", ""}
		must(t, f.SetSheetRow("Sheet1", "A"+strconv.Itoa(i+2), &row))
	}
	path := filepath.Join(ce.dir, "naik-kelas.xlsx")
	must(t, f.SaveAs(path))

	cfg := ce.config()
	cfg.Settle = 350 * time.Millisecond
	cfg.ChunkSize = 50 // corrections go 5 to a chunk
	r := uploads.NewRunner(cfg, ce.db, ce.client, ce.writer, ce.log)
	ce.startRunner(t, r)
	j := receive(t, r, uploads.Students, path)
	ch, err := r.Changes(context.Background(), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	stays := n / 4
	if j.RowsNew != 2 || j.RowsAlready != stays || j.RowsError != 0 || ch.Count != n-stays || ch.Unchanged != stays {
		t.Fatalf("preview: new %d, already %d, errors %d, changes %d, unchanged %d", j.RowsNew, j.RowsAlready, j.RowsError, ch.Count, ch.Unchanged)
	}
	if c := ch.First[0]; c.NIS != sh.NIS[0] || len(c.Cells) != 1 || c.Cells[0].Field != uploads.FieldClass || c.Cells[0].Old != "Kelas 7A" || c.Cells[0].New != "Kelas 8A" {
		t.Fatalf("first change %+v", c)
	}

	for k := range ce.applied.n {
		delete(ce.applied.n, k)
	}
	ce.sb.SetFaults(sandbox.Faults{ErrorRate: 0.2, Status: 503, TimeoutRate: 0.05})
	if err := r.Commit(context.Background(), j.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(40 * time.Second)
	for {
		p, err := ce.db.UploadProgressOf(context.Background(), j.ID, uploads.ChunkConfirmed, uploads.ChunkFailed, uploads.ChunkSent, uploads.ChunkUnknown)
		if err != nil {
			t.Fatal(err)
		}
		if p.Done() >= n/4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job made no progress: %+v", p)
		}
		time.Sleep(5 * time.Millisecond)
	}
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	_ = r.Stop(stopped)
	if mid, _ := ce.db.UploadJobByID(context.Background(), j.ID); uploads.StateOf(mid).Finished() {
		t.Fatalf("the job finished before the restart (%s); the test would prove nothing", mid.State)
	}
	r = uploads.NewRunner(cfg, ce.db, ce.client, ce.writer, ce.log)
	ce.startRunner(t, r)
	done := wait(t, r, j.ID)
	ce.sb.SetFaults(sandbox.Faults{})
	if done.State != uploads.StateDone || done.Created != n-stays+2 {
		t.Fatalf("job ended %s: done %d, failed %d", done.State, done.Created, done.Failed)
	}
	roster, err := ce.db.StudentsByNIS(context.Background(), append(append([]string{}, sh.NIS...), sheettest.NIS("T", n), sheettest.NIS("T", n+1)))
	if err != nil {
		t.Fatal(err)
	}
	// The checks read through the arranging client (10 s): the runner's 300 ms one is for
	// the faults, and a loaded machine can take longer than that for a plain read.
	check := ce.setup.Client
	for i := range n + 2 {
		nis := sheettest.NIS("T", i)
		st, err := check.Student(context.Background(), nis)
		if err != nil {
			t.Fatal(err)
		}
		if st.Description != class(i) || roster[nis].Description != class(i) {
			t.Errorf("%s: class %q at the service, %q in the roster; want %q", nis, st.Description, roster[nis].Description, class(i))
		}
	}
	if st, _ := check.Student(context.Background(), sh.NIS[0]); st.Phone != "6281200000001" {
		t.Errorf("the empty phone cell changed the phone to %q", st.Phone)
	}
	ce.applied.settled(t)
	ce.applied.mu.Lock()
	defer ce.applied.mu.Unlock()
	for i := range n {
		want := 1
		if class(i) == "Kelas 7A" {
			want = 0
		}
		if got := ce.applied.n[sh.NIS[i]]; got != want {
			t.Errorf("%s updated %d times at the sandbox, want %d", sh.NIS[i], got, want)
		}
	}
}
