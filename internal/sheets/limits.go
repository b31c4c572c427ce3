package sheets

import (
	"fmt"
	"strconv"
)

// Limits bound what reading one file may cost, whatever its format. Every bound is checked
// while the file is read, before the thing it bounds is held in memory; going past one
// stops the reading with an *Error naming the bound (Bound), its value (Limit) and where it
// was (Part, Cell). A zero field takes its value from DefaultLimits.
type Limits struct {
	// MaxBytes caps the file itself (the upload limit).
	MaxBytes int64
	// MaxUnzipped caps the sum of the sizes the zip declares for the parts read (.xlsx,
	// .ods): the zip bomb guard. Go's zip reader refuses a part that inflates past what it
	// declared, so the declared sizes are the real ones.
	MaxUnzipped int64
	// MaxPartBytes caps one part once unzipped (a worksheet, content.xml).
	MaxPartBytes int64
	// MaxZipEntries caps the entries of a zip's directory: a workbook has a few dozen, and
	// Go's zip reader holds a record for each.
	MaxZipEntries int
	// MaxDepth caps the nesting of XML elements in every part read. A worksheet cell is 5
	// to 7 deep, an .ods cell 8 to 12; a document nested millions deep costs a decoder that
	// keeps the element stack its whole size in memory (issue 30's 43 KB sheet).
	MaxDepth int
	// MaxTagBytes caps one XML tag, comment or processing instruction.
	MaxTagBytes int
	// MaxCellChars caps the text of one cell (Excel's own 32,767 characters).
	MaxCellChars int
	// MaxSharedStrings caps the distinct texts of a shared-string table (.xlsx, .xls).
	MaxSharedStrings int
	// MaxSharedChars caps the characters of all shared strings together: they are held in
	// memory while a sheet is read.
	MaxSharedChars int64
	// MaxSheets caps the sheets of a workbook.
	MaxSheets int
	// MaxStyles caps the cell formats and number formats of a workbook.
	MaxStyles int
	// MaxRows caps the rows read from one sheet, counted by their row number.
	MaxRows int
	// MaxCols caps the columns: no cell beyond this column is read.
	MaxCols int
	// MaxCells caps the non-empty cells read from one sheet.
	MaxCells int64
	// MaxMerges caps the merged ranges of one sheet.
	MaxMerges int
	// MaxRecords caps the BIFF records read from an .xls workbook stream.
	MaxRecords int
	// MaxLineBytes caps one CSV record (a line, or several inside quotes) in bytes.
	MaxLineBytes int
	// MaxFields caps the fields of one CSV record.
	MaxFields int
}

// ExcelMaxCellChars, ExcelMaxRows and ExcelMaxCols are Excel's own limits: a file past
// them was not made by a spreadsheet.
const (
	ExcelMaxCellChars = 32_767
	ExcelMaxRows      = 1_048_576
	ExcelMaxCols      = 16_384
)

// DefaultLimits fit an upload of maxBytes (20 MB in the portal) and keep reading any file
// to a few tens of MB of memory:
//   - unzipped at most 20 times the upload in all (at least 64 MB), one part at most as
//     much: a real sheet unzips to well under half of it, and parts are streamed;
//   - at most 10,000 zip entries (a workbook has a few dozen), nesting 64 deep, a tag of
//     1 MiB;
//   - Excel's own 32,767 characters a cell, 1,048,576 rows and 16,384 columns;
//   - 500,000 shared strings of 16 million characters in all: far more than any school's
//     sheet (a school has a few thousand students, 200,000 bills share a few hundred names);
//   - 1,024 sheets, 65,536 formats, 100,000 merged ranges, 20 million cells a sheet;
//   - 8 million .xls records (a record is at least 4 bytes: a 20 MB file holds 5 million);
//   - a CSV record of 1 MiB and 16,384 fields.
func DefaultLimits(maxBytes int64) Limits {
	if maxBytes <= 0 {
		maxBytes = 20 << 20
	}
	unzipped := max(maxBytes*20, 64<<20)
	return Limits{
		MaxBytes: maxBytes, MaxUnzipped: unzipped, MaxPartBytes: unzipped, MaxZipEntries: 10_000,
		MaxDepth: 64, MaxTagBytes: 1 << 20, MaxCellChars: ExcelMaxCellChars,
		MaxSharedStrings: 500_000, MaxSharedChars: 16 << 20, MaxSheets: 1_024, MaxStyles: 65_536,
		MaxRows: ExcelMaxRows, MaxCols: ExcelMaxCols, MaxCells: 20_000_000, MaxMerges: 100_000,
		MaxRecords: 8_000_000, MaxLineBytes: 1 << 20, MaxFields: ExcelMaxCols,
	}
}

