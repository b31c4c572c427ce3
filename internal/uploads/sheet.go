package uploads

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/sheets"
)

// FileError is a problem with the whole file (not one cell): not a spreadsheet, too big
// when unzipped, no header, required columns missing. Code is the message key under
// "uploads.file." and Args its arguments.
type FileError struct {
	Code string
	Args []string
}

func (e *FileError) Error() string {
	return fmt.Sprintf("uploads: file: %s %s", e.Code, strings.Join(e.Args, ", "))
}

// Limits bound what reading one file may cost. Every file is read through
// internal/sheets, whatever its format (.xlsx, .xls, .ods, CSV), and held to its bounds
// (sheets.DefaultLimits: the XML depth and tags, Excel's 32,767 characters a cell, rows,
// columns, cells, merged ranges, .xls records, CSV records) with these of the upload's.
type Limits struct {
	// MaxBytes is the largest file (the upload limit); the other bounds of
	// sheets.DefaultLimits are sized from it.
	MaxBytes int64
	// UnzipSize caps the total unzipped size of the parts read (.xlsx, .ods): the zip
	// bomb guard, by the sizes the zip declares (Go's zip reader refuses a part that
	// inflates past what it declared).
	UnzipSize int64
	// MaxSharedStrings caps the distinct texts of a shared-string table (.xlsx, .xls).
	MaxSharedStrings int
	// TempDir receives the runner's temporary copies of sheets and workbooks being
	// written ("" is the system's temporary directory, $TMPDIR).
	TempDir string
	// MaxRows caps the data rows of one sheet.
	MaxRows int
}

// DefaultLimits fit an upload of maxUpload bytes (20 MB in the portal): unzipped at most
// 20 times the upload (at least 64 MB: a real sheet unzips to well under half of it, and
// every part is streamed), at most 500,000 distinct texts (far more than any school's
// sheet: 200,000 rows of components share a few hundred names), at most 200,000 data rows.
func DefaultLimits(maxUpload int64) Limits {
	return Limits{MaxBytes: maxUpload, UnzipSize: max(maxUpload*20, 64<<20), MaxSharedStrings: 500_000, MaxRows: 200_000}
}

// sheetLimits are the bounds internal/sheets reads the file with.
func (l Limits) sheetLimits() sheets.Limits {
	lim := sheets.DefaultLimits(l.MaxBytes)
	if l.UnzipSize > 0 {
		lim.MaxUnzipped, lim.MaxPartBytes = l.UnzipSize, l.UnzipSize
	}
	if l.MaxSharedStrings > 0 {
		lim.MaxSharedStrings = l.MaxSharedStrings
	}
	return lim
}

// MaxCellChars is Excel's own limit on the text of one cell (32,767 characters): a cell
// longer than that was not made by a spreadsheet, and is refused as the file is read.
const MaxCellChars = sheets.ExcelMaxCellChars

// Formats are the file formats an upload may be, for the file picker: .xlsx, .xls (Excel
// 97–2003), .ods (LibreOffice) and CSV. What a file is is found from its content, not its
// name.
var Formats = []string{".xlsx", ".xls", ".ods", ".csv"}

// Accept is the file picker's list of the formats, by extension and media type.
const Accept = ".xlsx,.xls,.ods,.csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet," +
	"application/vnd.ms-excel,application/vnd.oasis.opendocument.spreadsheet,text/csv"

// fileErrorOf is what internal/sheets said of a file as a file problem in the person's
// words: what the file is not, or which bound it passed; another error as it is.
func fileErrorOf(err error) error {
	var se *sheets.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Reason {
	case sheets.NotSpreadsheet:
		return &FileError{Code: "not_spreadsheet"}
	case sheets.OtherDocument:
		return &FileError{Code: "other_document", Args: []string{se.Part}}
	case sheets.WebPage:
		return &FileError{Code: "web_page"}
	case sheets.Encrypted:
		return &FileError{Code: "encrypted"}
	case sheets.OldVersion:
		return &FileError{Code: "old_version"}
	case sheets.NoSheet:
		return &FileError{Code: "no_sheet"}
	case sheets.Damaged:
		return &FileError{Code: "unreadable"}
	}
	limit := i18n.Number(se.Limit)
	switch se.Bound {
	case sheets.BoundDepth:
		return &FileError{Code: "too_deep", Args: []string{se.Part, limit}}
	case sheets.BoundCellChars:
		if se.Cell != "" {
			return &FileError{Code: "cell_too_long", Args: []string{se.Cell, limit}}
		}
		return &FileError{Code: "text_too_long", Args: []string{limit}}
	case sheets.BoundSharedStrings:
		return &FileError{Code: "too_many_strings", Args: []string{limit}}
	case sheets.BoundUnzipped, sheets.BoundPartBytes:
		return &FileError{Code: "too_big_unzipped", Args: []string{mb(se.Limit)}}
	case sheets.BoundRows:
		return &FileError{Code: "too_many_rows", Args: []string{limit}}
	case sheets.BoundBytes:
		return &FileError{Code: "too_big", Args: []string{mb(se.Limit)}}
	}
	if code, ok := boundCodes[se.Bound]; ok {
		return &FileError{Code: code, Args: []string{limit}}
	}
	return &FileError{Code: "unreadable"}
}

