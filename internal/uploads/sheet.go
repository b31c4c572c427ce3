package uploads

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/i18n"
)

// FileError is a problem with the whole file (not one cell): not a workbook, too big when
// unzipped, no header, required columns missing. Code is the message key under
// "uploads.file." and Args its arguments.
type FileError struct {
	Code string
	Args []string
}

func (e *FileError) Error() string {
	return fmt.Sprintf("uploads: file: %s %s", e.Code, strings.Join(e.Args, ", "))
}

// Limits bound what reading one file may cost (see guardWorkbook, which checks them all
// before excelize opens the file).
type Limits struct {
	// UnzipSize caps the total unzipped size of the workbook's parts (the zip bomb guard),
	// by the sizes the zip declares; Go's zip reader refuses a part that inflates past what
	// it declared.
	UnzipSize int64
	// UnzipXMLSize is the largest worksheet or string table held in memory; bigger ones are
	// unpacked to TempDir and streamed from there.
	UnzipXMLSize int64
	// InMemory caps the parts excelize holds in memory once the file is open: every part
	// but the worksheets and the shared strings bigger than UnzipXMLSize (styles, images,
	// drawings, small sheets).
	InMemory int64
	// MaxSharedStrings caps the distinct texts of the shared-string table (excelize keeps
	// an index entry for each while a sheet is read).
	MaxSharedStrings int
	// TempDir receives those unpacked parts, and the runner's temporary copies of sheets
	// and workbooks ("" is the system's temporary directory, $TMPDIR).
	TempDir string
	// MaxRows caps the data rows of one sheet.
	MaxRows int
}

// DefaultLimits fit a 20 MB upload and keep the memory of reading one file to a few tens
// of MB whatever it holds:
//   - unzipped at most 20 times the upload (400 MB for 20 MB, at least 64 MB): a real sheet
//     of that size unzips to well under half of it, and what is over 2 MB of XML is read
//     from disk, not memory;
//   - at most 16 MB of other parts (styles, images, drawings) held in memory: a school's
//     sheet has a few hundred KB of them;
//   - at most 500,000 distinct texts: far more than any school's sheet has (200,000 rows of
//     components share a few hundred names; a school has a few thousand students), and
//     excelize keeps an index entry of about 70 bytes for each while the sheet is read;
//   - at most 200,000 data rows.
func DefaultLimits(maxUpload int64) Limits {
	return Limits{UnzipSize: max(maxUpload*20, 64<<20), UnzipXMLSize: 2 << 20, InMemory: 16 << 20,
		MaxSharedStrings: 500_000, MaxRows: 200_000}
}

// zipMagic opens every .xlsx (a zip); oleMagic opens .xls and password-protected workbooks.
var (
	zipMagic = []byte("PK\x03\x04")
	oleMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}
)

// openWorkbook opens the file at path with the limits and says, as a FileError, why a
// file that is not a readable workbook cannot be used.
func openWorkbook(path string, lim Limits) (*excelize.File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("uploads: open %s: %w", path, err)
	}
	head := make([]byte, 8)
	n, _ := io.ReadFull(fh, head)
	fh.Close()
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, oleMagic):
		// An old .xls, or an .xlsx with a password: both are OLE containers.
		return nil, &FileError{Code: "old_or_protected"}
	case !bytes.HasPrefix(head, zipMagic):
		return nil, &FileError{Code: "not_xlsx"}
	}
	if err := guardWorkbook(path, lim); err != nil {
		return nil, err
	}
	f, err := excelize.OpenFile(path, excelize.Options{
		RawCellValue:      true,
		UnzipSizeLimit:    lim.UnzipSize,
		UnzipXMLSizeLimit: min(lim.UnzipXMLSize, lim.UnzipSize),
		TmpDir:            lim.TempDir,
	})
	if err != nil {
		if f != nil {
			_ = f.Close()
		}
		switch {
		case strings.Contains(err.Error(), "unzip size exceeds"):
			return nil, &FileError{Code: "too_big_unzipped", Args: []string{mb(lim.UnzipSize)}}
		case errors.Is(err, zip.ErrFormat), errors.Is(err, zip.ErrAlgorithm), errors.Is(err, zip.ErrChecksum),
			errors.Is(err, excelize.ErrWorkbookFileFormat), errors.Is(err, io.ErrUnexpectedEOF):
			return nil, &FileError{Code: "not_xlsx"}
		}
		return nil, &FileError{Code: "unreadable"}
	}
	return f, nil
}

