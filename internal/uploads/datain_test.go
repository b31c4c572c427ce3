package uploads_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// The sheets of issue 27, as schools really have them: each was accepted and committed
// with wrong data, or refused, before uploads read through internal/sheets.

// day is a calendar day at UTC midnight.
func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// schoolToday is the school's today of these tests: the school year 2027/2028.
var schoolToday = day(2027, 7, 20)

// codesAt lists the issues as "D2 uploads.warn.amount_small", in order.
func codesAt(issues []uploads.Issue) []string {
	var out []string
	for _, is := range issues {
		out = append(out, is.Cell()+" "+is.Problem.Key)
	}
	return out
}

// issueAt is the first issue at cell with the key, and whether there is one.
func issueAt(issues []uploads.Issue, cell, key string) (uploads.Issue, bool) {
	for _, is := range issues {
		if is.Cell() == cell && is.Problem.Key == key {
			return is, true
		}
	}
	return uploads.Issue{}, false
}

// englishComputerSheet is a components sheet typed as Indonesians type, on a computer set
// to English, as Excel saved it: "350.000" stored as 350 and "25.000" as 25 (a dot is the
// decimal point there), "10/08/2027" as the date 8 October 2027 (Excel's short date, month
// first), "30/11/2027" left a text (no month 30), "1.200.000" left a text (two dots).
func englishComputerSheet(t *testing.T) string {
	t.Helper()
	header := []any{"NIS", "Nama Tagihan", "Kode Rekening", "Nominal", "Denda", "Jatuh Tempo", "Kedaluwarsa"}
	rows := [][]any{header}
	for _, nis := range []string{"0012345", "0012346", "0012347", "0012348", "0012349"} {
		rows = append(rows, []any{nis, "SPP Agustus 2027", "SPP", 350, 25, day(2027, 10, 8), "30/11/2027"})
	}
	for _, nis := range []string{"0012345", "0012346", "0012347", "0012348", "0012349"} {
		rows = append(rows, []any{nis, "Uang Gedung", "BCA", "1.200.000", nil, "25/08/2027", "30/09/2027"})
	}
	return writeSheet(t, "Tagihan", rows)
}

// TestEnglishComputerSheetWarns: Rp 350, a late fee of Rp 25 and dates read month-first in
// a sheet whose typed dates are day-first are each warned of, cell by cell, and the sheet
// cannot be committed until each kind is acknowledged; the acknowledgement is audited and
// kept with the job.
func TestEnglishComputerSheetWarns(t *testing.T) {
	t.Parallel()
	path := englishComputerSheet(t)
	known := knownNIS{"0012345": true, "0012346": true, "0012347": true, "0012348": true, "0012349": true}
	sum, issues, err := analyse(t, path, uploads.Options{Kind: uploads.Components, Students: known, Today: schoolToday})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rows != 10 || sum.New != 10 || sum.Errors != 0 {
		t.Fatalf("summary: %d rows, %d new, %d errors; issues %q", sum.Rows, sum.New, sum.Errors, codesAt(issues))
	}
	for _, want := range []struct{ cell, code, says string }{
		{"D2", uploads.WarnAmountSmall, "Rp\u00a0350 di kolom Nominal kurang dari Rp 1.000"},
		{"E2", uploads.WarnAmountSmall, "Rp\u00a025 di kolom Denda kurang dari Rp 1.000"},
		{"F2", uploads.WarnDateOrder, "terbaca 8 Okt 2027 (bulan lebih dulu"},
		{"F2", uploads.WarnDateOrder, "mungkin maksudnya 10 Agu 2027"},
	} {
		is, ok := issueAt(issues, want.cell, "uploads.warn."+want.code)
		if !ok {
			t.Errorf("no %s at %s: %q", want.code, want.cell, codesAt(issues))
			continue
		}
		if msg := is.Message(i18n.NewPrinter(i18n.Indonesian, nil)); !strings.Contains(msg, want.says) {
			t.Errorf("%s: %q lacks %q", want.cell, msg, want.says)
		}
	}
	// Every cell of Rp 350 and every date read month-first is said, none of the others.
	if n := len(issues); n != 15 {
		t.Errorf("%d warnings, want 15 (5 amounts, 5 late fees, 5 dates): %q", n, codesAt(issues))
	}

	// At the runner: the commit is refused until both kinds are acknowledged.
	e := newEnv(t, 5*time.Second)
	for _, nis := range []string{"0012345", "0012346", "0012347", "0012348", "0012349"} {
		if _, err := e.setup.CreateStudents(context.Background(), auth.SystemActor,
			[]billing.Student{{NIS: nis, Name: "Siswa " + nis, Description: "Kelas 8A"}}, store.SourcePortal); err != nil {
			t.Fatal(err)
		}
	}
	cfg := e.config()
	cfg.Calendar = clock.Fixed(schoolToday, time.UTC)
	r := e.start(t, cfg)
	j := receive(t, r, uploads.Components, path)
	if j.State != uploads.StateReady || j.RowsNew != 10 {
		t.Fatalf("preview: %s, %d new, problem %q", j.State, j.RowsNew, j.Problem)
	}
	if got := uploads.AckCodes(j); !slices.Equal(got, []string{uploads.WarnAmountSmall, uploads.WarnDateOrder}) {
		t.Fatalf("to acknowledge: %q", got)
	}
	err = r.Commit(context.Background(), j.ID, financeActor, uploads.WarnAmountSmall)
	var need *uploads.NeedsAck
	if !errors.As(err, &need) || !slices.Equal(need.Codes, []string{uploads.WarnDateOrder}) {
		t.Fatalf("commit with one kind acknowledged: %v", err)
	}
	if j2, _ := r.Job(context.Background(), j.ID); j2.State != uploads.StateReady || !j2.CommittedAt.IsZero() {
		t.Fatalf("a refused commit moved the upload to %s", j2.State)
	}
	if err := r.Commit(context.Background(), j.ID, financeActor, uploads.WarnDateOrder, uploads.WarnAmountSmall); err != nil {
		t.Fatal(err)
	}
	done := wait(t, r, j.ID)
	if done.State != uploads.StateDone || !slices.Equal(done.Acknowledged, []string{uploads.WarnAmountSmall, uploads.WarnDateOrder}) {
		t.Fatalf("job: %s, acknowledged %q", done.State, done.Acknowledged)
	}
	entries, _, err := (audit.Log{DB: e.db, Clock: clock.System(time.UTC)}).List(context.Background(), audit.Filter{Action: uploads.ActionAcknowledge})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Actor != "finance" || entries[0].Target != j.ID {
		t.Fatalf("audit entries of the acknowledgement: %+v", entries)
	}
	if err := entries[0].Check(); err != nil {
		t.Fatal(err)
	}
	words := audit.Word(i18n.NewPrinter(i18n.Indonesian, nil), entries[0], nil)
	if !slices.Contains(words.Figures, "peringatan diakui: nominal di bawah Rp 1.000, urutan hari dan bulan") {
		t.Errorf("the entry says %+v", words)
	}
}