// boundCodes are the file problems of the other bounds a file may pass.
var boundCodes = map[sheets.Bound]string{
	sheets.BoundCols: "too_many_cols", sheets.BoundCells: "too_many_cells", sheets.BoundMerges: "too_many_merges",
	sheets.BoundSheets: "too_many_sheets", sheets.BoundStyles: "too_many_styles", sheets.BoundRecords: "too_many_records",
	sheets.BoundLineBytes: "line_too_long", sheets.BoundFields: "too_many_fields", sheets.BoundTagBytes: "tag_too_long",
	sheets.BoundZipEntries: "too_many_parts",
}

func mb(n int64) string { return strconv.FormatInt((n+(1<<20)-1)>>20, 10) }

// IgnoredColumn is a column with a heading the portal does not read.
type IgnoredColumn struct {
	Col    string `json:"col"`
	Header string `json:"header"`
}

// Reading says how a file was read, for the preview: its format, the sheet read (and the
// one the file opens on, when its headings were not there), the hidden sheets left
// unread, the heading rows and the columns not read; a CSV's encoding and separator.
type Reading struct {
	Format string `json:"format"`
	Sheet  string `json:"sheet,omitempty"`
	// Active is the sheet the file opens on when another was read: its headings were not
	// found there.
	Active string   `json:"active,omitempty"`
	Hidden []string `json:"hidden,omitempty"`
	// HeaderRow is the heading row, SubHeaderRow the second one when the headings take two.
	HeaderRow    int             `json:"header_row,omitempty"`
	SubHeaderRow int             `json:"sub_header_row,omitempty"`
	Ignored      []IgnoredColumn `json:"ignored,omitempty"`
	Encoding     string          `json:"encoding,omitempty"`
	Delimiter    string          `json:"delimiter,omitempty"`
}

// headerScan is how many non-empty rows of a sheet are looked at for its headings: a
// Dapodik export has four title rows and two heading rows; a school's own sheet a title or
// two. maxSheetsTried bounds the sheets looked at when the one the file opens on has none.
const (
	headerScan     = 20
	maxSheetsTried = 20
)

// sheet is an open file positioned on its data sheet, read row by row.
type sheet struct {
	book     *sheets.Book
	rows     *sheets.Rows
	info     Reading
	layout   *Layout
	date1904 bool

	// row is the 1-based number of the row next last returned, cells its cells by column
	// (KindEmpty where none), as wide as the headings.
	row   int
	cells []sheets.Cell
	// ahead is a row read while the headings were looked for, handed out first.
	ahead []sheets.Row

	// Merged cells: the vertical ranges of one column the fields' cells fall in, by column,
	// and the top cell of the range being filled down in each column.
	merges    map[int][]sheets.Range
	mergeCols []int // the columns of merges, in order
	mergeSeen int
	tops      map[int]mergeTop
	said      map[sheets.Range]bool // the ranges whose filling was said
	// filled are the ranges filled down in the current row for the first time.
	filled []mergeFill
}

type mergeTop struct {
	g    sheets.Range
	cell sheets.Cell
}

// mergeFill is a merged range whose top cell's value was copied into the cells below it.
type mergeFill struct {
	g     sheets.Range
	value string
}

// openBook opens the file at path through internal/sheets; a file that cannot be read is a
// *FileError saying why.
func openBook(path string, lim Limits) (*sheets.Book, error) {
	b, err := sheets.OpenFile(path, lim.sheetLimits())
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("uploads: open %s: %w", path, err)
		}
		return nil, fileErrorOf(err)
	}
	return b, nil
}

