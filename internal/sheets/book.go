package sheets

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// Book is an open spreadsheet file: its worksheets, and their rows one sheet at a time.
// A Book is not safe for concurrent use; read one sheet's Rows to the end (or Close
// them) before opening another's.
type Book struct {
	// Format is what the file is, found from its content.
	Format Format
	// Sheets are the worksheets in the workbook's order (chart and macro sheets left out).
	Sheets []SheetInfo
	// Date1904: dates count from 1904 (old Mac workbooks; .xlsx and .xls).
	Date1904 bool
	// Encoding is a CSV file's encoding: "UTF-8", "UTF-8 BOM", "UTF-16LE", "UTF-16BE" or
	// "Windows-1252" (empty for workbooks).
	Encoding string
	// Delimiter is a CSV file's separator: ';', ',' or '\t' (0 for workbooks).
	Delimiter rune

	lim    Limits
	impl   bookImpl
	closer io.Closer
}

// bookImpl is one format's reader.
type bookImpl interface {
	rows(sheet int) (rowSource, error)
	close() error
}

// rowSource streams one sheet's rows for Rows, which checks the bounds common to all.
type rowSource interface {
	// next fills row (its Cells truncated to zero first) and reports false at the end.
	next(row *Row) (bool, error)
	// merged is the merged ranges known so far: all of them from the start for .xlsx and
	// .xls, those whose top row has been read for .ods.
	merged() []Range
	// colHidden reports whether a 0-based column is hidden.
	colHidden(col int) bool
	close() error
}

// Preferred is the index of the sheet an upload should read when none is named: the
// active sheet if it is visible, else the first visible one; -1 if none is visible.
func (b *Book) Preferred() int {
	for _, s := range b.Sheets {
		if s.Active && s.Visibility == Visible {
			return s.Index
		}
	}
	for _, s := range b.Sheets {
		if s.Visibility == Visible {
			return s.Index
		}
	}
	return -1
}

// Rows opens the rows of the sheet with the given index in Sheets.
func (b *Book) Rows(sheet int) (*Rows, error) {
	if sheet < 0 || sheet >= len(b.Sheets) {
		return nil, &Error{Format: b.Format, Reason: NoSheet}
	}
	src, err := b.impl.rows(sheet)
	if err != nil {
		return nil, err
	}
	return &Rows{src: src, lim: &b.lim, format: b.Format, part: b.Sheets[sheet].Name}, nil
}

