package reports_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/celltext/celltexttest"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/reports"
	"github.com/sekolah/portal/internal/store"
)

func export(format reports.Format) (reports.Export, *bytes.Buffer, *bool) {
	var buf bytes.Buffer
	started := new(bool)
	return reports.Export{
		Format: format, W: &buf, Start: func() { *started = true },
		Printer: i18n.NewPrinter(i18n.Indonesian, jakarta), By: "Bu Sari", At: today,
	}, &buf, started
}

func openXLSX(t *testing.T, b []byte) *excelize.File {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("open xlsx: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// sheetXML returns the raw XML of a sheet, for what excelize has no getter for.
func sheetXML(t *testing.T, b []byte, n int) string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if f.Name == "xl/worksheets/sheet"+string(rune('0'+n))+".xml" {
			rc, _ := f.Open()
			defer rc.Close()
			x, _ := io.ReadAll(rc)
			return string(x)
		}
	}
	t.Fatalf("sheet%d.xml not found", n)
	return ""
}

func cell(t *testing.T, f *excelize.File, sheet, ref string) string {
	t.Helper()
	v, err := f.GetCellValue(sheet, ref, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func numFmt(t *testing.T, f *excelize.File, sheet, ref string) string {
	t.Helper()
	id, err := f.GetCellStyle(sheet, ref)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.GetStyle(id)
	if err != nil {
		t.Fatal(err)
	}
	if st.CustomNumFmt != nil {
		return *st.CustomNumFmt
	}
	return "builtin:" + string(rune('0'+st.NumFmt))
}

func TestExportPaymentsXLSX(t *testing.T) {
	t.Parallel()
	f := smallSchool(t)
	ex, buf, started := export(reports.XLSX)
	filter := reports.PaymentsFilter{From: day(2027, 2, 1), To: day(2027, 3, 15)}
	if err := f.svc.ExportPayments(context.Background(), filter, ex); err != nil {
		t.Fatal(err)
	}
	if !*started {
		t.Fatal("Start was not called")
	}
	x := openXLSX(t, buf.Bytes())
	if got := x.GetSheetList(); strings.Join(got, ",") != "Pembayaran,Harian,Per saluran,Saluran per bulan" {
		t.Fatalf("sheets = %v", got)
	}
	const s = "Pembayaran"
	want := map[string]string{
		"A1": "Laporan Pembayaran Diterima",
		"A2": "Periode", "B2": "1 Feb 2027 – 15 Mar 2027",
		"A3": "Kode akun", "B3": "Semua",
		"A4": "Dibuat", "B4": "15 Mar 2027 10:00 oleh Bu Sari",
		"A6": "Tanggal bayar", "B6": "Jam bayar", "C6": "NIS", "D6": "Nama siswa", "E6": "Kelas", "F6": "Komponen tagihan",
		"G6": "Kode akun", "H6": "Nominal", "I6": "Bagian denda", "J6": "Jumlah dibayar", "K6": "No. referensi",
		// 8 Feb 2027 is day 46426 of Excel's calendar; 09:00 in Jakarta is 0.375 of a day.
		"A7": "46426", "B7": "0.375", "C7": "1001", "D7": "Ani Lestari", "E7": "Kelas 7A", "F7": "SPP Februari", "G7": "SPP",
		"H7": "500000", "I7": "0", "J7": "500000", "K7": "REF-A",
		"C8": "1002", "K8": "REF-G",
		"C9": "1001", "H9": "500000", "I9": "25000", "J9": "525000",
		"A10": "46461", "C10": "1003", "D10": "Citra Dewi", "E10": "Tanpa kelas", "K10": `=HYPERLINK("x")`,
		"A11": "Total", "H11": "1800000", "I11": "50000", "J11": "1850000",
		// Where each was paid: the sync found them all without a bank notice (not known).
		"L6": "Saluran", "M6": "Tempat bayar", "N6": "No. ref. merchant", "O6": "Kasir", "P6": "Biaya admin",
		"L7": "Tidak diketahui", "M7": "", "P7": "0", "P11": "0",
	}
	for ref, w := range want {
		if got := cell(t, x, s, ref); got != w {
			t.Errorf("%s = %q, want %q", ref, got, w)
		}
	}
	for ref, w := range map[string]string{"H11": "SUM(H7:H10)", "I11": "SUM(I7:I10)", "J11": "SUM(J7:J10)", "K10": ""} {
		if got, _ := x.GetCellFormula(s, ref); got != w {
			t.Errorf("formula %s = %q, want %q", ref, got, w)
		}
	}
	// The reference that looks like a formula is a string as typed, no apostrophe, with
	// Excel's quote prefix; the others have none.
	if c := celltexttest.Read(t, buf.Bytes(), "xl/worksheets/sheet1.xml", "K10"); !c.String || c.Text != `=HYPERLINK("x")` || !c.QuotePrefix || c.Formula != "" {
		t.Errorf("K10 = %+v, want the text as typed, quote-prefixed", c)
	}
	if c := celltexttest.Read(t, buf.Bytes(), "xl/worksheets/sheet1.xml", "K7"); c.QuotePrefix {
		t.Errorf("K7 = %+v, quote-prefixed", c)
	}
	for ref, w := range map[string]string{"A7": reports.DateFormat, "B7": reports.TimeFormat, "H7": reports.RupiahFormat, "J10": reports.RupiahFormat, "J11": reports.RupiahFormat} {
		if got := numFmt(t, x, s, ref); got != w {
			t.Errorf("number format of %s = %q, want %q", ref, got, w)
		}
	}
	if typ, _ := x.GetCellType(s, "K10"); typ == excelize.CellTypeFormula {
		t.Error("the injected ref became a formula")
	}
	panes, err := x.GetPanes(s)
	if err != nil || !panes.Freeze || panes.YSplit != 6 {
		t.Errorf("panes = %+v, %v; want frozen below row 6", panes, err)
	}
	if w, _ := x.GetColWidth(s, "D"); w != 30 {
		t.Errorf("name column width = %v", w)
	}
	xml := sheetXML(t, buf.Bytes(), 1)
	// excelize writes the range with absolute references, which Excel reads.
	if !strings.Contains(xml, `<autoFilter ref="$A$6:$P$10"`) {
		t.Errorf("no autofilter over the header and rows in:\n%s", xml[strings.Index(xml, "</sheetData>"):])
	}

	const daily = "Harian"
	for ref, w := range map[string]string{
		"A6": "Tanggal", "B6": "Tagihan dibayar",
		"A7": "46426", "B7": "1", "E7": "500000",
		"A10": "46461", "E10": "525000",
		"A11": "Total", "B11": "4", "C11": "1800000", "D11": "50000", "E11": "1850000",
	} {
		if got := cell(t, x, daily, ref); got != w {
			t.Errorf("daily %s = %q, want %q", ref, got, w)
		}
	}
	if got, _ := x.GetCellFormula(daily, "E11"); got != "SUM(E7:E10)" {
		t.Errorf("daily total formula = %q", got)
	}
	// The same receipts by day and by month, and by channel.
	for sheet, cells := range map[string]map[string]string{
		"Per saluran":       {"A6": "Tanggal", "B6": "Saluran", "C6": "Pembayaran", "D6": "Jumlah dibayar", "E6": "Biaya admin", "A7": "46426", "B7": "Tidak diketahui", "D10": "525000", "A11": "Total", "D11": "1850000"},
		"Saluran per bulan": {"A6": "Bulan", "A7": "Februari 2027", "B7": "Tidak diketahui", "C7": "2", "D7": "800000", "A8": "Maret 2027", "D8": "1050000", "A9": "Total", "D9": "1850000"},
	} {
		for ref, w := range cells {
			if got := cell(t, x, sheet, ref); got != w {
				t.Errorf("%s %s = %q, want %q", sheet, ref, got, w)
			}
		}
	}
}

func TestExportCSV(t *testing.T) {
	t.Parallel()
	f := smallSchool(t)
	ctx := context.Background()
	f.load(t)
	// REF-B was taken at the counter by Siti: its channel and cashier are on its row.
	if err := f.l.CounterSending(ctx, "1001", "REF-B", "siti", "Siti Rahma"); err != nil {
		t.Fatal(err)
	}
	if err := f.l.CounterRecorded(ctx, "1001", "REF-B"); err != nil {
		t.Fatal(err)
	}
	ex, buf, started := export(reports.CSV)
	if err := f.svc.ExportPayments(ctx, reports.PaymentsFilter{From: day(2027, 3, 1), To: day(2027, 3, 15)}, ex); err != nil {
		t.Fatal(err)
	}
	if !*started {
		t.Fatal("Start was not called")
	}
	b := buf.Bytes()
	if !bytes.HasPrefix(b, []byte("\xef\xbb\xbf")) {
		t.Fatalf("no BOM: %q", b[:10])
	}
	recs, err := csv.NewReader(bytes.NewReader(b[3:])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// The time of day is the school's: 07:00 UTC is 14:00 in Jakarta.
	want := [][]string{
		{"Tanggal bayar", "Jam bayar", "NIS", "Nama siswa", "Kelas", "Komponen tagihan", "Kode akun", "Nominal", "Bagian denda", "Jumlah dibayar", "No. referensi",
			"Saluran", "Tempat bayar", "No. ref. merchant", "Kasir", "Biaya admin"},
		{"2027-03-12", "14:00", "1001", "Ani Lestari", "Kelas 7A", "SPP Maret", "SPP", "500000", "25000", "525000", "REF-B", "Loket sekolah", "", "", "Siti Rahma", "0"},
		{"2027-03-15", "08:30", "1003", "Citra Dewi", "Tanpa kelas", "SPP Maret", "SPP", "500000", "25000", "525000", `'=HYPERLINK("x")`, "Tidak diketahui", "", "", "", "0"},
	}
	if len(recs) != len(want) {
		t.Fatalf("records = %q", recs)
	}
	for i := range want {
		if strings.Join(recs[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d = %q\nwant %q", i, recs[i], want[i])
		}
	}

	// The flavour for Excel set to Indonesian: the same cells between semicolons.
	ex, buf, _ = export(reports.CSVExcelID)
	if err := f.svc.ExportPayments(ctx, reports.PaymentsFilter{From: day(2027, 3, 1), To: day(2027, 3, 15)}, ex); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(buf.String(), "\r\n"); strings.Contains(first, ",") || !strings.Contains(first, ";Jam bayar;") {
		t.Errorf("header of the ; flavour = %q", first)
	}
	r := csv.NewReader(bytes.NewReader(buf.Bytes()[3:]))
	r.Comma = ';'
	semi, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if i >= len(semi) || strings.Join(semi[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("; flavour row %d = %q\nwant %q", i, semi[i], want[i])
		}
	}

	// The other reports export too, with the same totals as on screen.
	for name, run := range map[string]func(reports.Export) error{
		"outstanding": func(ex reports.Export) error { return f.svc.ExportOutstanding(ctx, ledger.OutstandingFilter{}, ex) },
		"statement":   func(ex reports.Export) error { return f.svc.ExportStatement(ctx, "1001", ex) },
		"accounts": func(ex reports.Export) error {
			return f.svc.ExportAccounts(ctx, reports.PaymentsFilter{From: day(2027, 2, 1), To: day(2027, 3, 15)}, ex)
		},
	} {
		ex, buf, _ := export(reports.CSV)
		if err := run(ex); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		recs, err := csv.NewReader(bytes.NewReader(buf.Bytes()[3:])).ReadAll()
		if err != nil || len(recs) < 2 {
			t.Fatalf("%s: %v %q", name, err, recs)
		}
	}
}

func TestExportOtherReportsXLSX(t *testing.T) {
	t.Parallel()
	f := smallSchool(t)
	ctx := context.Background()

	ex, buf, _ := export(reports.XLSX)
	if err := f.svc.ExportOutstanding(ctx, ledger.OutstandingFilter{}, ex); err != nil {
		t.Fatal(err)
	}
	x := openXLSX(t, buf.Bytes())
	// 5 filter lines + generated: header on row 9, three students (largest overdue
	// first), totals on row 13. All unpaid: the not yet due and unpaid columns are there.
	for ref, w := range map[string]string{
		"A1": "Laporan Tunggakan dan Piutang", "B2": "15 Mar 2027", "B3": "Menampilkan semua tagihan yang belum dibayar.", "B4": "Semua",
		"A9": "NIS", "E9": "Terlambat", "F9": "Belum jatuh tempo", "G9": "Belum dibayar", "I9": "Kedaluwarsa", "J9": "Jatuh tempo terlama", "K9": "Hari terlambat",
		"A10": "1002", "E10": "525000",
		"A11": "1003", "C11": "Tanpa kelas", "E11": "420000", "F11": "1200000", "G11": "1620000", "H11": "20000", "J11": "46366", "K11": "95",
		"A12": "1001", "E12": "0", "G12": "2000000", "K12": "",
		"A13": "Total", "D13": "4", "E13": "945000", "G13": "4145000", "J13": "",
	} {
		if got := cell(t, x, "Tunggakan", ref); got != w {
			t.Errorf("outstanding %s = %q, want %q", ref, got, w)
		}
	}
	if got, _ := x.GetCellFormula("Tunggakan", "G13"); got != "SUM(G10:G12)" {
		t.Errorf("outstanding total formula = %q", got)
	}

	// The arrears report's default: overdue only, its own columns.
	ex, buf, _ = export(reports.XLSX)
	if err := f.svc.ExportOutstanding(ctx, ledger.OutstandingFilter{Overdue: true}, ex); err != nil {
		t.Fatal(err)
	}
	x = openXLSX(t, buf.Bytes())
	for ref, w := range map[string]string{
		"B3": "Menampilkan tagihan terlambat saja.", "E9": "Terlambat", "F9": "Denda", "G9": "Kedaluwarsa",
		"A10": "1002", "A11": "1003", "E11": "420000", "A12": "Total", "E12": "945000",
	} {
		if got := cell(t, x, "Tunggakan", ref); got != w {
			t.Errorf("overdue %s = %q, want %q", ref, got, w)
		}
	}

	ex, buf, _ = export(reports.XLSX)
	if err := f.svc.ExportStatement(ctx, "1001", ex); err != nil {
		t.Fatal(err)
	}
	x = openXLSX(t, buf.Bytes())
	for ref, w := range map[string]string{
		"B2": "1001", "B3": "Ani Lestari", "A8": "Jatuh tempo",
		"B9": "SPP Februari", "F9": "Lunas", "K11": "2000000", "F11": "Belum dibayar",
		"A12": "Total", "D12": "3000000", "H12": "1025000", "J12": "2000000", "K12": "",
	} {
		if got := cell(t, x, "Rincian", ref); got != w {
			t.Errorf("statement %s = %q, want %q", ref, got, w)
		}
	}

	ex, buf, _ = export(reports.XLSX)
	if err := f.svc.ExportAccounts(ctx, reports.PaymentsFilter{From: day(2027, 2, 1), To: day(2027, 3, 15)}, ex); err != nil {
		t.Fatal(err)
	}
	x = openXLSX(t, buf.Bytes())
	for ref, w := range map[string]string{"A6": "Kode akun", "A7": "BCA", "A8": "SPP", "E9": "1850000", "H9": "4145000"} {
		if got := cell(t, x, "Rekening", ref); got != w {
			t.Errorf("accounts %s = %q, want %q", ref, got, w)
		}
	}
}

func TestNeutralise(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"=1+2", "'=1+2"},
		{"+62812", "'+62812"},
		{"-5", "'-5"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\tx", "'\tx"},
		{"\rx", "'\rx"},
		{"Budi =1", "Budi =1"},
		{"", ""},
		{"'already", "'already"},
	}
	for _, tt := range tests {
		if got := reports.Neutralise(tt.in); got != tt.want {
			t.Errorf("Neutralise(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Names, classes, component names and refs that a spreadsheet would run come out as
// text in both formats.
func TestExportFormulaInjection(t *testing.T) {
	t.Parallel()
	evil := []string{`=cmd|' /C calc'!A0`, "+1+1", "-2+3", "@SUM(A1:A9)", "\t=1", "\r=1"}
	paid := wib(2027, 3, 10, 9, 0)
	var bills []billing.Bill
	var roster []store.Student
	for i, s := range evil {
		nis := string(rune('A'+i)) + "100"
		roster = append(roster, store.Student{NIS: nis, Name: s, Description: s})
		bills = append(bills, billing.Bill{ComponentID: nis, NIS: nis, Name: s, AccountCode: "SPP", Amount: 1000, AmountPaid: 1000,
			State: billing.StatePaid, PaidAt: paid.Add(time.Duration(i) * time.Minute), RefNumber: s, Due: day(2027, 3, 10)})
	}
	svc, _ := memoryLedger(t, bills, roster, today)
	filter := reports.PaymentsFilter{From: day(2027, 3, 10), To: day(2027, 3, 10)}

	ex, buf, _ := export(reports.CSV)
	ex.By = "=evil()"
	if err := svc.ExportPayments(context.Background(), filter, ex); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(buf.Bytes()[3:])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range evil {
		r := recs[i+1]
		s = strings.TrimPrefix(s, "\r")          // a CRLF CSV writer drops a lone CR inside a field
		for _, col := range []int{3, 4, 5, 10} { // name, class, component, ref
			if strings.TrimPrefix(r[col], "'") == r[col] || strings.TrimPrefix(r[col], "'") != s {
				t.Errorf("csv row %d col %d = %q, want %q", i, col, r[col], "'"+s)
			}
		}
		if r[7] != "1000" {
			t.Errorf("csv amount = %q", r[7])
		}
	}

	ex, buf, _ = export(reports.XLSX)
	ex.By = "=evil()"
	if err := svc.ExportPayments(context.Background(), filter, ex); err != nil {
		t.Fatal(err)
	}
	x := openXLSX(t, buf.Bytes())
	rows, err := x.GetRows("Pembayaran", excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(rows[3][1], "oleh =evil()") {
		t.Errorf("generated-by line = %q", rows[3][1])
	}
	for i, s := range evil {
		r := rows[6+i]
		for _, col := range []int{3, 4, 5, 10} {
			ref, _ := excelize.CoordinatesToCellName(col+1, 7+i)
			if r[col] != s {
				t.Errorf("xlsx %s = %q, want %q as typed", ref, r[col], s)
			}
			if f, _ := x.GetCellFormula("Pembayaran", ref); f != "" {
				t.Errorf("xlsx %s holds formula %q", ref, f)
			}
			if c := celltexttest.Read(t, buf.Bytes(), "xl/worksheets/sheet1.xml", ref); !c.String || c.Text != s || !c.QuotePrefix {
				t.Errorf("xlsx %s = %+v, want the string %q quote-prefixed", ref, c, s)
			}
		}
	}
	if c := celltexttest.Read(t, buf.Bytes(), "xl/worksheets/sheet1.xml", "B4"); !strings.HasSuffix(c.Text, "oleh =evil()") || c.QuotePrefix {
		t.Errorf("generated-by line %+v: a text that does not start like a formula needs no prefix", c)
	}
}

// An export that fails before any data was read has not started the response, so the
// web layer can still show an error page; one that fails later has.
func TestExportErrorBeforeStart(t *testing.T) {
	t.Parallel()
	f := smallSchool(t)
	f.load(t)
	ex, buf, started := export(reports.XLSX)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the person gave up before the ledger answered
	err := f.svc.Service.ExportPayments(ctx, reports.PaymentsFilter{From: day(2027, 3, 1), To: day(2027, 3, 15)}, ex)
	if err == nil || *started || buf.Len() != 0 {
		t.Fatalf("err %v, started %v, %d bytes written", err, *started, buf.Len())
	}
}

// An export streams: the response starts with the first rows, while the ledger is still
// being read page by page (a page or two ahead of the file, never more). Here a payment
// arrives (a callback, say) just as the file starts; it sorts after the fourth page of a
// thousand, so only an export still reading after it started can have its row. One that
// read every row before starting would not.
func TestExportStreams(t *testing.T) {
	t.Parallel()
	var bills []billing.Bill
	for i := range 4000 {
		nis := fmt.Sprintf("%04d", i%300)
		bills = append(bills, billing.Bill{ComponentID: fmt.Sprintf("c%04d", i), NIS: nis, StudentName: "Siswa " + nis, Name: "SPP",
			AccountCode: "SPP", Amount: 100_000, AmountPaid: 100_000, State: billing.StatePaid, Due: day(2027, 3, 10),
			Expiry: day(2027, 5, 10), PaidAt: wib(2027, 3, 10+i%5, 8, i%60), RefNumber: fmt.Sprintf("R%d", i)})
	}
	svc, l := memoryLedger(t, bills, nil, today)
	late := billing.Bill{ComponentID: "arrived-late", NIS: "0001", StudentName: "Siswa 0001", Name: "SPP April", AccountCode: "SPP",
		Amount: 100_000, AmountPaid: 100_000, State: billing.StatePaid, Due: day(2027, 4, 10), Expiry: day(2027, 5, 10),
		PaidAt: wib(2027, 3, 15, 9, 30), RefNumber: "LATE"}
	ex, buf, started := export(reports.CSV)
	ex.Start = func() {
		*started = true
		if _, err := l.Upsert(context.Background(), []billing.Bill{late}); err != nil {
			t.Error(err)
		}
	}
	if err := svc.ExportPayments(context.Background(), reports.PaymentsFilter{From: day(2027, 3, 1), To: day(2027, 3, 15)}, ex); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(buf.Bytes()[3:])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !*started || len(recs) != 1+4001 || recs[len(recs)-1][10] != "LATE" {
		t.Fatalf("%d rows, the last %q: the export read every row before it started", len(recs)-1, recs[len(recs)-1])
	}
}