// enrolStudents puts students at the service and in the roster.
func (e *env) enrolStudents(t *testing.T, list ...billing.Student) {
	t.Helper()
	if _, err := e.setup.CreateStudents(context.Background(), auth.SystemActor, list, store.SourcePortal); err != nil {
		t.Fatal(err)
	}
}

// TestLostLeadingZeros: a students sheet whose NIS lost their leading zeros (12345 for the
// roster's 0012345: typed into a number cell) is read as those students, each cell saying
// so, and creates no student; a NIS cell stored as the number 12360 in format 0000000 reads
// as shown, 0012360; a new NIS whose name an existing student has is a warning to confirm.
// A components sheet's lost zeros are restored the same way (no "NIS 12348 tidak dikenal").
func TestLostLeadingZeros(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 5*time.Second)
	e.enrolStudents(t, billing.Student{NIS: "0012345", Name: "Budi Santoso", Description: "Kelas 7A"},
		billing.Student{NIS: "0012346", Name: "Siti Aminah", Description: "Kelas 7A"},
		billing.Student{NIS: "0012348", Name: "Dewi Lestari", Description: "Kelas 7B"})
	path := writeSheet(t, "Siswa", [][]any{
		{"NIS", "Nama Siswa", "Kelas"},
		{12345, "Budi Santoso", "Kelas 8A"},     // 2: a number: its zeros lost
		{12346, "Siti Aminah", "Kelas 8A"},      // 3
		{12360, "Rina Wulandari", "Kelas 7A"},   // 4: 0000000 shows 0012360
		{"2099001", "Siti Aminah", "Kelas 7C"},  // 5: another Siti Aminah, or the same one mistyped?
		{"0012348", "Dewi Lestari", "Kelas 8B"}, // 6: typed as text, as it should be
	}, func(f *excelize.File) {
		code := "0000000"
		st, _ := f.NewStyle(&excelize.Style{CustomNumFmt: &code})
		_ = f.SetCellStyle("Siswa", "A4", "A4", st)
	})
	r := e.start(t, e.config())
	j := receive(t, r, uploads.Students, path)
	ch, err := r.Changes(context.Background(), j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != uploads.StateReady || j.RowsNew != 2 || j.RowsError != 0 || ch.Count != 3 {
		t.Fatalf("preview: %s, %d new, %d errors, %d changes, problem %q", j.State, j.RowsNew, j.RowsError, ch.Count, j.Problem)
	}
	issues, err := r.Issues(context.Background(), j.ID, 0, 50)
	if err != nil {
		t.Fatal(err)
	}
	p := i18n.NewPrinter(i18n.Indonesian, nil)
	says := map[string]string{}
	for _, is := range issues {
		i := uploads.IssueOf(is)
		says[i.Cell()] += is.Code + ": " + i.Message(p)
	}
	for cell, want := range map[string]string{
		"A2": "NIS 12345 dibaca sebagai 0012345, siswa yang sudah ada",
		"A3": "NIS 12346 dibaca sebagai 0012346",
		"B5": "sudah ada siswa bernama Siti Aminah dengan NIS 0012346; baris ini akan mendaftarkan siswa baru dengan NIS 2099001",
	} {
		if !strings.Contains(says[cell], want) {
			t.Errorf("%s says %q, want %q", cell, says[cell], want)
		}
	}
	if len(says) != 3 {
		t.Errorf("issues %q", says)
	}
	sample, _ := uploads.DecodeSample(j.Sample)
	var newNIS []string
	for _, s := range sample {
		newNIS = append(newNIS, s.NIS)
	}
	if !slices.Equal(newNIS, []string{"0012360", "2099001"}) {
		t.Fatalf("new students %q, want 0012360 (as shown) and 2099001", newNIS)
	}
	if got := uploads.AckCodes(j); !slices.Equal(got, []string{uploads.WarnNISRestored, uploads.WarnNameMatches}) {
		t.Fatalf("to acknowledge %q", got)
	}
	if err := r.Commit(context.Background(), j.ID, financeActor, uploads.AckCodes(j)...); err != nil {
		t.Fatal(err)
	}
	if done := wait(t, r, j.ID); done.State != uploads.StateDone {
		t.Fatalf("job %s", done.State)
	}
	// No student 12345, 12346 or 12360 at the service: the existing ones moved class.
	for nis, want := range map[string]string{"0012345": "Kelas 8A", "0012346": "Kelas 8A", "0012360": "Kelas 7A", "12345": "", "12346": "", "12360": ""} {
		st, err := e.client.Student(context.Background(), nis)
		switch {
		case want == "" && !errors.Is(err, billing.ErrNotFound):
			t.Errorf("student %s at the service: %+v, %v", nis, st, err)
		case want != "" && (err != nil || st.Description != want):
			t.Errorf("student %s: %+v, %v; want in %s", nis, st, err, want)
		}
	}

	// A components sheet: 12348 is the roster's 0012348 (the roster's NIS are 7 long).
	comp := writeSheet(t, "Tagihan", [][]any{
		{"NIS", "Nama Tagihan", "Kode Rekening", "Nominal", "Jatuh Tempo", "Kedaluwarsa"},
		{12348, "SPP Juli 2026", "SPP", 350_000, day(2026, 7, 10), day(2026, 7, 31)},
	})
	cj := receive(t, r, uploads.Components, comp)
	if cj.State != uploads.StateReady || cj.RowsNew != 1 || cj.RowsError != 0 {
		t.Fatalf("components preview: %s, %d new, %d errors %+v", cj.State, cj.RowsNew, cj.RowsError, cj.IssueKinds)
	}
	if s, _ := uploads.DecodeSample(cj.Sample); len(s) != 1 || s[0].NIS != "0012348" {
		t.Fatalf("components sample %+v", s)
	}
}

