package reports_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"strconv"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/reports"
)

// sumColumn adds up a numeric column of exported rows (header row skipped, totals row
// excluded by stopping at the first row whose first cell is label).
func sumColumn(t *testing.T, rows [][]string, col int, label string) int64 {
	t.Helper()
	var sum int64
	for _, r := range rows[1:] {
		if len(r) > 0 && r[0] == label {
			break
		}
		if col >= len(r) || r[col] == "" {
			continue
		}
		v, err := strconv.ParseInt(r[col], 10, 64)
		if err != nil {
			t.Fatalf("cell %q: %v", r[col], err)
		}
		sum += v
	}
	return sum
}

// exportRows runs an export in both formats and returns the data rows of each (from the
// header on) and the xlsx totals row's value in col.
func exportRows(t *testing.T, run func(reports.Export) error, sheet string, header int) (xlsxRows, csvRows [][]string) {
	t.Helper()
	ex, buf, _ := export(reports.XLSX)
	if err := run(ex); err != nil {
		t.Fatal(err)
	}
	x := openXLSX(t, buf.Bytes())
	rows, err := x.GetRows(sheet, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	xlsxRows = rows[header-1:]
	ex, buf, _ = export(reports.CSV)
	if err := run(ex); err != nil {
		t.Fatal(err)
	}
	csvRows, err = csv.NewReader(bytes.NewReader(buf.Bytes()[3:])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return xlsxRows, csvRows
}

func lastRow(rows [][]string) []string { return rows[len(rows)-1] }

// On the demo school, the dashboard, the reports on screen and both exports agree.
func TestDemoSchoolFiguresAgree(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("demo school")
	}
	f := startFixture(t, today, true)
	f.syncRoster(t)
	// Nothing is written at the service here: one load brings the ledger up to date
	// for every figure below (f.svc would walk the whole school again before each).
	f.load(t)
	svc := f.svc.Service
	ctx := context.Background()
	dash, err := svc.Dashboard(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	d := dash.Value
	if d.Bills < 5000 || d.CollectedYear.Amount == 0 || d.Overdue.Amount == 0 || d.NotYetDue.Amount == 0 || d.Expired.Amount == 0 {
		t.Fatalf("demo school looks empty: %+v", d)
	}
	yesterday := d.Today.AddDate(0, 0, -1)

	// Collected this school year = payments report = accounts summary = both exports.
	year := reports.PaymentsFilter{From: d.YearStart, To: d.Today}
	pay, err := svc.Payments(ctx, year, false)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := svc.Accounts(ctx, year, false)
	if err != nil {
		t.Fatal(err)
	}
	if pay.Value.Total.Paid != d.CollectedYear.Amount || pay.Value.Total.Count != d.CollectedYear.Count ||
		acc.Value.Total.Paid != d.CollectedYear.Amount || acc.Value.Total.Payments != d.CollectedYear.Count {
		t.Errorf("year: dashboard %+v, payments %+v, accounts %+v", d.CollectedYear, pay.Value.Total, acc.Value.Total)
	}
	var chart int64
	for _, m := range d.Months {
		chart += m.Total
	}
	if chart != d.CollectedYear.Amount {
		t.Errorf("monthly chart adds up to %d, year card says %d", chart, d.CollectedYear.Amount)
	}
	xr, cr := exportRows(t, func(ex reports.Export) error { return svc.ExportPayments(ctx, year, ex) }, "Pembayaran", 6)
	if got := sumColumn(t, cr, 9, ""); got != d.CollectedYear.Amount || len(cr)-1 != d.CollectedYear.Count {
		t.Errorf("payments csv: %d rows adding up to %d, dashboard %+v", len(cr)-1, got, d.CollectedYear)
	}
	if got := sumColumn(t, xr, 9, "Total"); got != d.CollectedYear.Amount || lastRow(xr)[9] != strconv.FormatInt(d.CollectedYear.Amount, 10) {
		t.Errorf("payments xlsx: rows add up to %d, totals row %q, dashboard %d", got, lastRow(xr)[9], d.CollectedYear.Amount)
	}

	// This month and today too.
	for _, tc := range []struct {
		name string
		f    reports.PaymentsFilter
		want ledger.Sum
	}{
		{"month", reports.PaymentsFilter{From: d.MonthStart, To: d.Today}, d.CollectedMonth},
		{"today", reports.PaymentsFilter{From: d.Today, To: d.Today}, d.CollectedToday},
	} {
		got, err := svc.Payments(ctx, tc.f, false)
		if err != nil {
			t.Fatal(err)
		}
		if got.Value.Total.Paid != tc.want.Amount || got.Value.Total.Count != tc.want.Count {
			t.Errorf("%s: payments %+v, dashboard %+v", tc.name, got.Value.Total, tc.want)
		}
	}

	// Outstanding = report = accounts summary = exports; buckets and overdue agree.
	out, err := svc.Outstanding(ctx, ledger.OutstandingFilter{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if out.Value.Total.Total != d.Outstanding.Amount || out.Value.Total.Count != d.Outstanding.Count ||
		acc.Value.Total.Outstanding != d.Outstanding.Amount || acc.Value.Total.Overdue != d.Overdue.Amount {
		t.Errorf("outstanding: dashboard %+v, report %+v, accounts %+v", d.Outstanding, out.Value.Total, acc.Value.Total)
	}
	for i, b := range d.Buckets {
		if out.Value.Total.Buckets[i] != b.Sum.Amount {
			t.Errorf("bucket %s: dashboard %d, report %d", b.Key, b.Sum.Amount, out.Value.Total.Buckets[i])
		}
		if b.Sum.Amount == 0 {
			continue
		}
		// The bucket's link (its due range) makes the same figure.
		br, err := svc.Outstanding(ctx, ledger.OutstandingFilter{DueFrom: b.DueFrom, DueTo: b.DueTo}, false)
		if err != nil {
			t.Fatal(err)
		}
		if br.Value.Total.Total != b.Sum.Amount {
			t.Errorf("bucket %s by its due range: %d, dashboard %d", b.Key, br.Value.Total.Total, b.Sum.Amount)
		}
	}
	overdue, _ := svc.Outstanding(ctx, ledger.OutstandingFilter{DueTo: yesterday}, false)
	if overdue.Value.Total.Total != d.Overdue.Amount || overdue.Value.Total.Penalty != d.OverduePenalty {
		t.Errorf("overdue: report %+v, dashboard %d (penalty %d)", overdue.Value.Total, d.Overdue.Amount, d.OverduePenalty)
	}
	// The arrears report's default (overdue only) is the dashboard's overdue figure.
	arrears, _ := svc.Outstanding(ctx, ledger.OutstandingFilter{Overdue: true}, false)
	if arrears.Value.Total.Total != d.Overdue.Amount || arrears.Value.Total.Overdue != d.Overdue.Amount ||
		arrears.Value.Total.OverdueCount != d.Overdue.Count || arrears.Value.Total.Penalty != d.OverduePenalty {
		t.Errorf("arrears: report %+v, dashboard %+v (penalty %d)", arrears.Value.Total, d.Overdue, d.OverduePenalty)
	}
	xr, cr = exportRows(t, func(ex reports.Export) error { return svc.ExportOutstanding(ctx, ledger.OutstandingFilter{}, ex) }, "Tunggakan", 9)
	if got := sumColumn(t, cr, 6, ""); got != d.Outstanding.Amount {
		t.Errorf("outstanding csv adds up to %d, dashboard %d", got, d.Outstanding.Amount)
	}
	if got := lastRow(xr)[6]; got != strconv.FormatInt(d.Outstanding.Amount, 10) {
		t.Errorf("outstanding xlsx total %q, dashboard %d", got, d.Outstanding.Amount)
	}

	// The largest arrears: a class's figure is the class's overdue report, a student's
	// is their statement's overdue rows.
	if len(d.TopClasses) == 0 || len(d.TopArrears) != 10 {
		t.Fatalf("top classes %d, top arrears %d", len(d.TopClasses), len(d.TopArrears))
	}
	top := d.TopClasses[0]
	if top.Class == "" {
		t.Fatalf("the roster sync left the top class empty: %+v", top)
	}
	cls, _ := svc.Outstanding(ctx, ledger.OutstandingFilter{Class: top.Class, Overdue: true}, false)
	if cls.Value.Total.Total != top.Amount || len(cls.Value.Rows) != top.Students {
		t.Errorf("class %s: report %d (%d students), dashboard %d (%d)", top.Class, cls.Value.Total.Total, len(cls.Value.Rows), top.Amount, top.Students)
	}
	st, err := svc.Statement(ctx, d.TopArrears[0].NIS, false)
	if err != nil {
		t.Fatal(err)
	}
	var late int64
	for _, r := range st.Value.Rows {
		if r.Status == component.StatusOverdue {
			late += r.DueToday
		}
	}
	if late != d.TopArrears[0].Amount || st.Value.Name != d.TopArrears[0].Name {
		t.Errorf("statement of %s: overdue %d, dashboard %+v", st.Value.NIS, late, d.TopArrears[0])
	}
	t.Logf("demo school: %d bills, year %d (%d payments), outstanding %d, overdue %d, expired %d",
		d.Bills, d.CollectedYear.Amount, d.CollectedYear.Count, d.Outstanding.Amount, d.Overdue.Amount, d.Expired.Amount)
}
