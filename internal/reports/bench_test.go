package reports_test

import (
	"bufio"
	"cmp"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/reports"
	"github.com/sekolah/portal/internal/store"
)

const benchBills = 100_000

var benchMonth = reports.PaymentsFilter{From: day(2027, 3, 1), To: day(2027, 3, 31)}

// benchSchool is a large school: 4,000 students in 36 classes and 100,000 components.
// With paid, every component was paid during March 2027; otherwise a quarter is paid
// across the school year and the rest is unpaid, due from September to June.
func benchSchool(paid bool) ([]billing.Bill, map[string]store.Student) {
	rng := rand.New(rand.NewPCG(1, 2))
	roster := map[string]store.Student{}
	const students = 4000
	first := []string{"Ahmad", "Siti", "Budi", "Dewi", "Rizky", "Putri", "Agus", "Nur", "Fajar", "Indah"}
	last := []string{"Santoso", "Lestari", "Hidayat", "Nugroho", "Wibowo", "Saputra", "Handayani", "Kurniawan"}
	for i := range students {
		nis := fmt.Sprintf("2526%04d", i)
		roster[nis] = store.Student{NIS: nis, Name: first[rng.IntN(len(first))] + " " + last[rng.IntN(len(last))],
			Description: fmt.Sprintf("Kelas %d%c", 7+i%6, 'A'+rune(i/6%6))}
	}
	accounts := []string{"SPP", "BCA", "MANDIRI"}
	bills := make([]billing.Bill, benchBills)
	for i := range bills {
		nis := fmt.Sprintf("2526%04d", rng.IntN(students))
		due := day(2026, time.Month(9+rng.IntN(10)), 10)
		b := billing.Bill{
			ComponentID: strconv.Itoa(i), NIS: nis, StudentName: roster[nis].Name, AccountCode: accounts[rng.IntN(3)],
			Name: "SPP " + i18n.MonthFull(i18n.Indonesian, due.Month()), Amount: 450_000 + int64(rng.IntN(4))*100_000, Penalty: 25_000,
			Due: due, Expiry: due.AddDate(0, 3, 0), State: billing.StateProvisioned,
		}
		if paid || rng.IntN(4) == 0 {
			b.State = billing.StatePaid
			b.PaidAt = wib(2027, 3, 1+rng.IntN(31), 7+rng.IntN(12), rng.IntN(60))
			if !paid {
				b.PaidAt = b.Due.AddDate(0, 0, rng.IntN(40)-20).Add(9 * time.Hour)
			}
			b.AmountPaid = b.Amount
			if rng.IntN(5) == 0 {
				b.AmountPaid += b.Penalty
			}
			b.RefNumber = fmt.Sprintf("%s%08X", accounts[rng.IntN(3)][:3], rng.Uint32())
		}
		bills[i] = b
	}
	return bills, roster
}

// peakHeap samples the heap while the benchmark runs and reports its peak: absolute,
// and above what was live before (the in-memory bills the benchmark itself holds).
//
// peak-heap-MB is the largest heap (live objects and garbage not yet collected) seen,
// the 100,000 input bills included; export-heap-MB is that minus the heap before the
// export; export-live-MB is the largest live heap the garbage collector found, minus the
// live heap before: what the export itself holds.
type peakHeap struct {
	base, baseLive int64
	peak, live     atomic.Int64
	stop           chan struct{}
	wg             sync.WaitGroup
}

func readHeap() (objects, live int64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()), int64(s[1].Value.Uint64())
}

func startPeakHeap() *peakHeap {
	runtime.GC()
	p := &peakHeap{stop: make(chan struct{})}
	p.base, p.baseLive = readHeap()
	p.wg.Go(func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				h, l := readHeap()
				if h > p.peak.Load() {
					p.peak.Store(h)
				}
				if l > p.live.Load() {
					p.live.Store(l)
				}
			}
		}
	})
	return p
}

func (p *peakHeap) report(b *testing.B) {
	close(p.stop)
	p.wg.Wait()
	const mb = 1 << 20
	b.ReportMetric(float64(p.peak.Load())/mb, "peak-heap-MB")
	b.ReportMetric(float64(p.peak.Load()-p.base)/mb, "export-heap-MB")
	b.ReportMetric(float64(p.live.Load()-p.baseLive)/mb, "export-live-MB")
}

