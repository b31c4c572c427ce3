// Package sheettest writes realistic upload sheets for tests and benchmarks: any number of
// component rows over a set of students, with chosen rows made invalid in known cells.
package sheettest

import (
	"fmt"
	"time"

	"github.com/xuri/excelize/v2"
)

// Options shape a generated sheet; zero fields take the defaults.
type Options struct {
	// Rows is the number of data rows (default 100).
	Rows int
	// Students is the number of distinct students (default Rows/10, at least 1). Each has
	// one component per month, so Rows/Students months are covered.
	Students int
	// NISPrefix starts every NIS (default "T"); the rest is a five-digit sequence.
	NISPrefix string
	// Accounts are the account codes used, in turn (default SPP, BCA, MANDIRI).
	Accounts []string
	// FirstDue is the due day of the first month (default 10 July 2026).
	FirstDue time.Time
	// Bad lists 0-based data rows to make invalid; the n-th bad row gets the n-th kind of
	// mistake in turn: an amount that is not a number, a due day after the expiry day,
	// an unknown account code.
	Bad []int
	// Sheet names the data sheet (default "Tagihan" or "Siswa").
	Sheet string
}

// BadCell is a cell the generator made wrong on purpose.
type BadCell struct {
	Row  int    // 1-based sheet row
	Cell string // e.g. "D17"
	Code string // the issue code the portal should report
}

// Sheet describes a generated file.
type Sheet struct {
	Path string
	// NIS are the distinct students in order, Names their names.
	NIS   []string
	Names []string
	// Rows is the number of data rows; Bad the cells made wrong.
	Rows int
	Bad  []BadCell
	// Total is the rupiah of the valid rows.
	Total int64
}

// ComponentHeader is the header row of generated components sheets (the template's).
var ComponentHeader = []any{"NIS", "Nama Tagihan", "Kode Rekening", "Nominal", "Denda", "Jatuh Tempo", "Kedaluwarsa", "Tanggal Aktif", "Catatan"}

// StudentHeader is the header row of generated students sheets.
var StudentHeader = []any{"NIS", "Nama Siswa", "Kelas", "No. Telepon", "Email"}

var (
	firstNames = []string{"Ahmad", "Siti", "Budi", "Dewi", "Rizky", "Putri", "Agus", "Nur", "Dimas", "Ayu", "Fajar", "Indah", "Bayu", "Rina", "Hendra", "Lestari"}
	lastNames  = []string{"Pratama", "Saputra", "Wijaya", "Lestari", "Hidayat", "Nugroho", "Santoso", "Rahmawati", "Kurniawan", "Permata", "Setiawan", "Maharani"}
	monthsID   = []string{"Januari", "Februari", "Maret", "April", "Mei", "Juni", "Juli", "Agustus", "September", "Oktober", "November", "Desember"}
)

func (o *Options) defaults(sheet string) {
	if o.Rows <= 0 {
		o.Rows = 100
	}
	if o.Students <= 0 {
		o.Students = max(1, o.Rows/10)
	}
	if o.NISPrefix == "" {
		o.NISPrefix = "T"
	}
	if len(o.Accounts) == 0 {
		o.Accounts = []string{"SPP", "BCA", "MANDIRI"}
	}
	if o.FirstDue.IsZero() {
		o.FirstDue = time.Date(2026, 7, 10, 0, 0, 0, 0, time.UTC)
	}
	if o.Sheet == "" {
		o.Sheet = sheet
	}
}

// NIS is the i-th (0-based) generated student number.
func NIS(prefix string, i int) string { return fmt.Sprintf("%s%05d", prefix, i+1) }

// StudentName is the i-th generated student's name.
func StudentName(i int) string {
	return firstNames[i%len(firstNames)] + " " + lastNames[(i/len(firstNames))%len(lastNames)]
}

func students(o Options) ([]string, []string) {
	nis := make([]string, o.Students)
	names := make([]string, o.Students)
	for i := range nis {
		nis[i], names[i] = NIS(o.NISPrefix, i), StudentName(i)
	}
	return nis, names
}