// openSheet opens the file and finds its data: the sheet the file opens on (the active
// one, never a hidden one), or when its headings are not there, the first other visible
// sheet that has them; then its heading row (within the first headerScan non-empty rows,
// a second one below it when the headings take two rows).
func openSheet(path string, kind Kind, lim Limits) (*sheet, error) {
	b, err := openBook(path, lim)
	if err != nil {
		return nil, err
	}
	s, err := findData(b, kind)
	if err != nil {
		b.Close()
		return nil, err
	}
	return s, nil
}

func findData(b *sheets.Book, kind Kind) (*sheet, error) {
	info := Reading{Format: b.Format.String(), Encoding: b.Encoding}
	if b.Delimiter != 0 {
		info.Delimiter = string(b.Delimiter)
	}
	for _, si := range b.Sheets {
		if si.Visibility != sheets.Visible {
			info.Hidden = append(info.Hidden, si.Name)
		}
	}
	first := b.Preferred()
	if first < 0 {
		return nil, &FileError{Code: "no_visible_sheet"}
	}
	order := []int{first}
	for _, si := range b.Sheets {
		if si.Index != first && si.Visibility == sheets.Visible && len(order) < maxSheetsTried {
			order = append(order, si.Index)
		}
	}
	var firstErr error
	for n, i := range order {
		s := &sheet{book: b, info: info, date1904: b.Date1904}
		if b.Format != sheets.CSV {
			s.info.Sheet = b.Sheets[i].Name
		}
		if n > 0 {
			s.info.Active = b.Sheets[first].Name
		}
		err := s.open(i, kind)
		if err == nil {
			return s, nil
		}
		if s.rows != nil {
			s.rows.Close()
		}
		var fe *FileError
		if !errors.As(err, &fe) || fe.Code == "duplicate_column" {
			return nil, err // the file's own fault, or a heading row found but wrong
		}
		if n == 0 {
			firstErr = err
		}
	}
	// Not on any visible sheet: when a hidden one has the headings, say so rather than
	// what the visible one lacks.
	for _, si := range b.Sheets {
		if si.Visibility == sheets.Visible {
			continue
		}
		s := &sheet{book: b, info: info}
		err := s.open(si.Index, kind)
		if s.rows != nil {
			s.rows.Close()
		}
		if err == nil {
			return nil, &FileError{Code: "hidden_data", Args: []string{si.Name}}
		}
	}
	return nil, firstErr
}

// open reads sheet i's first rows for its headings.
func (s *sheet) open(i int, kind Kind) error {
	rows, err := s.book.Rows(i)
	if err != nil {
		return fileErrorOf(err)
	}
	s.rows = rows
	var first []string
	firstRow := 0
	for seen := 0; seen < headerScan; {
		if !rows.Next() {
			if err := rows.Err(); err != nil {
				return fileErrorOf(err)
			}
			break
		}
		r := rows.Row()
		texts := headerTexts(r)
		if blankTexts(texts) {
			continue
		}
		seen++
		if !looksLikeHeader(kind, texts) {
			if first == nil {
				first, firstRow = texts, r.Number
			}
			continue
		}
		l, ferr := mapHeader(kind, r.Number, texts)
		if ferr != nil {
			return ferr
		}
		if err := s.subHeader(l); err != nil {
			return err
		}
		s.layout = l
		s.info.HeaderRow, s.info.SubHeaderRow = l.HeaderRow, l.SubHeaderRow
		s.info.Ignored = l.Ignored()
		s.cells = make([]sheets.Cell, len(l.Headers))
		s.indexMerges()
		return nil
	}
	if first == nil {
		return &FileError{Code: "empty"}
	}
	if _, ferr := mapHeader(kind, firstRow, first); ferr != nil {
		return ferr
	}
	return &FileError{Code: "empty"}
}