// withDefaults fills the zero fields from DefaultLimits(l.MaxBytes).
func (l Limits) withDefaults() Limits {
	d := DefaultLimits(l.MaxBytes)
	fill64 := func(v *int64, def int64) {
		if *v <= 0 {
			*v = def
		}
	}
	fill := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	fill64(&l.MaxBytes, d.MaxBytes)
	fill64(&l.MaxUnzipped, d.MaxUnzipped)
	fill64(&l.MaxPartBytes, d.MaxPartBytes)
	fill(&l.MaxZipEntries, d.MaxZipEntries)
	fill(&l.MaxDepth, d.MaxDepth)
	fill(&l.MaxTagBytes, d.MaxTagBytes)
	fill(&l.MaxCellChars, d.MaxCellChars)
	fill(&l.MaxSharedStrings, d.MaxSharedStrings)
	fill64(&l.MaxSharedChars, d.MaxSharedChars)
	fill(&l.MaxSheets, d.MaxSheets)
	fill(&l.MaxStyles, d.MaxStyles)
	fill(&l.MaxRows, d.MaxRows)
	fill(&l.MaxCols, d.MaxCols)
	fill64(&l.MaxCells, d.MaxCells)
	fill(&l.MaxMerges, d.MaxMerges)
	fill(&l.MaxRecords, d.MaxRecords)
	fill(&l.MaxLineBytes, d.MaxLineBytes)
	fill(&l.MaxFields, d.MaxFields)
	return l
}

// Reason is why a file could not be read: the uploads word each one for the person.
type Reason int

// The reasons. Their Code is stable, for message catalogues.
const (
	// NotSpreadsheet: none of the formats read here (an image, a PDF, random bytes).
	NotSpreadsheet Reason = iota + 1
	// OtherDocument: a document of another kind (Word, PowerPoint, a text document):
	// Error.Part names which ("docx", "doc", "odt", "pdf").
	OtherDocument
	// WebPage: an HTML table or an Excel 2003 XML file saved with a spreadsheet's name,
	// as some school and government systems export ("xls" that is HTML).
	WebPage
	// Encrypted: a workbook protected by a password to open (.xlsx, .xls or .ods).
	Encrypted
	// OldVersion: an .xls from Excel 5/95 or older (BIFF5 and before).
	OldVersion
	// Damaged: the file has the shape of a format but breaks its rules.
	Damaged
	// TooBig: a bound of Limits was passed; Error.Bound says which.
	TooBig
	// NoSheet: the workbook has no worksheet (only charts), or the sheet asked for does
	// not exist.
	NoSheet
)

var reasonCodes = map[Reason]string{
	NotSpreadsheet: "not_spreadsheet", OtherDocument: "other_document", WebPage: "web_page",
	Encrypted: "encrypted", OldVersion: "old_version", Damaged: "damaged", TooBig: "too_big",
	NoSheet: "no_sheet",
}

// Code is the reason's stable name ("encrypted"), for a message key.
func (r Reason) Code() string {
	if c, ok := reasonCodes[r]; ok {
		return c
	}
	return "reason_" + strconv.Itoa(int(r))
}

func (r Reason) String() string { return r.Code() }

// Bound names the bound of Limits a file passed.
type Bound int

// The bounds, one per field of Limits.
const (
	BoundBytes Bound = iota + 1
	BoundUnzipped
	BoundPartBytes
	BoundZipEntries
	BoundDepth
	BoundTagBytes
	BoundCellChars
	BoundSharedStrings
	BoundSharedChars
	BoundSheets
	BoundStyles
	BoundRows
	BoundCols
	BoundCells
	BoundMerges
	BoundRecords
	BoundLineBytes
	BoundFields
)

var boundCodes = map[Bound]string{
	BoundBytes: "bytes", BoundUnzipped: "unzipped", BoundPartBytes: "part_bytes",
	BoundZipEntries: "zip_entries", BoundDepth: "depth", BoundTagBytes: "tag_bytes",
	BoundCellChars: "cell_chars", BoundSharedStrings: "shared_strings",
	BoundSharedChars: "shared_chars", BoundSheets: "sheets", BoundStyles: "styles",
	BoundRows: "rows", BoundCols: "cols", BoundCells: "cells", BoundMerges: "merges",
	BoundRecords: "records", BoundLineBytes: "line_bytes", BoundFields: "fields",
}

// Code is the bound's stable name ("depth"), for a message key.
func (b Bound) Code() string {
	if c, ok := boundCodes[b]; ok {
		return c
	}
	return "bound_" + strconv.Itoa(int(b))
}

func (b Bound) String() string { return b.Code() }

// Error is why a file, or a sheet of it, could not be read. Reason says what kind of
// problem; for TooBig, Bound says which bound and Limit its value; Part names where (a
// zip part such as "xl/worksheets/sheet1.xml", "content.xml", the .xls "Workbook" stream,
// "line 12" of a CSV) and Cell the cell when one is concerned ("B7"). Detail is for logs.
type Error struct {
	Format Format
	Reason Reason
	Bound  Bound
	Limit  int64
	Part   string
	Cell   string
	Detail string
	Err    error
}

func (e *Error) Error() string {
	s := "sheets: " + e.Reason.Code()
	if e.Format != 0 {
		s += " " + e.Format.String()
	}
	if e.Bound != 0 {
		s += fmt.Sprintf(": %s over %d", e.Bound.Code(), e.Limit)
	}
	if e.Part != "" {
		s += " in " + e.Part
	}
	if e.Cell != "" {
		s += " at " + e.Cell
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// tooBig is the error of a bound passed.
func tooBig(f Format, b Bound, limit int64, part string) *Error {
	return &Error{Format: f, Reason: TooBig, Bound: b, Limit: limit, Part: part}
}

// damaged is the error of a file breaking its format's rules.
func damaged(f Format, part, detail string, err error) *Error {
	return &Error{Format: f, Reason: Damaged, Part: part, Detail: detail, Err: err}
}