// TestHiddenSheetAndCopiedTab: a hidden sheet holding last year's bills is never read; the
// copied tab left active ("Tagihan (2)") is, and the preview names it; when the active
// sheet has no headings (the instructions), the first visible sheet with them is read and
// the preview says so.
func TestHiddenSheetAndCopiedTab(t *testing.T) {
	t.Parallel()
	header := []any{"NIS", "Nama Tagihan", "Kode Rekening", "Nominal", "Jatuh Tempo", "Kedaluwarsa"}
	book := func(active string, sheets ...string) string {
		f := excelize.NewFile()
		defer f.Close()
		rows := map[string][][]any{
			"Arsip 2026":  {header, {"A1", "SPP Januari 2026", "SPP", 300_000, day(2026, 1, 10), day(2026, 1, 31)}},
			"Tagihan":     {header, {"A1", "SPP Januari 2027", "SPP", 350_000, day(2027, 1, 10), day(2027, 1, 31)}},
			"Tagihan (2)": {header, {"A1", "SPP Februari 2027", "SPP", 350_000, day(2027, 2, 10), day(2027, 2, 28)}, {"A2", "SPP Februari 2027", "SPP", 350_000, day(2027, 2, 10), day(2027, 2, 28)}},
			"Petunjuk":    {{"Isi lembar Tagihan mulai baris 2."}},
		}
		for i, name := range sheets {
			if i == 0 {
				must(t, f.SetSheetName("Sheet1", name))
			} else if _, err := f.NewSheet(name); err != nil {
				t.Fatal(err)
			}
			for r, row := range rows[name] {
				cell, _ := excelize.CoordinatesToCellName(1, r+1)
				must(t, f.SetSheetRow(name, cell, &row))
			}
		}
		// excelize will not hide the active sheet: another is active while it hides, and the
		// chosen one is made active after (a hidden one too, as some tools leave a file).
		f.SetActiveSheet(len(sheets) - 1)
		must(t, f.SetSheetVisible("Arsip 2026", false))
		idx, _ := f.GetSheetIndex(active)
		f.SetActiveSheet(idx)
		path := filepath.Join(t.TempDir(), "tagihan.xlsx")
		must(t, f.SaveAs(path))
		return path
	}
	known := knownNIS{"A1": true, "A2": true}
	sum, issues, err := analyse(t, book("Tagihan (2)", "Arsip 2026", "Tagihan", "Tagihan (2)"), uploads.Options{Kind: uploads.Components, Students: known})
	if err != nil || len(issues) != 0 {
		t.Fatalf("%v %q", err, codesAt(issues))
	}
	if sum.Rows != 2 || sum.Sample[0].Name != "SPP Februari 2027" || sum.Reading.Sheet != "Tagihan (2)" || sum.Reading.Active != "" ||
		!slices.Equal(sum.Reading.Hidden, []string{"Arsip 2026"}) || sum.Reading.HeaderRow != 1 {
		t.Fatalf("read %d rows, %+v; reading %+v", sum.Rows, sum.Sample, sum.Reading)
	}
	// A file saved with the hidden sheet as its active one (as some tools leave it): the
	// first visible sheet is read, never the hidden one.
	sum, issues, err = analyse(t, book("Arsip 2026", "Arsip 2026", "Tagihan"), uploads.Options{Kind: uploads.Components, Students: known})
	if err != nil || len(issues) != 0 || sum.Rows != 1 || sum.Sample[0].Name != "SPP Januari 2027" || sum.Reading.Sheet != "Tagihan" {
		t.Fatalf("hidden sheet active: %v %q: read %d rows, %+v; reading %+v", err, codesAt(issues), sum.Rows, sum.Sample, sum.Reading)
	}
	sum, _, err = analyse(t, book("Petunjuk", "Arsip 2026", "Petunjuk", "Tagihan"), uploads.Options{Kind: uploads.Components, Students: known})
	if err != nil || sum.Rows != 1 || sum.Sample[0].Name != "SPP Januari 2027" || sum.Reading.Sheet != "Tagihan" || sum.Reading.Active != "Petunjuk" {
		t.Fatalf("%v: read %d rows, %+v; reading %+v", err, sum.Rows, sum.Sample, sum.Reading)
	}
	// Only a hidden sheet has the headings: it is not read, and the file says why.
	_, _, err = analyse(t, book("Petunjuk", "Arsip 2026", "Petunjuk"), uploads.Options{Kind: uploads.Components, Students: known})
	var fe *uploads.FileError
	if !errors.As(err, &fe) || fe.Code != "hidden_data" {
		t.Fatalf("only the hidden sheet has headings: %v", err)
	}
	if msg := uploads.FileMessage(i18n.NewPrinter(i18n.Indonesian, nil), fe.Code, fe.Args); !strings.Contains(msg, `lembar tersembunyi "Arsip 2026"`) {
		t.Fatalf("message %q", msg)
	}
}

