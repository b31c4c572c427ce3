package uploads_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// appliedUpdates counts, in front of the sandbox, the component and student updates it
// applied (by component id, by NIS): a PUT /bill_component or PUT /bill answered 200, or
// never answered (the sandbox's timeout fault applies the request and then holds the
// answer). An injected 503 applied nothing. A held answer is counted when the sandbox lets
// it go (the client gave up on it), which can be after the job has read the update back
// and finished: read the counts after settled.
type appliedUpdates struct {
	next     http.Handler
	mu       sync.Mutex
	n        map[string]int
	inflight atomic.Int64
}

// settled waits until every update the sandbox is still holding has been let go and
// counted.
func (a *appliedUpdates) settled(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); a.inflight.Load() > 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the sandbox still holds answers to updates 30 s after the job ended")
		}
	}
}

type statusOf struct {
	http.ResponseWriter
	code int
}

func (s *statusOf) WriteHeader(code int) { s.code = code; s.ResponseWriter.WriteHeader(code) }
func (s *statusOf) Write(b []byte) (int, error) {
	if s.code == 0 {
		s.code = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (a *appliedUpdates) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPut || r.URL.Path != "/bill_component" && r.URL.Path != "/bill" {
		a.next.ServeHTTP(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var in struct {
		ID  string `json:"id"`
		NIS string `json:"bill_key_value"`
	}
	_ = json.Unmarshal(body, &in)
	a.inflight.Add(1)
	defer a.inflight.Add(-1)
	if r.URL.Path == "/bill" {
		in.ID = in.NIS
	}
	sw := &statusOf{ResponseWriter: w}
	a.next.ServeHTTP(sw, r)
	if sw.code == http.StatusOK || sw.code == 0 {
		a.mu.Lock()
		a.n[in.ID]++
		a.mu.Unlock()
	}
}

// correctionsEnv is the sandbox behind appliedUpdates, with a ledger, and a client that
// never resends a call by itself (MaxAttempts 1): what reaches the sandbox twice was sent
// twice by the job.
type correctionsEnv struct {
	*env
	applied *appliedUpdates
	ledger  *ledger.Ledger
}

func newCorrectionsEnv(t *testing.T, timeout time.Duration) *correctionsEnv {
	t.Helper()
	e := newEnv(t, timeout)
	ce := &correctionsEnv{env: e, applied: &appliedUpdates{next: e.sb, n: map[string]int{}}}
	srv := httptest.NewServer(ce.applied)
	t.Cleanup(srv.Close)
	client, err := billing.New(billing.Config{BaseURL: srv.URL, Username: "portal", Password: "issued", Now: e.sb.Now,
		Timeout: timeout, MaxAttempts: 1, RetryBase: 5 * time.Millisecond, RetryMax: 20 * time.Millisecond, Logger: e.log})
	if err != nil {
		t.Fatal(err)
	}
	ce.ledger, err = ledger.New(context.Background(), ledger.Config{DB: e.db, Clock: clock.New(e.sb.Now, e.sb.Location())})
	if err != nil {
		t.Fatal(err)
	}
	e.client = client
	e.writer = &changes.Writer{Client: client, DB: e.db, Ledger: ce.ledger, Log: e.log, Clock: clock.System(time.UTC)}
	e.setup = setupWriter(t, srv.URL, e.sb, e.db, ce.ledger, e.log)
	return ce
}

// seed creates rows components for the sheet's students and returns them by id.
func (ce *correctionsEnv) seed(t *testing.T, sh sheettest.Sheet, rows int) map[string]billing.Bill {
	t.Helper()
	ce.enrol(t, sh)
	out := map[string]billing.Bill{}
	for start := 0; start < rows; start += 200 {
		var in []billing.ComponentInput
		for i := start; i < min(start+200, rows); i++ {
			due := time.Date(2026, time.Month(8+i/len(sh.NIS)), 10, 0, 0, 0, 0, time.UTC)
			in = append(in, billing.ComponentInput{NIS: sh.NIS[i%len(sh.NIS)], AccountCode: "SPP", Name: "SPP " + due.Format("01/2006"),
				Due: due, Expiry: due.AddDate(0, 1, 0), Amount: 300_000, Penalty: 10_000, Notes: "awal"})
		}
		bills, err := ce.setup.CreateComponents(context.Background(), financeActor, in, "seed")
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bills {
			out[b.ComponentID] = b
		}
	}
	if len(out) != rows {
		t.Fatalf("seeded %d components, want %d", len(out), rows)
	}
	return out
}

// exportAndEdit writes the bills as the corrections sheet and edits it in excelize as a
// bursar would in Excel: every amount up by 50,000; every third row's notes and due date
// (a day later) changed too. It returns the sheet's path and the edited values by id.
func exportAndEdit(t *testing.T, dir string, bills map[string]billing.Bill) (string, map[string]billing.Bill) {
	t.Helper()
	var buf bytes.Buffer
	seq := func(yield func(billing.Bill, error) bool) {
		for _, b := range bills {
			if !yield(b, nil) {
				return
			}
		}
	}
	if err := uploads.WriteCorrectionSheet(&buf, accounts, seq); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sheet := f.GetSheetName(0)
	want := map[string]billing.Bill{}
	for row := 2; row < len(bills)+2; row++ {
		id, _ := f.GetCellValue(sheet, "J"+strconv.Itoa(row))
		b, ok := bills[id]
		if !ok {
			t.Fatalf("row %d: id %q is not one of the exported bills", row, id)
		}
		b.Amount += 50_000
		must(t, f.SetCellValue(sheet, "D"+strconv.Itoa(row), b.Amount))
		if row%3 == 0 {
			b.Notes = "dikoreksi"
			b.Due = billing.DayIn(b.Due, time.UTC).AddDate(0, 0, 1)
			must(t, f.SetCellValue(sheet, "I"+strconv.Itoa(row), b.Notes))
			must(t, f.SetCellValue(sheet, "F"+strconv.Itoa(row), b.Due))
		}
		want[id] = b
	}
	path := filepath.Join(dir, "koreksi.xlsx")
	if err := f.SaveAs(path); err != nil {
		t.Fatal(err)
	}
	return path, want
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// sameFields compares every field a correction may change, at the sandbox.
func sameFields(got, want billing.Bill) error {
	day := func(t time.Time) string { return billing.DayIn(t, time.UTC).Format(time.DateOnly) }
	switch {
	case got.NIS != want.NIS, got.Name != want.Name, got.AccountCode != want.AccountCode:
		return fmt.Errorf("NIS/name/account %s/%q/%s, want %s/%q/%s", got.NIS, got.Name, got.AccountCode, want.NIS, want.Name, want.AccountCode)
	case got.Amount != want.Amount, got.Penalty != want.Penalty:
		return fmt.Errorf("amount/penalty %d/%d, want %d/%d", got.Amount, got.Penalty, want.Amount, want.Penalty)
	case day(got.Due) != day(want.Due), day(got.Expiry) != day(want.Expiry), got.Active.IsZero() != want.Active.IsZero():
		return fmt.Errorf("due/expiry %s/%s, want %s/%s", day(got.Due), day(got.Expiry), day(want.Due), day(want.Expiry))
	case got.Notes != want.Notes:
		return fmt.Errorf("notes %q, want %q", got.Notes, want.Notes)
	}
	return nil
}

// TestCorrectionsUnderFaultsAndRestart: a corrections sheet of 300 bills sent while the
// service fails a fifth of the calls and applies some without answering, with two more
// answers lost on purpose, and the portal stopped hard in the middle, ends with every bill
// changed exactly once: each update applied at the sandbox once, every field as the sheet
// says.
func TestCorrectionsUnderFaultsAndRestart(t *testing.T) {
	t.Parallel()
	const rows = 300
	timeout := 150 * time.Millisecond
	if raceEnabled {
		timeout = 3 * time.Second
	}
	ce := newCorrectionsEnv(t, timeout)
	sh, err := sheettest.Students(filepath.Join(ce.dir, "siswa.xlsx"), sheettest.Options{Rows: 60})
	if err != nil {
		t.Fatal(err)
	}
	bills := ce.seed(t, sh, rows)
	path, want := exportAndEdit(t, ce.dir, bills)

	cfg := ce.config()
	cfg.Settle = timeout + 50*time.Millisecond
	r1 := uploads.NewRunner(cfg, ce.db, ce.client, ce.writer, ce.log)
	ce.startRunner(t, r1)
	j := receive(t, r1, uploads.Components, path)
	ch, err := r1.Changes(context.Background(), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != uploads.StateReady || j.RowsNew != 0 || j.RowsError != 0 || ch.Count != rows {
		t.Fatalf("preview: state %s, new %d, errors %d, changes %d (%s)", j.State, j.RowsNew, j.RowsError, ch.Count, j.Problem)
	}
	// Old → new per changed cell: the amount always, notes and due date on every third row.
	first := ch.First[0]
	if b := bills[first.ID]; first.Cells[0].Old != strconv.FormatInt(b.Amount, 10) || first.Cells[0].New != strconv.FormatInt(b.Amount+50_000, 10) {
		t.Fatalf("first change %+v; bill amount %d", first, b.Amount)
	}
	for id := range ce.applied.n {
		delete(ce.applied.n, id)
	}

	ce.sb.SetFaults(sandbox.Faults{ErrorRate: 0.2, Status: 503, TimeoutRate: 0.05})
	if err := r1.Commit(context.Background(), j.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(40 * time.Second)
	for {
		p, err := ce.db.UploadProgressOf(context.Background(), j.ID, uploads.ChunkConfirmed, uploads.ChunkFailed, uploads.ChunkSent, uploads.ChunkUnknown)
		if err != nil {
			t.Fatal(err)
		}
		if p.Done() >= rows/4 {
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
	if mid, _ := ce.db.UploadJobByID(context.Background(), j.ID); uploads.StateOf(mid).Finished() {
		t.Fatalf("the job finished before the restart (%s); the test would prove nothing", mid.State)
	}

	r2 := uploads.NewRunner(cfg, ce.db, ce.client, ce.writer, ce.log)
	ce.startRunner(t, r2)
	done := wait(t, r2, j.ID)
	ce.sb.SetFaults(sandbox.Faults{})
	if done.State != uploads.StateDone || done.Created != rows || done.Failed != 0 {
		t.Fatalf("job ended %s: done %d, failed %d", done.State, done.Created, done.Failed)
	}
	ce.applied.settled(t)
	ce.applied.mu.Lock()
	defer ce.applied.mu.Unlock()
	twice := 0
	for id, b := range want {
		// Read through the arranging client (10 s): the runner's short one is for the faults.
		got, err := ce.setup.Client.GetComponent(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if err := sameFields(got, b); err != nil {
			t.Errorf("component %s: %v", id, err)
		}
		if n := ce.applied.n[id]; n != 1 {
			twice++
			if twice < 5 {
				t.Errorf("component %s updated %d times at the sandbox, want once", id, n)
			}
		}
	}
	if twice > 0 {
		t.Errorf("%d components not updated exactly once", twice)
	}
	chunks, _ := ce.db.UploadChunks(context.Background(), j.ID)
	attempts, recognised := 0, 0
	for _, c := range chunks {
		attempts += c.Attempts
		recognised += c.Recognised
	}
	t.Logf("%d chunks, %d sends, %d rows recognised after lost answers", len(chunks), attempts, recognised)
	_ = os.Remove(path)
}

// TestCorrectionProblems: an id that is unknown, paid, cancelled, another student's or
// named twice is a problem in its cell, worded in both languages and marked in the error
// workbook; a row that changes nothing is already there; a row without an id is created.
func TestCorrectionProblems(t *testing.T) {
	t.Parallel()
	ce := newCorrectionsEnv(t, 2*time.Second)
	sh, err := sheettest.Students(filepath.Join(ce.dir, "siswa.xlsx"), sheettest.Options{Rows: 6})
	if err != nil {
		t.Fatal(err)
	}
	bills := ce.seed(t, sh, 6)
	byNIS := map[string]billing.Bill{}
	for _, b := range bills {
		byNIS[b.NIS] = b
	}
	paid, cancelled := byNIS[sh.NIS[1]], byNIS[sh.NIS[2]]
	if _, err := ce.setup.Pay(context.Background(), financeActor, billing.Payment{NIS: paid.NIS, ComponentIDs: []string{paid.ComponentID}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ce.setup.CancelComponents(context.Background(), financeActor, []string{cancelled.ComponentID}, "salah", ""); err != nil {
		t.Fatal(err)
	}
	same, changed, other := byNIS[sh.NIS[0]], byNIS[sh.NIS[3]], byNIS[sh.NIS[4]]
	row := func(b billing.Bill, nis, id string, amount int64) []any {
		return []any{nis, b.Name, b.AccountCode, amount, b.Penalty, billing.DayIn(b.Due, time.UTC), billing.DayIn(b.Expiry, time.UTC), nil, b.Notes, id}
	}
	sheet := [][]any{
		row(same, same.NIS, same.ComponentID, same.Amount),                  // 2: nothing changes
		row(paid, paid.NIS, paid.ComponentID, paid.Amount+1),                // 3: paid
		row(cancelled, cancelled.NIS, cancelled.ComponentID, 150_000),       // 4: cancelled
		row(other, sh.NIS[5], other.ComponentID, other.Amount+1),            // 5: another student's
		row(changed, changed.NIS, "01-tidak-ada", 50_000),                   // 6: unknown
		row(changed, changed.NIS, changed.ComponentID, changed.Amount+1000), // 7: a correction
		row(changed, changed.NIS, changed.ComponentID, changed.Amount+2000), // 8: the same id again
		row(changed, changed.NIS, "", 75_000)[:9],                           // 9: a new bill (another name below)
	}
	sheet[7][1] = "Uang Buku"
	f := excelize.NewFile()
	header := append(append([]any{}, sheettest.ComponentHeader...), "ID Tagihan")
	must(t, f.SetSheetRow("Sheet1", "A1", &header))
	for i, r := range sheet {
		must(t, f.SetSheetRow("Sheet1", "A"+strconv.Itoa(i+2), &r))
	}
	path := filepath.Join(ce.dir, "koreksi.xlsx")
	must(t, f.SaveAs(path))

	r := uploads.NewRunner(ce.config(), ce.db, ce.client, ce.writer, ce.log)
	ce.startRunner(t, r)
	j := receive(t, r, uploads.Components, path)
	ch, err := r.Changes(context.Background(), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if j.RowsNew != 1 || j.RowsAlready != 1 || j.RowsError != 5 || ch.Count != 1 || ch.Unchanged != 1 {
		t.Fatalf("preview: new %d, already %d, errors %d, changes %+v", j.RowsNew, j.RowsAlready, j.RowsError, ch)
	}
	if c := ch.First[0]; c.Row != 7 || len(c.Cells) != 1 || c.Cells[0].Field != uploads.FieldAmount || c.Cells[0].New != strconv.FormatInt(changed.Amount+1000, 10) {
		t.Fatalf("change %+v", ch.First[0])
	}
	issues, err := ce.db.UploadIssues(context.Background(), j.ID, 0, 50)
	if err != nil {
		t.Fatal(err)
	}
	id, en := i18n.NewPrinter(i18n.Indonesian, nil), i18n.NewPrinter(i18n.English, nil)
	got := map[string]string{}
	for _, is := range issues {
		i := uploads.IssueOf(is)
		got[i.Cell()] = is.Code + " | " + i.Message(id) + " | " + i.Message(en)
	}
	for cell, want := range map[string][]string{
		"J3": {"id_paid", "sudah dibayar", "already paid"},
		"J4": {"id_deleted", "dibatalkan", "cancelled"},
		"J5": {"id_other_nis", other.NIS, "another student"},
		"J6": {"id_unknown", "tidak dikenal", "not known"},
		"J8": {"duplicate_id", "baris 7", "row 7"},
	} {
		for _, w := range want {
			if !strings.Contains(got[cell], w) {
				t.Errorf("%s: %q lacks %q", cell, got[cell], w)
			}
		}
	}
	if len(got) != 5 {
		t.Errorf("problems %q", got)
	}
	var book bytes.Buffer
	if err := r.ErrorWorkbook(context.Background(), j, &book, en); err != nil {
		t.Fatal(err)
	}
	eb, err := excelize.OpenReader(&book)
	if err != nil {
		t.Fatal(err)
	}
	comments, _ := eb.GetComments(eb.GetSheetName(0))
	marked := 0
	for _, c := range comments {
		if strings.HasPrefix(c.Cell, "J") {
			marked++
		}
	}
	if marked != 5 {
		t.Errorf("error workbook marks %d id cells, want 5", marked)
	}
}

// TestCorrectionSheetShape: the export is the components template with data: the same
// header and checks, a NIS keeping its leading zeros as text, amounts and days formatted
// as the template formats them, the id last.
func TestCorrectionSheetShape(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	d := time.Date(2026, 7, 10, 0, 0, 0, 0, time.UTC)
	seq := func(yield func(billing.Bill, error) bool) {
		yield(billing.Bill{ComponentID: "c-1", NIS: "0012", Name: "SPP Juli", AccountCode: "SPP", Amount: 1_250_000, Due: d, Expiry: d.AddDate(0, 1, 0)}, nil)
	}
	must(t, uploads.WriteCorrectionSheet(&buf, accounts, seq))
	var tpl bytes.Buffer
	must(t, uploads.WriteTemplate(&tpl, uploads.Components, accounts))
	f, err := excelize.OpenReader(&buf)
	must(t, err)
	empty, err := excelize.OpenReader(&tpl)
	must(t, err)
	s := f.GetSheetName(0)
	rows, _ := f.GetRows(s)
	want, _ := empty.GetRows(s)
	if len(rows) != 2 || strings.Join(rows[0], "|") != strings.Join(want[0], "|") {
		t.Fatalf("rows %q, template header %q", rows, want)
	}
	for cell, v := range map[string]string{"A2": "0012", "D2": "1,250,000", "F2": "10/07/2026", "G2": "10/08/2026", "J2": "c-1"} {
		if got, _ := f.GetCellValue(s, cell); got != v {
			t.Errorf("%s = %q, want %q", cell, got, v)
		}
	}
	got, _ := f.GetDataValidations(s)
	exp, _ := empty.GetDataValidations(s)
	if len(got) != len(exp) || len(got) == 0 {
		t.Fatalf("%d checks, the template has %d", len(got), len(exp))
	}
	for i := range got {
		if got[i].Sqref != exp[i].Sqref || got[i].Type != exp[i].Type || got[i].Formula1 != exp[i].Formula1 {
			t.Errorf("check %d: %s %s, template's %s %s", i, got[i].Sqref, got[i].Type, exp[i].Sqref, exp[i].Type)
		}
	}
}
