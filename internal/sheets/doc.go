// Package sheets reads the spreadsheet files schools really have — .xlsx, .xls (Excel
// 97–2003), .ods (LibreOffice) and CSV — in a stream, within bounds that hold whatever the
// file contains, and tells the caller everything it needs never to guess silently.
//
// Open finds the format from the content, never the name: a zip is an .xlsx (by its
// content types) or an .ods (by its mimetype), an OLE2 compound file is an .xls (its
// Workbook stream), anything else is read as CSV unless it is a PDF, an image, binary
// data or a web page saved with a spreadsheet's name. What it is not is an *Error whose
// Reason says so: NotSpreadsheet, OtherDocument (a .docx, .doc, .odt, .pdf, .xlsb:
// Error.Part says which), WebPage, Encrypted (a password to open), OldVersion (Excel
// 5/95), Damaged, NoSheet.
//
// What a caller gets. Book.Sheets lists the worksheets with their name, visibility
// (visible, hidden, very hidden) and which one is active; Book.Preferred is the active
// visible sheet, else the first visible one (never a hidden one). Book.Rows streams one
// sheet's rows; each Row has its true number (rows without cells are skipped, not
// renumbered) and whether it is hidden, and each Cell its reference (Ref: "D11"), its
// Kind (text, number, date, time, boolean, formula error such as #N/A, empty), its Text
// as the spreadsheet shows it through its number format (a NIS 12360 in format 0000000
// shows 0012360), its Raw value (a date as its serial number), its Number or Time, its
// number format code and whether it is a formula's result. Dates follow the book's date
// system (Book.Date1904). Rows.MergedAt gives the merged range covering a cell, so a
// caller filling merged cells down can say so; Rows.ColHidden says which columns are
// hidden. For a CSV, Book.Encoding and Book.Delimiter say how it was read: a byte order
// mark (UTF-8, UTF-16), else UTF-8 when the whole file is valid UTF-8, else Windows-1252;
// ';', ',' or tab by the first record (or Excel's "sep=;" line).
//
// Bounds. Limits bound the file, the unzipped parts (each and together, and the zip's
// entries), the XML nesting depth and tag length of every part read, the characters of a
// cell (Excel's 32,767), the shared strings (count and characters), the sheets, formats,
// rows, columns, cells and merged ranges, the .xls records, a CSV record's bytes and
// fields. Each is checked before what it bounds is held: every XML part passes through
// one filter (xmlFilter) that counts depth and tag length with internal/xmlscan's Scanner
// (the one place those are counted), text lengths a byte at a time, and refuses a
// DOCTYPE; the XML is then read with encoding/xml's RawToken, which keeps no element
// stack. Going past a bound is an *Error with Reason TooBig, the Bound, its Limit,
// the Part and, where one is concerned, the Cell — for the uploads to word. A sheet nested
// six million elements deep (issue 30) is refused at depth 64 having allocated next to
// nothing (TestDeepSheetCostsNothing).
//
// Why readers of our own. excelize's streaming Rows gives each cell as a string only: not
// its type, its style or its number format (a NIS typed as text and one stored as a number
// look the same), and its merged-cell, cell-type and row-visibility getters load the whole
// worksheet. The .xls and .ods libraries for Go were judged and left: extrame/xls and
// shakinm/xlsReader load the whole workbook, are barely maintained and panic on damaged
// files (extrame/xls #7, shakinm/xlsReader #29, out-of-range indexes); knieriem/odf and
// its forks unmarshal content.xml whole into structs (no streaming, no depth bound) and
// read neither number formats, hidden tables nor the active one; the newer BIFF readers
// list only visible sheets and drop formats and merges. So:
//   - .xlsx: the workbook, relationships, styles and shared strings are read with a hook
//     on the filter; a worksheet is read once with the hook for what comes after its cells
//     (merged ranges) and the hidden columns, then streamed with RawToken.
//   - .xls: the compound file is read with github.com/richardlehane/mscfb (which excelize
//     already brings; its header counts and the directory's first sector are checked
//     against the file's size first, as mscfb sizes tables from them, and a panic inside
//     it, opening the file or reading a stream, is a Damaged error: FuzzReadXLS found one). The BIFF8 workbook stream is read record by record:
//     BOF (BIFF5 and older refused as OldVersion), FILEPASS (Encrypted), DATEMODE, WINDOW1
//     (the active sheet), BOUNDSHEET (names, visibility, offsets), FORMAT and XF (number
//     formats), SST with its CONTINUE records (a string's characters may switch between
//     8-bit and UTF-16 at a record boundary); a sheet's records are scanned once for
//     MERGEDCELLS, COLINFO and ROW (hidden) and then read for LABELSST, LABEL, RSTRING,
//     NUMBER, RK, MULRK, BOOLERR and FORMULA (cached numbers, strings from the STRING
//     record that follows, booleans, errors), embedded charts skipped. Cells are handed out
//     by row at each row block's end (DBCELL), sorted.
//   - .ods: styles.xml and content.xml are scanned with the filter's hooks for the data
//     styles (turned into format codes), the cell styles and the tables with their
//     visibility; settings.xml gives the active table. A table is then streamed with
//     RawToken: repeated rows and cells (LibreOffice repeats empty ones a million times)
//     cost nothing when empty and count against the bounds when not; spans are merged
//     ranges; comments and drawings are not the cell's text; the text is the one
//     LibreOffice showed.
//   - CSV: a small parser of its own (quotes, quoted line breaks, CRLF, CR or LF), so a
//     record's bytes and fields are bounded as they are read.
//
// Number formats (numfmt.go) are Excel's: sections for positive, negative, zero and text,
// conditions, digit placeholders 0 # ?, grouping and scaling commas, percent, scientific,
// fractions, literals and escapes, [$Rp-421] currencies and locales (Indonesian month and
// day names for 421), colours ignored, dates and times with elapsed [h]:mm and fractional
// seconds, rounded on 15 significant digits as Excel does (2.675 in 0.00 is 2.68).
// TestFormatLikeExcelize checks them against excelize's own rendering.
//
// A Book is not safe for concurrent use. The fixtures in testdata were made by LibreOffice
// (testdata/README.md says how); fuzz targets FuzzReadXLS, FuzzReadODS and FuzzReadCSV
// check that any input is read within the bounds or refused, never a panic; BenchmarkRead
// gives rows per second and allocations per format on a 10,000-row sheet.
package sheets