// TestTotalRowMergedNISAndFormulaError: a total row ("Jumlah", a sum) is skipped and said
// once; a NIS merged over three rows is read in each of them and said once; a #N/A is named
// as a formula's error, its row not sent.
func TestTotalRowMergedNISAndFormulaError(t *testing.T) {
	t.Parallel()
	is, num, row := sheettest.Text, sheettest.Number, sheettest.Row
	rows := rawStart + row(4, is("B4", "SPP September 2026"), is("C4", "SPP"), num("D4", "350000"), is("E4", "10/09/2026"), is("F4", "30/09/2026")) +
		row(5, is("A5", "0012346"), is("B5", "SPP Juli 2026"), is("C5", "SPP"), `<c r="D5" t="e"><f>VLOOKUP(A5,Tarif!A:B,2,0)</f><v>#N/A</v></c>`, is("E5", "10/07/2026"), is("F5", "31/07/2026")) +
		row(6, is("A6", "0012347"), is("B6", "SPP Juli 2026"), is("C6", "SPP"), num("D6", "350000"), is("E6", "10/07/2026"), is("F6", "31/07/2026")) +
		row(7, is("C7", "Jumlah"), `<c r="D7"><f>SUM(D2:D6)</f><v>1400000</v></c>`)
	path := filepath.Join(t.TempDir(), "tagihan.xlsx")
	must(t, sheettest.RawSheet(path, rows, "A2:A4"))
	sum, issues, err := analyse(t, path, uploads.Options{Kind: uploads.Components,
		Students: knownNIS{"0012345": true, "0012346": true, "0012347": true}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"A2 uploads.warn.merged", "D5 uploads.err.formula_error", "C7 uploads.warn.total_row"}
	if got := codesAt(issues); !slices.Equal(got, want) {
		t.Fatalf("issues %q, want %q", got, want)
	}
	p := i18n.NewPrinter(i18n.Indonesian, nil)
	for i, says := range []string{
		`Sel A2: sel A2:A4 digabung (Merge); isinya "0012345" dipakai juga untuk 2 baris di bawahnya.`,
		"Sel D5: rumus di kolom Nominal gagal (#N/A adalah kesalahan rumus",
		`Sel C7: "Jumlah" — baris ini baris jumlah, bukan data: dilewati.`,
	} {
		if msg := issues[i].Message(p); !strings.Contains(msg, says) {
			t.Errorf("%q, want %q", msg, says)
		}
	}
	if sum.Rows != 5 || sum.New != 4 || sum.Errors != 1 || !sum.BadRows.Has(5) {
		t.Fatalf("summary: %d rows, %d new, %d errors", sum.Rows, sum.New, sum.Errors)
	}
	var merged []string
	for _, s := range sum.Sample {
		if s.NIS == "0012345" {
			merged = append(merged, s.Name)
		}
	}
	if len(merged) != 3 {
		t.Fatalf("the merged NIS's rows: %q", merged)
	}
}

// TestDapodikExport: Dapodik's students export, as it is downloaded (four title rows, two
// heading rows, 66 columns), is a students upload that just works: NIPD read as the NIS,
// Rombel Saat Ini as the class, HP preferred over Telepon (Telepon when there is no HP),
// the columns not read listed; committed, the students are in their classes and carry
// the aid flags (KIP, KPS, PIP).
func TestDapodikExport(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 5*time.Second)
	path := filepath.Join(t.TempDir(), "daftar_pd.xlsx")
	must(t, sheettest.Dapodik(path, sheettest.DapodikStudents))
	r := e.start(t, e.config())
	j := receive(t, r, uploads.Students, path)
	if j.State != uploads.StateReady || j.RowsNew != 5 || j.RowsError != 0 || j.Issues != 0 {
		t.Fatalf("preview: %s, %d new, %d errors, %d problems %+v, problem %q", j.State, j.RowsNew, j.RowsError, j.Issues, j.IssueKinds, j.Problem)
	}
	rd, ok := uploads.ReadingOf(j)
	if !ok || rd.Format != "xlsx" || rd.Sheet != "Daftar Peserta Didik" || rd.HeaderRow != 5 || rd.SubHeaderRow != 6 {
		t.Fatalf("reading %+v", rd)
	}
	var ignored []string
	for _, c := range rd.Ignored {
		ignored = append(ignored, c.Header)
	}
	read := []string{"Nama", "NIPD", "Telepon", "HP", "E-Mail", "Penerima KPS", "Rombel Saat Ini", "Penerima KIP", "Layak PIP (usulan dari sekolah)"}
	var want []string
	for _, h := range sheettest.DapodikHeadings() {
		if !slices.Contains(read, h) {
			want = append(want, h)
		}
	}
	if !slices.Equal(ignored, want) || !slices.Contains(ignored, "NISN") || !slices.Contains(ignored, "Data Ayah: Nama") {
		t.Fatalf("ignored %q\nwant %q", ignored, want)
	}
	sample, _ := uploads.DecodeSample(j.Sample)
	if len(sample) != 5 {
		t.Fatalf("sample %+v", sample)
	}
	for i, s := range sample {
		d := sheettest.DapodikStudents[i]
		phone := map[int]string{0: "081234560001", 1: "0247601234", 2: "081234560003", 3: "+6281234560004", 4: "081234560005"}[i]
		if s.NIS != d.NIPD || s.Name != d.Name || s.Class != d.Class || s.Phone != phone || s.Row != 7+i {
			t.Errorf("row %d: %+v, want NIS %s, class %s, phone %s", 7+i, s, d.NIPD, d.Class, phone)
		}
	}
	if err := r.Commit(context.Background(), j.ID, financeActor, uploads.AckCodes(j)...); err != nil {
		t.Fatal(err)
	}
	if done := wait(t, r, j.ID); done.State != uploads.StateDone || done.Created != 5 {
		t.Fatalf("job: %s, %d created", done.State, done.Created)
	}
	for _, d := range sheettest.DapodikStudents {
		st, err := e.db.StudentByNIS(context.Background(), d.NIPD)
		if err != nil {
			t.Fatal(err)
		}
		if st.Description != d.Class || st.Aid != (store.StudentAid{KIP: d.KIP, KPS: d.KPS, PIP: d.PIP}) {
			t.Errorf("%s: class %q, aid %+v; want %s, KIP %v KPS %v PIP %v", d.NIPD, st.Description, st.Aid, d.Class, d.KIP, d.KPS, d.PIP)
		}
	}

	// The same export again, a student's aid flags changed (the next semester's): they
	// are the roster's now, though nothing else of the students changed.
	next := slices.Clone(sheettest.DapodikStudents)
	next[4].KIP = true
	path2 := filepath.Join(t.TempDir(), "daftar_pd_2.xlsx")
	must(t, sheettest.Dapodik(path2, next))
	j2 := receive(t, r, uploads.Students, path2)
	if j2.State != uploads.StateReady || j2.RowsNew != 0 || j2.RowsAlready != 5 {
		t.Fatalf("second preview: %s, %d new, %d already", j2.State, j2.RowsNew, j2.RowsAlready)
	}
	if err := r.Commit(context.Background(), j2.ID, financeActor, uploads.AckCodes(j2)...); err != nil {
		t.Fatal(err)
	}
	wait(t, r, j2.ID)
	if st, _ := e.db.StudentByNIS(context.Background(), next[4].NIPD); !st.Aid.KIP {
		t.Errorf("the aid flag of %s not recorded: %+v", next[4].NIPD, st.Aid)
	}
}