// BenchmarkExportXLSX writes the payments report of a month with 100,000 payments:
// read from the ledger in payment order, names and classes from the roster, neutralised,
// streamed into excelize's StreamWriter, totals and the daily sheet at the end.
func BenchmarkExportXLSX(b *testing.B) {
	bills, roster := benchSchool(true)
	svc, _ := memoryLedger(b, bills, slices.Collect(maps.Values(roster)), today)
	p := i18n.NewPrinter(i18n.Indonesian, jakarta)
	ctx := context.Background()
	heap := startPeakHeap()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := svc.ExportPayments(ctx, benchMonth, reports.Export{Format: reports.XLSX, W: io.Discard, Printer: p, By: "Bench", At: today}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	heap.report(b)
	b.ReportMetric(benchBills, "rows/op")
}

// BenchmarkExportXLSXRaw writes the same cells with a bare StreamWriter: the same column
// widths and styles, header and totals, the values worked out inline from bills already
// in payment order and a roster in memory. It is the floor BenchmarkExportXLSX is
// measured against: reading the ledger, and everything the export adds (the title and
// filter lines, neutralising, the daily sheet), is what the export costs above it.
func BenchmarkExportXLSXRaw(b *testing.B) {
	bills, roster := benchSchool(true)
	slices.SortFunc(bills, paymentOrder)
	heap := startPeakHeap()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := rawExport(bills, roster, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	heap.report(b)
	b.ReportMetric(benchBills, "rows/op")
}

// paymentOrder is the payments report's order: when paid, then NIS, then component.
func paymentOrder(a, c billing.Bill) int {
	return cmp.Or(a.PaidAt.Compare(c.PaidAt), cmp.Compare(a.NIS, c.NIS), cmp.Compare(a.ComponentID, c.ComponentID))
}

// rawColumns are the payments export's columns (paymentsTable): widths, and the kind of
// cell each holds.
var rawColumns = []struct {
	width float64
	kind  reports.Kind
}{{13, reports.KindDate}, {9, reports.KindTime}, {14, reports.KindText}, {30, reports.KindText}, {12, reports.KindText},
	{32, reports.KindText}, {13, reports.KindText}, {16, reports.KindMoney}, {14, reports.KindMoney}, {17, reports.KindMoney},
	{24, reports.KindText}}

// rawCells are one payment's cells, as the export writes them: the day and time of day
// in Jakarta, the roster's name and class, the amount and penalty parts.
func rawCells(b billing.Bill, pe store.Student) (day time.Time, clock float64, class string, amount, penalty int64) {
	penalty = max(b.AmountPaid-b.Amount, 0)
	class = pe.Description
	if class == "" {
		class = "Tanpa kelas"
	}
	h, m, s := b.PaidAt.In(jakarta).Clock()
	return billing.DayIn(b.PaidAt, jakarta), float64(h*3600+m*60+s) / 86400, class, b.AmountPaid - penalty, penalty
}

func rawExport(bills []billing.Bill, roster map[string]store.Student, w io.Writer) error {
	f := excelize.NewFile()
	defer f.Close()
	const sheet = "Sheet1"
	rupiah, date, clock := reports.RupiahFormat, reports.DateFormat, reports.TimeFormat
	money, _ := f.NewStyle(&excelize.Style{CustomNumFmt: &rupiah})
	dateSt, _ := f.NewStyle(&excelize.Style{CustomNumFmt: &date})
	clockSt, _ := f.NewStyle(&excelize.Style{CustomNumFmt: &clock})
	text, _ := f.NewStyle(&excelize.Style{NumFmt: 49})
	header, _ := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	sw, err := f.NewStreamWriter(sheet)
	if err != nil {
		return err
	}
	for i, c := range rawColumns {
		st := text
		switch c.kind {
		case reports.KindDate:
			st = dateSt
		case reports.KindTime:
			st = clockSt
		case reports.KindMoney:
			st = money
		}
		_ = sw.SetColWidth(i+1, i+1, c.width)
		_ = sw.SetColStyle(i+1, i+1, st)
	}
	_ = sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"})
	head := make([]any, len(rawColumns))
	for i := range head {
		head[i] = excelize.Cell{StyleID: header, Value: "Column " + strconv.Itoa(i)}
	}
	if err := sw.SetRow("A1", head); err != nil {
		return err
	}
	row := make([]any, len(rawColumns))
	var sum [3]int64
	for i, b := range bills {
		pe := roster[b.NIS]
		day, clock, class, amount, penalty := rawCells(b, pe)
		row[0], row[1], row[2], row[3], row[4], row[5] = day, clock, b.NIS, pe.Name, class, b.Name
		row[6], row[7], row[8], row[9], row[10] = b.AccountCode, amount, penalty, b.AmountPaid, b.RefNumber
		sum[0], sum[1], sum[2] = sum[0]+amount, sum[1]+penalty, sum[2]+b.AmountPaid
		if err := sw.SetRow("A"+strconv.Itoa(i+2), row); err != nil {
			return err
		}
	}
	last := strconv.Itoa(len(bills) + 1)
	total := []any{"Total", nil, nil, nil, nil, nil, nil,
		excelize.Cell{StyleID: money, Formula: "SUM(H2:H" + last + ")", Value: sum[0]},
		excelize.Cell{StyleID: money, Formula: "SUM(I2:I" + last + ")", Value: sum[1]},
		excelize.Cell{StyleID: money, Formula: "SUM(J2:J" + last + ")", Value: sum[2]}}
	if err := sw.SetRow("A"+strconv.Itoa(len(bills)+2), total); err != nil {
		return err
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	return f.Write(w)
}

// BenchmarkExportCSV is the same report as CSV.
func BenchmarkExportCSV(b *testing.B) {
	bills, roster := benchSchool(true)
	svc, _ := memoryLedger(b, bills, slices.Collect(maps.Values(roster)), today)
	p := i18n.NewPrinter(i18n.Indonesian, jakarta)
	heap := startPeakHeap()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := svc.ExportPayments(context.Background(), benchMonth, reports.Export{Format: reports.CSV, W: io.Discard, Printer: p, By: "Bench", At: today}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	heap.report(b)
}

// BenchmarkExportCSVRaw writes the same cells as BenchmarkExportCSV with a bare
// encoding/csv writer from bills already in payment order and a roster in memory: the
// floor the CSV export is measured against.
func BenchmarkExportCSVRaw(b *testing.B) {
	bills, roster := benchSchool(true)
	slices.SortFunc(bills, paymentOrder)
	heap := startPeakHeap()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := rawCSV(bills, roster, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	heap.report(b)
	b.ReportMetric(benchBills, "rows/op")
}

func rawCSV(bills []billing.Bill, roster map[string]store.Student, w io.Writer) error {
	buf := bufio.NewWriterSize(w, 32<<10)
	cw := csv.NewWriter(buf)
	cw.UseCRLF = true
	if _, err := buf.WriteString("\ufeff"); err != nil {
		return err
	}
	rec := make([]string, len(rawColumns))
	for i := range rec {
		rec[i] = "Column " + strconv.Itoa(i)
	}
	if err := cw.Write(rec); err != nil {
		return err
	}
	for _, b := range bills {
		pe := roster[b.NIS]
		day, _, class, amount, penalty := rawCells(b, pe)
		h, m, _ := b.PaidAt.In(jakarta).Clock()
		rec[0], rec[1], rec[2], rec[3], rec[4], rec[5] = day.Format(time.DateOnly), fmt.Sprintf("%02d:%02d", h, m), b.NIS, pe.Name, class, b.Name
		rec[6], rec[7], rec[8] = b.AccountCode, strconv.FormatInt(amount, 10), strconv.FormatInt(penalty, 10)
		rec[9], rec[10] = strconv.FormatInt(b.AmountPaid, 10), b.RefNumber
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return buf.Flush()
}

// BenchmarkReadPayments reads the month of BenchmarkExportXLSX from the ledger and does
// nothing with it: what reading costs on its own, which the exports do beside writing.
func BenchmarkReadPayments(b *testing.B) {
	bills, roster := benchSchool(true)
	_, l := memoryLedger(b, bills, slices.Collect(maps.Values(roster)), today)
	ctx := context.Background()
	heap := startPeakHeap()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		n := 0
		for _, err := range l.Payments(ctx, benchMonth.From, benchMonth.To, "") {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != benchBills {
			b.Fatalf("read %d payments", n)
		}
	}
	b.StopTimer()
	heap.report(b)
}

// BenchmarkExportCSVFromSQL writes the same cells as BenchmarkExportCSV the plainest way
// from the ledger's tables: one query in payment order joined to the roster, each row
// straight into encoding/csv, on one goroutine. A CSV is cheap to write, so reading the
// ledger is most of what a CSV export costs: this is its floor with the reading in it,
// beside BenchmarkExportCSVRaw's, which has none.
func BenchmarkExportCSVFromSQL(b *testing.B) {
	bills, roster := benchSchool(true)
	_, _, db := memoryStore(b, bills, slices.Collect(maps.Values(roster)), today)
	ctx := context.Background()
	from, to := benchMonth.From.Unix()/86400, benchMonth.To.Unix()/86400
	heap := startPeakHeap()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := sqlCSV(ctx, db, from, to, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	heap.report(b)
	b.ReportMetric(benchBills, "rows/op")
}

func sqlCSV(ctx context.Context, db *store.DB, from, to int64, w io.Writer) error {
	rows, err := db.SQL().QueryContext(ctx, `SELECT c.paid_day, c.paid_us, c.nis, COALESCE(s.name, c.student_name),
		COALESCE(s.description, ''), c.name, c.account_code, c.amount, c.amount_paid, c.ref_number
		FROM ledger_components c LEFT JOIN students s ON s.nis = c.nis
		WHERE c.kind = 1 AND c.paid_day >= $1 AND c.paid_day <= $2 ORDER BY c.paid_day, c.paid_us, c.nis, c.id`, from, to)
	if err != nil {
		return err
	}
	defer rows.Close()
	buf := bufio.NewWriterSize(w, 32<<10)
	cw := csv.NewWriter(buf)
	cw.UseCRLF = true
	if _, err := buf.WriteString("\ufeff"); err != nil {
		return err
	}
	rec := make([]string, len(rawColumns))
	for i := range rec {
		rec[i] = "Column " + strconv.Itoa(i)
	}
	if err := cw.Write(rec); err != nil {
		return err
	}
	for rows.Next() {
		var day, paidUS, amount, paid int64
		var nis, name, class, component, account, ref string
		if err := rows.Scan(&day, &paidUS, &nis, &name, &class, &component, &account, &amount, &paid, &ref); err != nil {
			return err
		}
		if class == "" {
			class = "Tanpa kelas"
		}
		penalty := max(paid-amount, 0)
		h, m, _ := time.UnixMicro(paidUS).In(jakarta).Clock()
		rec[0], rec[1], rec[2], rec[3], rec[4], rec[5] = time.Unix(day*86400, 0).UTC().Format(time.DateOnly), fmt.Sprintf("%02d:%02d", h, m), nis, name, class, component
		rec[6], rec[7], rec[8] = account, strconv.FormatInt(paid-penalty, 10), strconv.FormatInt(penalty, 10)
		rec[9], rec[10] = strconv.FormatInt(paid, 10), ref
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return buf.Flush()
}

// BenchmarkExportOverFloor runs each export and its floors turn about, on the same
// month, and reports the export's time over each floor's (x-floor): on a machine
// others share, two benchmarks run a minute apart see different loads, and their ratio
// says more about the machine than the export; taken in turns, op by op, both see the
// same. xlsx is BenchmarkExportXLSX over BenchmarkExportXLSXRaw; csv is
// BenchmarkExportCSV over BenchmarkExportCSVFromSQL (reading the ledger the plainest
// way, which is most of a CSV's cost) and, as csv-raw, over BenchmarkExportCSVRaw (no
// reading at all).
func BenchmarkExportOverFloor(b *testing.B) {
	bills, roster := benchSchool(true)
	svc, _, db := memoryStore(b, bills, slices.Collect(maps.Values(roster)), today)
	slices.SortFunc(bills, paymentOrder)
	p := i18n.NewPrinter(i18n.Indonesian, jakarta)
	ctx := context.Background()
	from, to := benchMonth.From.Unix()/86400, benchMonth.To.Unix()/86400
	timed := func(total *time.Duration, run func() error) {
		start := time.Now()
		if err := run(); err != nil {
			b.Fatal(err)
		}
		*total += time.Since(start)
	}
	for _, format := range []reports.Format{reports.XLSX, reports.CSV} {
		b.Run(string(format), func(b *testing.B) {
			var export, floor, raw time.Duration
			for b.Loop() {
				timed(&export, func() error {
					return svc.ExportPayments(ctx, benchMonth, reports.Export{Format: format, W: io.Discard, Printer: p, By: "Bench", At: today})
				})
				if format == reports.XLSX {
					timed(&floor, func() error { return rawExport(bills, roster, io.Discard) })
					continue
				}
				timed(&floor, func() error { return sqlCSV(ctx, db, from, to, io.Discard) })
				timed(&raw, func() error { return rawCSV(bills, roster, io.Discard) })
			}
			b.ReportMetric(float64(export)/float64(floor), "x-floor")
			if raw > 0 {
				b.ReportMetric(float64(export)/float64(raw), "x-csv-raw")
			}
			b.ReportMetric(float64(export.Nanoseconds())/float64(b.N), "export-ns/op")
		})
	}
}