func mb(n int64) string { return strconv.FormatInt((n+(1<<20)-1)>>20, 10) }

// dataSheetNames are the names of the templates' data sheets, per kind.
var dataSheetNames = map[Kind][]string{
	Components: {"tagihan", "komponen", "components", "data"},
	Students:   {"siswa", "students", "data"},
}

// instructionSheet is the templates' second sheet, never the data.
var instructionSheets = []string{"petunjuk", "instructions", "petunjuk instructions"}

// dataSheet picks the sheet to read: the template's data sheet by name, else the first
// sheet that is not the instructions.
func dataSheet(f *excelize.File, kind Kind) (string, error) {
	list := f.GetSheetList()
	for _, want := range dataSheetNames[kind] {
		for _, name := range list {
			if strings.EqualFold(strings.TrimSpace(name), want) {
				return name, nil
			}
		}
	}
	for _, name := range list {
		skip := false
		for _, ins := range instructionSheets {
			if strings.EqualFold(strings.TrimSpace(name), ins) || strings.HasPrefix(strings.ToLower(name), ins+" ") {
				skip = true
			}
		}
		if !skip {
			return name, nil
		}
	}
	return "", &FileError{Code: "no_sheet"}
}

// date1904 reports whether the workbook counts dates from 1904 (old Mac workbooks).
func date1904(f *excelize.File) bool {
	props, err := f.GetWorkbookProps()
	return err == nil && props.Date1904 != nil && *props.Date1904
}

// sheet is an open workbook positioned on its data sheet, read row by row.
type sheet struct {
	f        *excelize.File
	rows     *excelize.Rows
	name     string
	date1904 bool
	// row is the 1-based number of the row Columns last returned.
	row int
}

// openSheet opens the workbook's data sheet for reading.
func openSheet(path string, kind Kind, lim Limits) (*sheet, error) {
	f, err := openWorkbook(path, lim)
	if err != nil {
		return nil, err
	}
	name, err := dataSheet(f, kind)
	if err != nil {
		f.Close()
		return nil, err
	}
	rows, err := f.Rows(name)
	if err != nil {
		f.Close()
		return nil, &FileError{Code: "unreadable"}
	}
	return &sheet{f: f, rows: rows, name: name, date1904: date1904(f)}, nil
}

// next returns the next row's cells (raw values: dates as serial numbers) and false at
// the end. Rows missing from the file come back empty, so row numbers stay true.
func (s *sheet) next() ([]string, bool, error) {
	if !s.rows.Next() {
		if err := s.rows.Error(); err != nil {
			return nil, false, &FileError{Code: "unreadable"}
		}
		return nil, false, nil
	}
	s.row++
	cells, err := s.rows.Columns(excelize.Options{RawCellValue: true})
	if err != nil {
		return nil, false, &FileError{Code: "unreadable"}
	}
	return cells, true, nil
}

func (s *sheet) close() error {
	err := s.rows.Close()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// header reads up to the header row: the first row naming two of the kind's columns
// within the first ten non-empty rows, else the first non-empty row (whose missing
// columns are then reported).
func (s *sheet) header(kind Kind) (*Layout, error) {
	var first []string
	firstRow := 0
	for seen := 0; seen < 10; {
		cells, ok, err := s.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if blankRow(cells) {
			continue
		}
		seen++
		if looksLikeHeader(kind, cells) {
			l, ferr := mapHeader(kind, s.row, cells)
			if ferr != nil {
				return nil, ferr
			}
			return l, nil
		}
		if first == nil {
			first, firstRow = cells, s.row
		}
	}
	if first == nil {
		return nil, &FileError{Code: "empty"}
	}
	_, ferr := mapHeader(kind, firstRow, first)
	if ferr != nil {
		return nil, ferr
	}
	return nil, &FileError{Code: "empty"}
}

func blankRow(cells []string) bool {
	for _, c := range cells {
		if i18n.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

// cellName is the A1 name of a 0-based column in a 1-based row.
func cellName(col, row int) string {
	return colName(col) + strconv.Itoa(row)
}

// colName is the letters of a 0-based column: 0 → A, 26 → AA.
func colName(col int) string {
	var b [8]byte
	i := len(b)
	for n := col + 1; n > 0; n = (n - 1) / 26 {
		i--
		b[i] = byte('A' + (n-1)%26)
	}
	return string(b[i:])
}

func itoa(n int) string { return strconv.Itoa(n) }