// rawStart is a RawSheet's headings and its first two rows, a NIS merged over them (A2:A3).
var rawStart = func() string {
	is, num, row := sheettest.Text, sheettest.Number, sheettest.Row
	return row(1, is("A1", "NIS"), is("B1", "Nama Tagihan"), is("C1", "Kode Rekening"), is("D1", "Nominal"), is("E1", "Jatuh Tempo"), is("F1", "Kedaluwarsa")) +
		row(2, is("A2", "0012345"), is("B2", "SPP Juli 2026"), is("C2", "SPP"), num("D2", "350000"), is("E2", "10/07/2026"), is("F2", "31/07/2026")) +
		row(3, is("B3", "SPP Agustus 2026"), is("C3", "SPP"), num("D3", "350000"), is("E3", "10/08/2026"), is("F3", "31/08/2026"))
}()

// roster is a RosterReader over fixed students.
type roster []store.Student

func (r roster) StudentsByNIS(_ context.Context, nis []string) (map[string]store.Student, error) {
	out := map[string]store.Student{}
	for _, s := range r {
		if slices.Contains(nis, s.NIS) {
			out[s.NIS] = s
		}
	}
	return out, nil
}

func (r roster) AllStudents(_ context.Context, fn func(store.Student) error) error {
	for _, s := range r {
		if err := fn(s); err != nil {
			return err
		}
	}
	return nil
}