// Close releases the file.
func (b *Book) Close() error {
	err := b.impl.close()
	if b.closer != nil {
		if cerr := b.closer.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// Rows streams the rows of one sheet:
//
//	for rows.Next() {
//		row := rows.Row()
//		...
//	}
//	if err := rows.Err(); err != nil { ... }
type Rows struct {
	src    rowSource
	lim    *Limits
	format Format
	part   string
	row    Row
	err    error
	done   bool
	cells  int64
	last   int
}

// Next reads the next row with a non-empty cell; false at the end or on an error (see
// Err).
func (r *Rows) Next() bool {
	if r.done {
		return false
	}
	r.row.Number, r.row.Hidden, r.row.Cells = 0, false, r.row.Cells[:0]
	ok, err := r.src.next(&r.row)
	if err == nil && ok {
		err = r.check()
	}
	if err != nil {
		r.err, r.done = err, true
		return false
	}
	if !ok {
		r.done = true
		return false
	}
	return true
}

// check holds the bounds every format shares, one row at a time.
func (r *Rows) check() error {
	row := &r.row
	if row.Number > r.lim.MaxRows {
		return tooBig(r.format, BoundRows, int64(r.lim.MaxRows), r.part)
	}
	if row.Number <= r.last {
		e := damaged(r.format, r.part, "rows out of order", nil)
		e.Cell = CellRef(max(row.Number, 1), 0)
		return e
	}
	r.last = row.Number
	if r.cells += int64(len(row.Cells)); r.cells > r.lim.MaxCells {
		return tooBig(r.format, BoundCells, r.lim.MaxCells, r.part)
	}
	for i := range row.Cells {
		c := &row.Cells[i]
		if c.Col >= r.lim.MaxCols {
			e := tooBig(r.format, BoundCols, int64(r.lim.MaxCols), r.part)
			e.Cell = c.Ref()
			return e
		}
		if len(c.Text) > r.lim.MaxCellChars && utf8.RuneCountInString(c.Text) > r.lim.MaxCellChars ||
			len(c.Raw) > r.lim.MaxCellChars && utf8.RuneCountInString(c.Raw) > r.lim.MaxCellChars {
			e := tooBig(r.format, BoundCellChars, int64(r.lim.MaxCellChars), r.part)
			e.Cell = c.Ref()
			return e
		}
	}
	return nil
}

// Row is the row Next read. It is reused by the next call: copy what you keep.
func (r *Rows) Row() *Row { return &r.row }

// Err is the error that ended the rows, nil at their end.
func (r *Rows) Err() error { return r.err }

// Merged is the sheet's merged ranges: all of them from the start for .xlsx and .xls
// (read before the first row), for .ods those whose first row has been read (so a cell's
// range is known when its row is). A caller filling merged cells down asks MergedAt.
func (r *Rows) Merged() []Range { return r.src.merged() }

// MergedAt is the merged range covering the cell at row, col, if any.
func (r *Rows) MergedAt(row, col int) (Range, bool) {
	for _, g := range r.src.merged() {
		if g.Contains(row, col) {
			return g, true
		}
	}
	return Range{}, false
}

// ColHidden reports whether the 0-based column is hidden in the file.
func (r *Rows) ColHidden(col int) bool { return r.src.colHidden(col) }

// Close stops the reading; the Book stays open.
func (r *Rows) Close() error {
	r.done = true
	return r.src.close()
}

// OpenFile opens the file at path (see Open); Close closes the file.
func OpenFile(path string, lim Limits) (*Book, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	b, err := Open(f, st.Size(), lim)
	if err != nil {
		f.Close()
		return nil, err
	}
	b.closer = f
	return b, nil
}

// Signatures that tell formats apart.
var (
	zipMagic = []byte("PK\x03\x04")
	oleMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}
)

// Open reads what the file is from its content (a zip is an .xlsx or an .ods by its
// content types or mimetype, an OLE2 compound file is an .xls, text is CSV), never from
// its name, and opens it with the bounds of lim (zero fields: DefaultLimits). A file that
// is none of them, a document of another kind, a web page saved as .xls, a workbook
// protected by a password or damaged is an *Error saying so.
func Open(r io.ReaderAt, size int64, lim Limits) (*Book, error) {
	lim = lim.withDefaults()
	if size > lim.MaxBytes {
		return nil, tooBig(0, BoundBytes, lim.MaxBytes, "")
	}
	if size == 0 {
		return nil, &Error{Reason: NotSpreadsheet, Detail: "empty file"}
	}
	head := make([]byte, min(size, 4096))
	if _, err := r.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	b := &Book{lim: lim}
	var err error
	switch {
	case bytes.HasPrefix(head, zipMagic):
		err = openZipBook(b, r, size)
	case bytes.HasPrefix(head, oleMagic):
		err = openOLEBook(b, r, size)
	default:
		if e := sniffOther(head); e != nil {
			return nil, e
		}
		err = openCSV(b, r, size)
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}

// sniffOther names what a file that is neither a zip nor an OLE2 file is when it is not
// text: a PDF, an image, a web page saved as a spreadsheet. nil means: read it as CSV.
func sniffOther(head []byte) *Error {
	switch {
	case bytes.HasPrefix(head, []byte("%PDF")):
		return &Error{Reason: OtherDocument, Part: "pdf"}
	case bytes.HasPrefix(head, []byte("{\\rtf")):
		return &Error{Reason: OtherDocument, Part: "rtf"}
	case bytes.HasPrefix(head, []byte("\x89PNG")), bytes.HasPrefix(head, []byte("\xFF\xD8\xFF")),
		bytes.HasPrefix(head, []byte("GIF8")), bytes.HasPrefix(head, []byte("Rar!")),
		bytes.HasPrefix(head, []byte("\x1F\x8B")), bytes.HasPrefix(head, []byte("7z\xBC\xAF")),
		bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return &Error{Reason: NotSpreadsheet}
	}
	text := head
	utf16 := bytes.HasPrefix(text, []byte{0xFF, 0xFE}) || bytes.HasPrefix(text, []byte{0xFE, 0xFF})
	if !utf16 && bytes.IndexByte(text, 0) >= 0 {
		return &Error{Reason: NotSpreadsheet, Detail: "binary"}
	}
	if utf16 {
		text = asciiOfUTF16(text)
	}
	text = bytes.TrimPrefix(text, []byte("\xEF\xBB\xBF"))
	text = bytes.TrimLeft(text, " \t\r\n")
	lowerHead := strings.ToLower(string(text[:min(len(text), 1024)]))
	if strings.HasPrefix(lowerHead, "<") {
		for _, sig := range []string{"<html", "<!doctype html", "<table", "<?xml", "<meta", "<head", "<body", "<style"} {
			if strings.HasPrefix(lowerHead, sig) || strings.Contains(lowerHead, "<table") || strings.Contains(lowerHead, "urn:schemas-microsoft-com:office:spreadsheet") {
				return &Error{Reason: WebPage}
			}
		}
	}
	return nil
}

// asciiOfUTF16 keeps the low bytes of UTF-16 text (enough to sniff markup).
func asciiOfUTF16(b []byte) []byte {
	be := b[0] == 0xFE
	out := make([]byte, 0, len(b)/2)
	for i := 2; i+1 < len(b); i += 2 {
		c := b[i]
		if be {
			c = b[i+1]
		}
		out = append(out, c)
	}
	return out
}