// Components writes a components sheet to path: row i is student i mod Students and month
// i div Students, so every row is a different component.
func Components(path string, o Options) (Sheet, error) {
	o.defaults("Tagihan")
	sh := Sheet{Path: path, Rows: o.Rows}
	sh.NIS, sh.Names = students(o)
	bad := map[int]int{}
	for n, r := range o.Bad {
		bad[r] = n % 3
	}
	err := write(path, o.Sheet, ComponentHeader, o.Rows, func(f *excelize.File, dateStyle, i int) []any {
		s := i % o.Students
		month := i / o.Students
		due := o.FirstDue.AddDate(0, month, 0)
		expiry := due.AddDate(0, 1, 0)
		active := due.AddDate(0, 0, -20)
		amount := int64(250_000 + (s%5)*50_000)
		account := o.Accounts[i%len(o.Accounts)]
		name := fmt.Sprintf("SPP %s %d", monthsID[due.Month()-1], due.Year())
		var amountCell any = amount
		row := i + 2
		switch kind, isBad := bad[i]; {
		case !isBad:
			sh.Total += amount
		case kind == 0:
			amountCell = "dua ratus ribu"
			sh.Bad = append(sh.Bad, BadCell{Row: row, Cell: fmt.Sprintf("D%d", row), Code: "amount_invalid"})
		case kind == 1:
			expiry = due.AddDate(0, 0, -1)
			sh.Bad = append(sh.Bad, BadCell{Row: row, Cell: fmt.Sprintf("F%d", row), Code: "due_after_expiry"})
		default:
			account = "KOPERASI"
			sh.Bad = append(sh.Bad, BadCell{Row: row, Cell: fmt.Sprintf("C%d", row), Code: "account_unknown"})
		}
		return []any{
			sh.NIS[s], name, account, amountCell, int64(25_000),
			excelize.Cell{StyleID: dateStyle, Value: due},
			excelize.Cell{StyleID: dateStyle, Value: expiry},
			excelize.Cell{StyleID: dateStyle, Value: active},
			"Dibuat oleh generator",
		}
	})
	return sh, err
}

// Students writes a students sheet with Rows students (Students is ignored).
func Students(path string, o Options) (Sheet, error) {
	o.defaults("Siswa")
	o.Students = o.Rows
	sh := Sheet{Path: path, Rows: o.Rows}
	sh.NIS, sh.Names = students(o)
	bad := map[int]bool{}
	for _, r := range o.Bad {
		bad[r] = true
	}
	err := write(path, o.Sheet, StudentHeader, o.Rows, func(f *excelize.File, _, i int) []any {
		row := i + 2
		email := fmt.Sprintf("siswa%d@example.sch.id", i+1)
		if bad[i] {
			email = "bukan-email"
			sh.Bad = append(sh.Bad, BadCell{Row: row, Cell: fmt.Sprintf("E%d", row), Code: "email_invalid"})
		}
		return []any{sh.NIS[i], sh.Names[i], fmt.Sprintf("Kelas %d%c", 7+i%3, 'A'+rune(i%4)), fmt.Sprintf("0812%08d", i+1), email}
	})
	return sh, err
}

func write(path, sheet string, header []any, rows int, row func(f *excelize.File, dateStyle, i int) []any) error {
	f := excelize.NewFile()
	defer f.Close()
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		return err
	}
	dateStyle, err := f.NewStyle(&excelize.Style{NumFmt: 14})
	if err != nil {
		return err
	}
	sw, err := f.NewStreamWriter(sheet)
	if err != nil {
		return err
	}
	if err := sw.SetRow("A1", header); err != nil {
		return err
	}
	for i := range rows {
		cell, _ := excelize.CoordinatesToCellName(1, i+2)
		if err := sw.SetRow(cell, row(f, dateStyle, i)); err != nil {
			return err
		}
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	return f.SaveAs(path)
}