// TestEachKindInEachFormat: a components sheet and a students sheet read the same from
// .xls and .ods (made by LibreOffice), CSV (UTF-8 with ',', Windows-1252 with ';') and
// .xlsx; the English computer's .xls and .ods warn as its .xlsx does, their lost zeros
// put back; Dapodik's export reads the same as .xls and .ods.
func TestEachKindInEachFormat(t *testing.T) {
	t.Parallel()
	school := roster{{NIS: "0012345", Name: "Budi Santoso"}, {NIS: "0012346", Name: "Siti Ni’mah"}, {NIS: "0012347", Name: "Dewi Lestari"}}
	known := knownNIS{"0012345": true, "0012346": true, "0012347": true}
	for _, file := range []string{"tagihan-id.xls", "tagihan-id.ods", "tagihan.csv"} {
		sum, issues, err := analyse(t, filepath.Join("testdata", file), uploads.Options{Kind: uploads.Components, Students: known, Roster: school, Today: schoolToday})
		if err != nil || len(issues) != 0 || sum.Rows != 4 || sum.New != 4 {
			t.Errorf("%s: %v, %d rows, %d new, issues %q", file, err, sum.Rows, sum.New, codesAt(issues))
			continue
		}
		s := sum.Sample[0]
		if s.NIS != "0012345" || s.Amount != 350_000 || s.Penalty != 25_000 || !s.Due.Equal(day(2027, 8, 10)) || !s.Expiry.Equal(day(2027, 11, 30)) ||
			sum.Sample[3].Amount != 1_200_000 {
			t.Errorf("%s: read %+v", file, sum.Sample)
		}
		if want := strings.TrimPrefix(filepath.Ext(file), "."); sum.Reading.Format != want {
			t.Errorf("%s: format %q", file, sum.Reading.Format)
		}
	}
	for _, file := range []string{"tagihan-en.xls", "tagihan-en.ods"} {
		sum, issues, err := analyse(t, filepath.Join("testdata", file), uploads.Options{Kind: uploads.Components, Students: known, Roster: school, Today: schoolToday})
		if err != nil || sum.Rows != 4 || sum.New != 4 {
			t.Errorf("%s: %v, %d rows, %d new, issues %q", file, err, sum.Rows, sum.New, codesAt(issues))
			continue
		}
		kinds := map[string]int{}
		for _, is := range issues {
			kinds[is.Problem.Key]++
		}
		want := map[string]int{"uploads.warn.nis_restored": 4, "uploads.warn.amount_small": 6, "uploads.warn.date_order": 3}
		if len(kinds) != len(want) || kinds["uploads.warn.nis_restored"] != 4 || kinds["uploads.warn.amount_small"] != 6 || kinds["uploads.warn.date_order"] != 3 {
			t.Errorf("%s: warnings %v, want %v", file, kinds, want)
		}
	}
	for _, file := range []string{"siswa-id.xls", "siswa-id.ods", "siswa.csv", "siswa-cp1252.csv"} {
		sum, issues, err := analyse(t, filepath.Join("testdata", file), uploads.Options{Kind: uploads.Students, Students: knownNIS{}})
		if err != nil || len(issues) != 0 || sum.Rows != 3 || sum.New != 3 {
			t.Errorf("%s: %v, %d rows, %d new, issues %q", file, err, sum.Rows, sum.New, codesAt(issues))
			continue
		}
		got := []string{}
		for _, s := range sum.Sample {
			got = append(got, s.NIS+" "+s.Name+" "+s.Class+" "+s.Phone)
		}
		want := []string{"0012345 Budi Santoso Kelas 8A 081234567890", "0012346 Siti Ni’mah Kelas 8A +6281298765432",
			"0012360 Rina Wulandari Kelas 7A 081211112222"}
		if !slices.Equal(got, want) {
			t.Errorf("%s: read %q", file, got)
		}
	}
	for _, file := range []string{"dapodik.xls", "dapodik.ods"} {
		sum, issues, err := analyse(t, filepath.Join("testdata", file), uploads.Options{Kind: uploads.Students, Students: knownNIS{}})
		if err != nil || len(issues) != 0 || sum.Rows != 5 || sum.New != 5 {
			t.Errorf("%s: %v, %d rows, %d new, issues %q", file, err, sum.Rows, sum.New, codesAt(issues))
			continue
		}
		if rd := sum.Reading; rd.Sheet != "Daftar Peserta Didik" || rd.HeaderRow != 5 || rd.SubHeaderRow != 6 || len(rd.Ignored) != 57 {
			t.Errorf("%s: reading %+v", file, rd)
		}
		for i, s := range sum.Sample {
			d := sheettest.DapodikStudents[i]
			if s.NIS != d.NIPD || s.Class != d.Class || sum.Aid[d.NIPD] != (store.StudentAid{KIP: d.KIP, KPS: d.KPS, PIP: d.PIP}) {
				t.Errorf("%s: row %d %+v, aid %+v", file, s.Row, s, sum.Aid[d.NIPD])
			}
		}
	}
}

