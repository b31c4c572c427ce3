package uploads_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// TestInstancesShareOnlyTheDatabase: two portal instances on different machines share the
// database and nothing else (each its own directories). The sheet one received is
// committed and sent by the other, which also makes its error workbook, and a Retry of a
// job that failed before sending works on the instance that did not receive it.
func TestInstancesShareOnlyTheDatabase(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2*time.Second)
	sh, err := sheettest.Components(filepath.Join(e.dir, "a.xlsx"), sheettest.Options{Rows: 60, Students: 10, Bad: []int{4}})
	if err != nil {
		t.Fatal(err)
	}
	e.enrol(t, sh)
	machine := func(name string) uploads.Config {
		cfg := e.config()
		cfg.LegacyDir = filepath.Join(t.TempDir(), name, "uploads")
		cfg.Limits = uploads.DefaultLimits(20 << 20)
		cfg.Limits.TempDir = filepath.Join(t.TempDir(), name, "tmp")
		cfg.MaxAttempts, cfg.WaitFor = 2, 300*time.Millisecond
		return cfg
	}
	ctx := context.Background()

	a := uploads.NewRunner(machine("a"), e.db, e.client, e.writer, e.log)
	e.startRunner(t, a)
	j := receive(t, a, uploads.Components, sh.Path)
	if j.State != uploads.StateReady || j.RowsNew != 59 {
		t.Fatalf("analysed on a: %s, %d new", j.State, j.RowsNew)
	}
	if err := a.Stop(ctx); err != nil {
		t.Fatal(err)
	}

	b := uploads.NewRunner(machine("b"), e.db, e.client, e.writer, e.log)
	e.startRunner(t, b)
	var book bytes.Buffer
	if err := b.ErrorWorkbook(ctx, j, &book, i18nPrinter()); err != nil || book.Len() == 0 {
		t.Fatalf("error workbook on b: %d bytes, %v", book.Len(), err)
	}
	// The service is down when b checks the rows before sending: the job fails with nothing
	// sent; Retry, on b, reads the sheet again and sends it.
	e.sb.SetFaults(sandbox.Faults{ErrorRate: 1, Status: 503})
	if err := b.Commit(ctx, j.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	if j = wait(t, b, j.ID); j.State != uploads.StateFailed || j.Problem != "upstream" {
		t.Fatalf("with the service down: %s, problem %q", j.State, j.Problem)
	}
	e.sb.SetFaults(sandbox.Faults{})
	if err := b.Retry(ctx, j.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	if j = wait(t, b, j.ID); j.State != uploads.StateDone || j.Created != 59 {
		t.Fatalf("after Retry on b: %s, created %d, problem %q", j.State, j.Created, j.Problem)
	}
	if keys := e.upstreamKeys(t); len(keys) != 59 {
		t.Errorf("%d components at the service, want 59", len(keys))
	}
}

// TestSheetsOnDiskMoveIntoTheDatabase: sheets an earlier version kept in the data
// directory are moved into the database at start (and the files removed), so their
// uploads go on as before; one whose file is gone is said to be gone.
func TestSheetsOnDiskMoveIntoTheDatabase(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2*time.Second)
	sh, err := sheettest.Components(filepath.Join(e.dir, "a.xlsx"), sheettest.Options{Rows: 20, Students: 5})
	if err != nil {
		t.Fatal(err)
	}
	e.enrol(t, sh)
	ctx := context.Background()
	legacy := filepath.Join(t.TempDir(), "data", "uploads")
	if err := os.MkdirAll(legacy, 0o750); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(sh.Path)
	if err != nil {
		t.Fatal(err)
	}
	// As the old version left them: analysing (its analysis cut short), and one whose file
	// is not there.
	kept, err := e.db.CreateUploadJob(ctx, store.UploadJob{Kind: "components", FileName: "a.xlsx", FileSHA256: "x", FileSize: int64(len(data)),
		FileKept: true, State: uploads.StateAnalysing, UploadedByID: "u", UploadedBy: "finance"})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(legacy, kept.ID+".xlsx"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	lost, err := e.db.CreateUploadJob(ctx, store.UploadJob{Kind: "components", FileName: "b.xlsx", FileSHA256: "y", FileSize: 10,
		FileKept: true, State: uploads.StateReady, UploadedByID: "u", UploadedBy: "finance"})
	if err != nil {
		t.Fatal(err)
	}

	cfg := e.config()
	cfg.LegacyDir = legacy
	r := e.start(t, cfg)
	j := wait(t, r, kept.ID)
	if j.State != uploads.StateReady || j.RowsNew != 20 || !j.FileKept {
		t.Fatalf("moved upload: %s, %d new, kept %v, problem %q", j.State, j.RowsNew, j.FileKept, j.Problem)
	}
	var back bytes.Buffer
	if _, err := e.db.CopyUploadFile(ctx, kept.ID, store.UploadSheet, &back); err != nil || !bytes.Equal(back.Bytes(), data) {
		t.Fatalf("sheet in the database: %d bytes, %v", back.Len(), err)
	}
	if _, err := os.Stat(legacy); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the old upload folder is still there: %v", err)
	}
	if j, _ := e.db.UploadJobByID(ctx, lost.ID); j.FileKept {
		t.Error("an upload whose file is nowhere still says it is kept")
	}
	if err := r.Commit(ctx, kept.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	if j := wait(t, r, kept.ID); j.State != uploads.StateDone || j.Created != 20 {
		t.Fatalf("moved upload sent: %s, created %d", j.State, j.Created)
	}
}
