package sheets

import (
	"strconv"
	"time"
)

// Format is a file format this package reads.
type Format int

// The formats.
const (
	XLSX Format = iota + 1 // Excel 2007 and later (also .xlsm, .xltx)
	XLS                    // Excel 97–2003 (BIFF8 in an OLE2 compound file)
	ODS                    // OpenDocument spreadsheet (LibreOffice)
	CSV                    // text separated by ';', ',' or tabs
)

func (f Format) String() string {
	switch f {
	case XLSX:
		return "xlsx"
	case XLS:
		return "xls"
	case ODS:
		return "ods"
	case CSV:
		return "csv"
	}
	return "format_" + strconv.Itoa(int(f))
}

// Visibility is whether a sheet shows as a tab.
type Visibility int

// The visibilities. VeryHidden is Excel's "very hidden": not even listed by Unhide.
const (
	Visible Visibility = iota
	Hidden
	VeryHidden
)

func (v Visibility) String() string {
	switch v {
	case Hidden:
		return "hidden"
	case VeryHidden:
		return "very_hidden"
	}
	return "visible"
}

// SheetInfo describes one worksheet of a book (chart sheets and macro sheets are not
// listed). Index is its position in Book.Sheets.
type SheetInfo struct {
	Index      int
	Name       string
	Visibility Visibility
	// Active: the tab the workbook opens on (its saved active sheet).
	Active bool
}

// Kind is what a cell holds.
type Kind int

// The kinds of cell.
const (
	KindEmpty Kind = iota
	KindText
	KindNumber
	// KindDate: a number whose format shows a date (or a date and time); Cell.Time is set.
	KindDate
	// KindTime: a number whose format shows only a time of day or a duration; Cell.Time
	// is set (on the date system's day 0).
	KindTime
	KindBool
	// KindError: a formula's error value; Cell.Raw and Cell.Text are its name ("#N/A").
	KindError
)

func (k Kind) String() string {
	switch k {
	case KindText:
		return "text"
	case KindNumber:
		return "number"
	case KindDate:
		return "date"
	case KindTime:
		return "time"
	case KindBool:
		return "bool"
	case KindError:
		return "error"
	}
	return "empty"
}

// Cell is one non-empty cell as the file holds it.
type Cell struct {
	// Row is 1-based, Col 0-based (0 is column A): Ref gives "D11".
	Row, Col int
	Kind     Kind
	// Text is the cell as the spreadsheet shows it: its value through its number format
	// (a NIS 12360 in format 0000000 shows 0012360, 350000 in #,##0 shows 350,000, a date
	// 10/08/2027). Separators are those of the format code (',' groups, '.' is the
	// decimal point), as Excel in English shows them; .ods cells carry the text
	// LibreOffice showed when it saved, in its own locale.
	Text string
	// Raw is the stored value: text as it is, a number in its shortest decimal form
	// ("12360", "0.5"), a date or time as its serial number on the book's date system
	// (what an .xlsx holds), a boolean as "TRUE" or "FALSE", an error as its name.
	Raw string
	// Number is the value of a KindNumber, KindDate, KindTime or KindBool (1 or 0) cell.
	Number float64
	// Time is the value of a KindDate or KindTime cell, in UTC (a wall clock time: spreadsheets
	// have no zones).
	Time time.Time
	// Format is the cell's number format code ("General", "0000000", "dd/mm/yyyy", "@").
	Format string
	// Formula: the value is a formula's cached result.
	Formula bool
}

// Ref is the cell's A1 reference ("D11").
func (c Cell) Ref() string { return CellRef(c.Row, c.Col) }

// Row is one row of a sheet with at least one non-empty cell.
type Row struct {
	// Number is the row's 1-based number in the sheet: rows without cells are not
	// returned, so numbers may jump.
	Number int
	// Hidden: the row is hidden (or filtered out) in the file.
	Hidden bool
	// Cells are the non-empty cells, by column.
	Cells []Cell
}

// Cell is the row's cell in the 0-based column col, or an Empty cell.
func (r *Row) Cell(col int) Cell {
	lo, hi := 0, len(r.Cells)
	for lo < hi {
		m := (lo + hi) / 2
		switch {
		case r.Cells[m].Col == col:
			return r.Cells[m]
		case r.Cells[m].Col < col:
			lo = m + 1
		default:
			hi = m
		}
	}
	return Cell{Row: r.Number, Col: col, Format: "General"}
}

// Range is a rectangle of cells, such as a merged range: rows 1-based, columns 0-based,
// both ends included.
type Range struct {
	FirstRow, FirstCol, LastRow, LastCol int
}

// Contains reports whether the cell at row, col is in the range.
func (g Range) Contains(row, col int) bool {
	return row >= g.FirstRow && row <= g.LastRow && col >= g.FirstCol && col <= g.LastCol
}

// String is the range's A1 reference ("B2:B4").
func (g Range) String() string {
	return CellRef(g.FirstRow, g.FirstCol) + ":" + CellRef(g.LastRow, g.LastCol)
}

// CellRef is the A1 reference of a 1-based row and 0-based column.
func CellRef(row, col int) string {
	return ColName(col) + strconv.Itoa(row)
}

// ColName is the letters of a 0-based column: 0 → A, 26 → AA.
func ColName(col int) string {
	if col < 0 {
		return "?"
	}
	var b [8]byte
	i := len(b)
	for n := col + 1; n > 0 && i > 0; n = (n - 1) / 26 {
		i--
		b[i] = byte('A' + (n-1)%26)
	}
	return string(b[i:])
}

// parseRef reads an A1 reference ("D11", "$D$11") as a 1-based row and 0-based column.
func parseRef(s string) (row, col int, ok bool) {
	i := 0
	if i < len(s) && s[i] == '$' {
		i++
	}
	start := i
	c := 0
	for i < len(s) && i-start < 4 {
		ch := s[i] | 0x20
		if ch < 'a' || ch > 'z' {
			break
		}
		c = c*26 + int(ch-'a'+1)
		i++
	}
	if i == start {
		return 0, 0, false
	}
	if i < len(s) && s[i] == '$' {
		i++
	}
	r, digits := 0, 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' && digits < 8 {
		r = r*10 + int(s[i]-'0')
		i++
		digits++
	}
	if i != len(s) || digits == 0 || r == 0 {
		return 0, 0, false
	}
	return r, c - 1, true
}

// parseRange reads "B2:B4" (or a single cell "B2").
func parseRange(s string) (Range, bool) {
	a, b := s, s
	for i := 0; i < len(s); i++ {
		if s[i] == ':' {
			a, b = s[:i], s[i+1:]
			break
		}
	}
	r1, c1, ok1 := parseRef(a)
	r2, c2, ok2 := parseRef(b)
	if !ok1 || !ok2 {
		return Range{}, false
	}
	return Range{FirstRow: min(r1, r2), FirstCol: min(c1, c2), LastRow: max(r1, r2), LastCol: max(c1, c2)}, true
}