// TestErrorWorkbookOfWarnings: the error workbook holds the rows with warnings beside the
// wrong ones, a warning's cell yellow and a problem's red, each message naming the cell
// where it is now and where it was in the upload (D5 there is D3 here).
func TestErrorWorkbookOfWarnings(t *testing.T) {
	t.Parallel()
	is, num, row := sheettest.Text, sheettest.Number, sheettest.Row
	rows := rawStart + row(4, is("A4", "0012347"), is("B4", "SPP Juli 2026"), is("C4", "SPP"), num("D4", "350000"), is("E4", "10/07/2026"), is("F4", "31/07/2026")) +
		row(5, is("A5", "0012346"), is("B5", "SPP Juli 2026"), is("C5", "SPP"), `<c r="D5" t="e"><v>#N/A</v></c>`, is("E5", "10/07/2026"), is("F5", "31/07/2026")) +
		row(6, is("A6", "0012347"), is("B6", "SPP Agustus 2026"), is("C6", "SPP"), num("D6", "350"), is("E6", "10/08/2026"), is("F6", "31/08/2026")) +
		row(7, is("C7", "Jumlah"), `<c r="D7"><f>SUM(D2:D6)</f><v>1050350</v></c>`)
	path := filepath.Join(t.TempDir(), "tagihan.xlsx")
	must(t, sheettest.RawSheet(path, rows, "A2:A3"))
	_, issues, err := analyse(t, path, uploads.Options{Kind: uploads.Components, Students: knownNIS{"0012345": true, "0012346": true, "0012347": true}})
	if err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	if err := uploads.WriteErrorWorkbook(context.Background(), &buf, path, uploads.Components, accounts, uploads.DefaultLimits(1<<20),
		storedIssues(issues), i18n.NewPrinter(i18n.Indonesian, nil)); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, _ := f.GetRows("Tagihan")
	var lines []string
	for _, r := range got[1:] {
		lines = append(lines, r[6]+" | "+r[7])
	}
	want := []string{
		`2 | Sel A2: sel A2:A3 digabung (Merge); isinya "0012345" dipakai juga untuk 1 baris di bawahnya.`,
		`5 | Sel D3 (D5 di berkas yang diunggah): rumus di kolom Nominal gagal (#N/A adalah kesalahan rumus, misalnya VLOOKUP yang tidak menemukan nilainya), bukan data: baris ini tidak dikirim. Perbaiki rumusnya atau ketik nilainya.`,
		`6 | Sel D4 (D6 di berkas yang diunggah): Rp` + "\u00a0" + `350 di kolom Nominal kurang dari Rp 1.000. Bila yang diketik 350.000 di komputer berbahasa Inggris, Excel menyimpannya sebagai 350; periksa angkanya.`,
		`7 | Sel C5 (C7 di berkas yang diunggah): "Jumlah" — baris ini baris jumlah, bukan data: dilewati.`,
	}
	if !slices.Equal(lines, want) {
		t.Fatalf("error workbook rows:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	for cell, want := range map[string]string{"A2": "FFEB9C", "D3": "FFC7CE", "D4": "FFEB9C", "C5": "FFEB9C", "B2": "", "A3": ""} {
		if got := cellFill(t, f, "Tagihan", cell); got != want {
			t.Errorf("fill of %s = %q, want %q", cell, got, want)
		}
	}
}

// TestAmountFarBelowAndDueOutsideTheYear: 3.500 among bills of 350.000 of the same name
// (over Rp 1.000, so only the comparison sees it) and a due day in 2031 when the school
// year is 2027/2028 are warnings of their own kinds, each at its cell, to acknowledge; the
// same amount under another name, or a name with too few bills to compare, is not.
func TestAmountFarBelowAndDueOutsideTheYear(t *testing.T) {
	t.Parallel()
	header := []any{"NIS", "Nama Tagihan", "Kode Rekening", "Nominal", "Jatuh Tempo", "Kedaluwarsa"}
	rows := [][]any{header}
	for _, nis := range []string{"0012345", "0012346", "0012347", "0012348"} {
		rows = append(rows, []any{nis, "SPP Agustus 2027", "SPP", 350_000, day(2027, 8, 10), day(2027, 8, 31)})
	}
	rows = append(rows,
		[]any{"0012349", "SPP Agustus 2027", "SPP", 3_500, day(2027, 8, 10), day(2027, 8, 31)}, // row 6
		[]any{"0012345", "Iuran Kelas", "SPP", 3_500, day(2027, 9, 10), day(2027, 9, 30)},      // row 7
		[]any{"0012346", "Uang Gedung", "BCA", 1_200_000, day(2031, 8, 25), day(2031, 9, 30)},  // row 8
		[]any{"0012347", "Uang Gedung", "BCA", 12_000, day(2027, 8, 25), day(2027, 9, 30)})     // row 9
	path := writeSheet(t, "Tagihan", rows)
	known := knownNIS{"0012345": true, "0012346": true, "0012347": true, "0012348": true, "0012349": true}
	sum, issues, err := analyse(t, path, uploads.Options{Kind: uploads.Components, Students: known, Today: schoolToday})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rows != 8 || sum.New != 8 || sum.Errors != 0 {
		t.Fatalf("summary: %d rows, %d new, %d errors; issues %q", sum.Rows, sum.New, sum.Errors, codesAt(issues))
	}
	want := []string{"D6 uploads.warn." + uploads.WarnAmountBelow, "E8 uploads.warn." + uploads.WarnDateOutside}
	got := codesAt(issues)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("warnings %q, want %q", got, want)
	}
	p := i18n.NewPrinter(i18n.Indonesian, nil)
	below, _ := issueAt(issues, "D6", "uploads.warn."+uploads.WarnAmountBelow)
	if msg := below.Message(p); !strings.Contains(msg, "Rp\u00a03.500 jauh di bawah tagihan \"SPP Agustus 2027\" lainnya (umumnya Rp\u00a0350.000)") {
		t.Errorf("D6 says %q", msg)
	}
	outside, _ := issueAt(issues, "E8", "uploads.warn."+uploads.WarnDateOutside)
	if msg := outside.Message(p); !strings.Contains(msg, "di luar tahun ajaran 2027/2028") {
		t.Errorf("E8 says %q", msg)
	}
}