// subHeader looks at the row below the headings: when its cells are all text, none in the
// NIS column, and some stand under a column with no heading of its own (Dapodik's "Data
// Ayah" spans "Nama", "Tahun Lahir", "Pekerjaan", … on the next row), it is a second
// heading row; its headings join their group's ("Data Ayah: Nama") and are not read.
// Otherwise the row is data, kept to be read first.
func (s *sheet) subHeader(l *Layout) error {
	if !s.rows.Next() {
		return fileErrorOf(s.rows.Err())
	}
	r := s.rows.Row()
	sub := len(r.Cells) > 0
	under := false
	for _, c := range r.Cells {
		if c.Kind != sheets.KindText || c.Col == l.Col[FieldNIS] {
			sub = false
			break
		}
		if c.Col >= len(l.Headers) || strings.TrimSpace(l.Headers[c.Col]) == "" {
			under = true
		}
	}
	if !sub || !under {
		s.ahead = append(s.ahead, copyRow(r))
		return nil
	}
	l.SubHeaderRow = r.Number
	for _, c := range r.Cells {
		for len(l.Headers) <= c.Col {
			l.Headers = append(l.Headers, "")
		}
	}
	group := "" // the heading over the columns that follow, until the next heading
	for i := range l.Headers {
		if h := strings.TrimSpace(l.Headers[i]); h != "" {
			group = h
			if l.fieldAt(i) >= 0 {
				group = ""
			}
		}
		c := r.Cell(i)
		sub := strings.TrimSpace(c.Text)
		switch {
		case sub == "" || c.Kind != sheets.KindText:
		case group != "":
			l.Headers[i] = group + ": " + sub
		case strings.TrimSpace(l.Headers[i]) == "":
			l.Headers[i] = sub
		}
	}
	return nil
}

// headerTexts are a row's cells as headings: the text of each column up to its last cell.
func headerTexts(r *sheets.Row) []string {
	if len(r.Cells) == 0 {
		return nil
	}
	out := make([]string, r.Cells[len(r.Cells)-1].Col+1)
	for _, c := range r.Cells {
		out[c.Col] = cellText(c)
	}
	return out
}

func blankTexts(texts []string) bool {
	for _, t := range texts {
		if i18n.TrimSpace(t) != "" {
			return false
		}
	}
	return true
}

func copyRow(r *sheets.Row) sheets.Row {
	return sheets.Row{Number: r.Number, Hidden: r.Hidden, Cells: slices.Clone(r.Cells)}
}

// indexMerges adds the merged ranges the reader knows now (all of them at once for
// .xlsx and .xls, as their rows are read for .ods) that are one column wide and more than
// one row tall, in a column the portal reads: those are filled down.
func (s *sheet) indexMerges() {
	all := s.rows.Merged()
	if s.mergeSeen == len(all) {
		return
	}
	if s.merges == nil {
		s.merges, s.tops, s.said = map[int][]sheets.Range{}, map[int]mergeTop{}, map[sheets.Range]bool{}
	}
	unsorted := map[int]bool{}
	for _, g := range all[s.mergeSeen:] {
		if g.FirstCol != g.LastCol || g.LastRow <= g.FirstRow || g.FirstCol >= len(s.cells) || s.layout.fieldAt(g.FirstCol) < 0 {
			continue
		}
		if _, ok := s.merges[g.FirstCol]; !ok {
			s.mergeCols = append(s.mergeCols, g.FirstCol)
			slices.Sort(s.mergeCols)
		}
		list := append(s.merges[g.FirstCol], g)
		if n := len(list); n > 1 && list[n-1].FirstRow < list[n-2].FirstRow {
			unsorted[g.FirstCol] = true
		}
		s.merges[g.FirstCol] = list
	}
	// .xlsx and .xls list them in any order, all at once (.ods as its rows come): kept
	// sorted, each column sorted once.
	for col := range unsorted {
		slices.SortFunc(s.merges[col], func(a, b sheets.Range) int { return a.FirstRow - b.FirstRow })
	}
	s.mergeSeen = len(all)
}

// mergedAt is the vertical merged range of column col covering row, if any.
func (s *sheet) mergedAt(row, col int) (sheets.Range, bool) {
	list := s.merges[col]
	i, _ := slices.BinarySearchFunc(list, row, func(g sheets.Range, r int) int {
		if g.LastRow < r {
			return -1
		}
		if g.FirstRow > r {
			return 1
		}
		return 0
	})
	if i < len(list) && list[i].FirstRow <= row && row <= list[i].LastRow {
		return list[i], true
	}
	return sheets.Range{}, false
}

