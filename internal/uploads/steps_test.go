package uploads_test

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// TestCorrectionRowsChangedMeanwhile: a corrections sheet's rows go through the correction
// steps of internal/corrections: a bill paid, and one cancelled, between the preview and
// the commit are not changed (the service refuses; reading them back says why), the row
// says so in both languages, and the other rows are changed.
func TestCorrectionRowsChangedMeanwhile(t *testing.T) {
	t.Parallel()
	ce := newCorrectionsEnv(t, 2*time.Second)
	sh, err := sheettest.Students(filepath.Join(ce.dir, "siswa.xlsx"), sheettest.Options{Rows: 3})
	if err != nil {
		t.Fatal(err)
	}
	bills := ce.seed(t, sh, 3)
	byNIS := map[string]billing.Bill{}
	for _, b := range bills {
		byNIS[b.NIS] = b
	}
	f := excelize.NewFile()
	header := append(append([]any{}, sheettest.ComponentHeader...), "ID Tagihan")
	must(t, f.SetSheetRow("Sheet1", "A1", &header))
	for i, n := range sh.NIS {
		b := byNIS[n]
		row := []any{b.NIS, b.Name, b.AccountCode, b.Amount + 25_000, b.Penalty, billing.DayIn(b.Due, time.UTC),
			billing.DayIn(b.Expiry, time.UTC), nil, b.Notes, b.ComponentID}
		must(t, f.SetSheetRow("Sheet1", "A"+strconv.Itoa(i+2), &row))
	}
	path := filepath.Join(ce.dir, "koreksi.xlsx")
	must(t, f.SaveAs(path))

	r := uploads.NewRunner(ce.config(), ce.db, ce.client, ce.writer, ce.log)
	ce.startRunner(t, r)
	j := receive(t, r, uploads.Components, path)
	if ch, _ := r.Changes(context.Background(), j.ID); j.State != uploads.StateReady || ch.Count != 3 {
		t.Fatalf("preview: %s, %d changes", j.State, ch.Count)
	}
	paid, cancelled, kept := byNIS[sh.NIS[0]], byNIS[sh.NIS[1]], byNIS[sh.NIS[2]]
	ctx := context.Background()
	if _, err := ce.setup.Pay(ctx, financeActor, billing.Payment{NIS: paid.NIS, ComponentIDs: []string{paid.ComponentID}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ce.setup.CancelComponents(ctx, financeActor, []string{cancelled.ComponentID}, "salah", ""); err != nil {
		t.Fatal(err)
	}
	if err := r.Commit(ctx, j.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	j = wait(t, r, j.ID)
	o, err := r.Outcome(ctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != uploads.StatePartial || j.Created != 1 || j.Failed != 2 || len(o.Failures) != 2 {
		t.Fatalf("job %s, changed %d, failed %d, failures %+v", j.State, j.Created, j.Failed, o.Failures)
	}
	want := map[int]struct{ key, id, en string }{
		2: {corrections.ProblemPaid, "Baris 2: tidak diubah: Sudah dibayar", "Row 2: not changed: Paid"},
		3: {corrections.ProblemDeleted, "Baris 3: tidak diubah: Sudah dibatalkan", "Row 3: not changed: Already cancelled"},
	}
	for _, fl := range o.Failures {
		w := want[fl.Row]
		if fl.Code != uploads.FailNotChanged || fl.Arg != w.key {
			t.Errorf("row %d: %+v, want not changed because %s", fl.Row, fl, w.key)
		}
		id := uploads.FailureMessage(i18n.NewPrinter(i18n.Indonesian, nil), fl)
		en := uploads.FailureMessage(i18n.NewPrinter(i18n.English, nil), fl)
		if !strings.HasPrefix(id, w.id) || !strings.HasPrefix(en, w.en) {
			t.Errorf("row %d worded %q / %q", fl.Row, id, en)
		}
	}
	for _, b := range []billing.Bill{paid, cancelled, kept} {
		got, err := ce.client.GetComponent(ctx, b.ComponentID)
		if err != nil {
			t.Fatal(err)
		}
		want := b.Amount
		if b.ComponentID == kept.ComponentID {
			want += 25_000
		}
		if got.Amount != want {
			t.Errorf("%s at the service: %d, want %d", b.ComponentID, got.Amount, want)
		}
	}
}

// TestStepsAreAuditedByTheRunner: every step a person takes on an upload is written to
// the audit log by the runner, once, as theirs (role, address), naming the upload; a step
// its state refuses writes nothing.
func TestStepsAreAuditedByTheRunner(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2*time.Second)
	sh, err := sheettest.Components(filepath.Join(e.dir, "a.xlsx"), sheettest.Options{Rows: 10, Students: 5})
	if err != nil {
		t.Fatal(err)
	}
	e.enrol(t, sh)
	r := e.start(t, e.config())
	ctx := context.Background()
	first := receive(t, r, uploads.Components, sh.Path)
	again, err := r.Receive(ctx, financeActor, uploads.Components, "lagi.xlsx", mustOpen(t, sh.Path))
	if err != nil || again.Job.State != uploads.StateHeld {
		t.Fatalf("the same file again: %s %v", again.Job.State, err)
	}
	if err := r.Analyse(ctx, again.Job.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	wait(t, r, again.Job.ID)
	if err := r.Discard(ctx, again.Job.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	if err := r.Commit(ctx, first.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	wait(t, r, first.ID)
	if err := r.Commit(ctx, first.ID, financeActor); err == nil {
		t.Fatal("committed twice")
	}
	if err := r.Retry(ctx, first.ID, financeActor); err == nil {
		t.Fatal("retried a job with nothing to retry")
	}
	steps := map[string]int{}
	for _, action := range []string{uploads.ActionReceive, uploads.ActionAnalyse, uploads.ActionCommit, uploads.ActionRetry, uploads.ActionDiscard} {
		entries, _, err := e.db.ListAudit(ctx, store.AuditFilter{Action: action, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range entries {
			steps[a.Action+" "+a.Target]++
			if a.Actor != "finance" || a.ActorRole != "finance" || a.IP != "127.0.0.1" || a.Outcome != "ok" ||
				!strings.HasPrefix(a.Detail, `components "`) {
				t.Errorf("%s entry: %+v", action, a)
			}
		}
	}
	want := map[string]int{"upload.receive " + first.ID: 1, "upload.receive " + again.Job.ID: 1, "upload.analyse " + again.Job.ID: 1,
		"upload.discard " + again.Job.ID: 1, "upload.commit " + first.ID: 1}
	if len(steps) != len(want) {
		t.Errorf("audited %v, want %v", steps, want)
	}
	for k, n := range want {
		if steps[k] != n {
			t.Errorf("%s audited %d times, want %d", k, steps[k], n)
		}
	}
}