// next reads the next row with a non-empty cell into s.row and s.cells: false at the end.
// A cell under the top of a merged range of its column (a NIS merged over three rows) gets
// the top cell's value, and s.filled says which ranges were filled for the first time.
func (s *sheet) next() (bool, error) {
	s.filled = s.filled[:0]
	for {
		var r *sheets.Row
		if len(s.ahead) > 0 {
			r = &s.ahead[0]
			s.ahead = s.ahead[1:]
		} else {
			if !s.rows.Next() {
				return false, fileErrorOf(s.rows.Err())
			}
			r = s.rows.Row()
		}
		clear(s.cells)
		some := false
		for _, c := range r.Cells {
			if c.Col < len(s.cells) {
				s.cells[c.Col] = c
				some = some || c.Kind != sheets.KindText || i18n.TrimSpace(c.Text) != ""
			}
		}
		s.row = r.Number
		if len(s.merges) > 0 || len(s.rows.Merged()) != s.mergeSeen {
			s.indexMerges()
			some = s.fillMerged() || some
		}
		if some {
			return true, nil
		}
	}
}

// fillMerged copies the top cell of each vertical merged range into the cells below it;
// it reports whether it filled any.
func (s *sheet) fillMerged() bool {
	filled := false
	for _, col := range s.mergeCols {
		g, ok := s.mergedAt(s.row, col)
		if !ok {
			continue
		}
		c := s.cells[col]
		if g.FirstRow == s.row {
			if c.Kind != sheets.KindEmpty {
				s.tops[col] = mergeTop{g: g, cell: c}
			}
			continue
		}
		top, ok := s.tops[col]
		if !ok || top.g != g || c.Kind != sheets.KindEmpty {
			continue
		}
		fill := top.cell
		fill.Row = s.row
		s.cells[col] = fill
		filled = true
		if !s.said[g] {
			s.said[g] = true
			s.filled = append(s.filled, mergeFill{g: g, value: cellText(top.cell)})
		}
	}
	return filled
}

func (s *sheet) close() error {
	var err error
	if s.rows != nil {
		err = s.rows.Close()
	}
	if cerr := s.book.Close(); err == nil {
		err = cerr
	}
	return err
}

// cellName is the A1 name of a 0-based column in a 1-based row.
func cellName(col, row int) string { return sheets.CellRef(row, col) }

// colName is the letters of a 0-based column: 0 → A, 26 → AA.
func colName(col int) string { return sheets.ColName(col) }

func itoa(n int) string { return strconv.Itoa(n) }

// isGeneral reports a number format that shows a number as it is: General, text, none.
func isGeneral(format string) bool {
	return format == "" || format == "@" || strings.EqualFold(format, "General")
}

// cellText is what a cell says as a person reads it: a text as typed; a number as the
// spreadsheet shows it when its format says how (a NIS 12360 in format 0000000 is
// 0012360), else as stored (General would show a long number as 1.23457E+12); a date as
// shown; a formula's error by its name (#N/A).
func cellText(c sheets.Cell) string {
	switch c.Kind {
	case sheets.KindEmpty:
		return ""
	case sheets.KindNumber:
		if isGeneral(c.Format) {
			return c.Raw
		}
	}
	return c.Text
}

// totalWords are what a total row says in its first cells.
var totalWords = map[string]bool{
	"jumlah": true, "total": true, "jumlahtotal": true, "totalkeseluruhan": true, "jumlahkeseluruhan": true,
	"grandtotal": true, "subtotal": true, "jumlahseluruhnya": true, "totaltagihan": true, "jumlahtagihan": true,
}

// totalRow reports a row that sums the ones above ("Jumlah", "Total" in a cell, no NIS
// of its own): its label and the label's column.
func (s *sheet) totalRow() (string, int, bool) {
	nisCol := s.layout.Col[FieldNIS]
	if nisCol >= 0 {
		if c := s.cells[nisCol]; c.Kind != sheets.KindEmpty && !totalWords[headerKey(c.Text)] {
			return "", 0, false
		}
	}
	for col, c := range s.cells {
		if c.Kind == sheets.KindText && totalWords[headerKey(c.Text)] {
			return strings.TrimSpace(c.Text), col, true
		}
	}
	return "", 0, false
}

// ReadingOf is how upload j's file was read (false for an upload analysed before this was
// kept, or whose file could not be read).
func ReadingOf(j Job) (Reading, bool) {
	var rd Reading
	if j.Reading == "" || json.Unmarshal([]byte(j.Reading), &rd) != nil {
		return Reading{}, false
	}
	return rd, true
}
