package uploads

import (
	"archive/zip"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/xmlscan"
)

// What a workbook may cost to open and read, checked by guardWorkbook before excelize
// touches the file. Each bound says why it is where it is; the person sees it in the
// message of the file problem.
const (
	// MaxCellChars is Excel's own limit on the text of one cell (32,767 characters): a cell
	// longer than that was not made by Excel, and reading it would hold all of it in memory
	// (a 300 KB upload can carry a 300 MiB cell).
	MaxCellChars = 32_767
	// MaxSheetRows is Excel's own limit on the rows of a sheet.
	MaxSheetRows = 1_048_576
)

// guardWorkbook refuses, as a *FileError, a workbook that would cost too much to open or
// read, before excelize opens it: it reads the zip's directory (the sizes every part
// declares; Go's zip reader refuses a part that inflates past what it declared) and
// streams every XML part once through a small scanner that holds nothing of it but a few
// counters. Refused: a total unzipped size over lim.UnzipSize; parts excelize holds in
// memory over lim.InMemory; a shared-string table of more than lim.MaxSharedStrings
// strings; any cell or text longer than MaxCellChars (named by its cell when it is in
// one); more rows than Excel allows; in any XML part (the sheets, the shared strings,
// the styles, the workbook, the relationships, the content types, drawings, whatever
// its name, a part that starts as XML), elements nested deeper than xmlscan.MaxDepth
// (named by the part) or a tag over xmlscan.MaxTagBytes.
func guardWorkbook(path string, lim Limits) error {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return &FileError{Code: "not_xlsx"}
	}
	defer zr.Close()
	var total, inMemory uint64
	var sst *zip.File
	var parts []*zip.File
	for _, f := range zr.File {
		size := f.UncompressedSize64
		if size > uint64(lim.UnzipSize) || total+size > uint64(lim.UnzipSize) {
			return &FileError{Code: "too_big_unzipped", Args: []string{mb(lim.UnzipSize)}}
		}
		total += size
		// As excelize's ReadZipReader decides: the shared strings and the worksheets over
		// UnzipXMLSize go to temporary files; every other part is held in memory.
		name := strings.ToLower(strings.ReplaceAll(f.Name, `\`, "/"))
		streamed := name == "xl/sharedstrings.xml" || strings.HasPrefix(name, "xl/worksheets/sheet")
		if !streamed || size <= uint64(lim.UnzipXMLSize) {
			inMemory += size
		}
		switch {
		case name == "xl/sharedstrings.xml":
			sst = f
		case strings.HasSuffix(name, "/"):
			// A folder's entry: nothing to read.
		default:
			// Every other part, XML or not: one that is not XML is skipped by scanPart.
			parts = append(parts, f)
		}
	}
	if lim.InMemory > 0 && inMemory > uint64(lim.InMemory) {
		return &FileError{Code: "too_big_parts", Args: []string{mb(int64(inMemory)), mb(lim.InMemory)}}
	}
	// The shared strings first: a too long one is named by the first cell that uses it.
	var big map[int]bool
	if sst != nil {
		g := &xmlGuard{sst: true, maxItems: lim.MaxSharedStrings, part: sst.Name}
		if err := g.scanPart(sst); err != nil {
			return err
		}
		big = g.bigItems
	}
	for _, f := range parts {
		g := &xmlGuard{sheet: strings.HasPrefix(strings.ToLower(f.Name), "xl/worksheets/"), bigItems: big, part: f.Name}
		if err := g.scanPart(f); err != nil {
			return err
		}
	}
	if len(big) > 0 {
		// A too long shared string no cell uses: still not something Excel wrote.
		return &FileError{Code: "text_too_long", Args: []string{i18n.Number(MaxCellChars)}}
	}
	return nil
}

// xmlGuard streams one XML part through an xmlscan.Scanner (which bounds its nesting and
// its tags) and keeps only counters: the characters of the current text run, of the
// current cell or shared string.
type xmlGuard struct {
	sheet bool   // a worksheet: cells and rows
	sst   bool   // the shared-string table: its items
	part  string // the part's name in the zip, for the message

	sc     xmlscan.Scanner
	run    int // characters of the current text run
	entity int // > 0 inside an entity reference (&amp;): bytes so far

	// Worksheets.
	inCell     bool
	cellRef    []byte
	cellShared bool // t="s": the value is a shared string's index
	cellChars  int
	inV        bool
	vDigits    []byte
	rows       int
	maxRows    int          // MaxSheetRows unless set (tests)
	bigItems   map[int]bool // shared strings over MaxCellChars, by index

	// The shared-string table.
	inSI     bool
	siChars  int
	items    int
	maxItems int
}

func (g *xmlGuard) scanPart(f *zip.File) error {
	rc, err := f.Open()
	if err != nil {
		return &FileError{Code: "unreadable"}
	}
	defer rc.Close()
	buf := make([]byte, 64<<10)
	for first := true; ; {
		n, rerr := rc.Read(buf)
		if first && n > 0 {
			if !isText(buf[:min(n, 512)]) {
				// An image, printer settings, a VBA project: not something an XML decoder
				// gets past its first bytes, whatever the part is called.
				return nil
			}
			first = false
		}
		if n > 0 {
			if err := g.feed(buf[:n]); err != nil {
				return err
			}
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			// A part that inflates past its declared size, a bad checksum, a broken stream.
			return &FileError{Code: "unreadable"}
		}
	}
}

// isText reports whether the first bytes of a part are text an XML decoder would read on:
// UTF-8 (a sequence cut at the end allowed) without control characters but tabs and line
// ends. A part that starts otherwise is refused by the decoder at once.
func isText(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return len(b)-i < utf8.UTFMax && !utf8.FullRune(b[i:])
		}
		i += size
	}
	return true
}

// tooLong is the problem of a text over MaxCellChars: named by its cell when in one.
func (g *xmlGuard) tooLong() error {
	if g.inCell && len(g.cellRef) > 0 {
		return &FileError{Code: "cell_too_long", Args: []string{string(g.cellRef), i18n.Number(MaxCellChars)}}
	}
	return &FileError{Code: "text_too_long", Args: []string{i18n.Number(MaxCellChars)}}
}

// chars counts the characters of text (one per UTF-8 sequence, one per entity reference)
// into the current run, cell and shared string, and refuses as soon as one is too long.
func (g *xmlGuard) chars(text []byte) error {
	n := 0
	for _, c := range text {
		switch {
		case g.entity > 0:
			g.entity++
			if c == ';' || g.entity > 12 {
				g.entity = 0
			}
		case c == '&':
			g.entity = 1
			n++
		case c&0xC0 != 0x80:
			n++
		}
	}
	if g.inV && g.cellShared && len(g.vDigits) < 12 {
		for _, c := range text {
			if c >= '0' && c <= '9' && len(g.vDigits) < 12 {
				g.vDigits = append(g.vDigits, c)
			}
		}
	}
	g.run += n
	if g.run > MaxCellChars && !g.inSI {
		return g.tooLong()
	}
	if g.inCell {
		if g.cellChars += n; g.cellChars > MaxCellChars {
			return g.tooLong()
		}
	}
	if g.inSI {
		g.siChars += n // over the limit it is noted at </si>, for a cell to be named by
	}
	return nil
}

// feed scans the next bytes of the part: the scanner's bounds turned into file problems.
func (g *xmlGuard) feed(b []byte) error {
	g.sc.Handler = g
	err := g.sc.Feed(b)
	var deep *xmlscan.TooDeepError
	switch {
	case errors.As(err, &deep):
		return &FileError{Code: "too_deep", Args: []string{g.part, i18n.Number(int64(deep.Max))}}
	case errors.Is(err, xmlscan.ErrTagTooLong):
		return &FileError{Code: "unreadable"}
	}
	return err
}

// Text counts character data: the scanner's Handler.
func (g *xmlGuard) Text(b []byte) error { return g.chars(b) }

func (g *xmlGuard) rowLimit() int {
	if g.maxRows > 0 {
		return g.maxRows
	}
	return MaxSheetRows
}

// Element acts on a tag just read: the scanner's Handler. A tag ends the text run.
func (g *xmlGuard) Element(tag xmlscan.Tag) error {
	g.run, g.entity = 0, 0
	t, closing, selfClosing := tag.Raw, tag.Closing, tag.SelfClosing
	if closing {
		t = t[1:]
	}
	name := tag.Name()
	switch {
	case g.sheet && string(name) == "row" && !closing:
		if g.rows++; g.rows > g.rowLimit() {
			return &FileError{Code: "too_many_rows", Args: []string{i18n.Number(int64(g.rowLimit()))}}
		}
	case g.sheet && string(name) == "c" && !closing:
		// Kept as bytes in a reused buffer: a sheet has millions of cells.
		g.cellRef = append(g.cellRef[:0], attr(t, "r")...)
		g.cellShared, g.cellChars = string(attr(t, "t")) == "s", 0
		g.inCell = !selfClosing
	case g.sheet && string(name) == "c" && closing:
		if g.cellShared && len(g.bigItems) > 0 {
			if n, err := strconv.Atoi(string(g.vDigits)); err == nil && g.bigItems[n] {
				return g.tooLong()
			}
		}
		g.inCell, g.cellShared, g.vDigits = false, false, g.vDigits[:0]
	case g.sheet && string(name) == "v":
		g.inV = g.inCell && !closing && !selfClosing
	case g.sst && string(name) == "si" && !closing:
		if g.items++; g.maxItems > 0 && g.items > g.maxItems {
			return &FileError{Code: "too_many_strings", Args: []string{i18n.Number(int64(g.maxItems))}}
		}
		g.inSI, g.siChars = !selfClosing, 0
	case g.sst && string(name) == "si" && closing:
		if g.siChars > MaxCellChars {
			if g.bigItems == nil {
				g.bigItems = map[int]bool{}
			}
			if len(g.bigItems) < 64 {
				g.bigItems[g.items-1] = true
			}
		}
		g.inSI = false
	}
	return nil
}

// attr is the value of attribute name in a tag's first bytes (a part of tag), or nil.
func attr(tag []byte, name string) []byte {
	i := 0
	for i < len(tag) {
		// The next attribute name.
		for i < len(tag) && !isNameStart(tag[i]) {
			i++
		}
		start := i
		for i < len(tag) && tag[i] != '=' && tag[i] != ' ' && tag[i] != '\t' && tag[i] != '\n' && tag[i] != '\r' && tag[i] != '>' && tag[i] != '/' {
			i++
		}
		key := tag[start:i]
		for i < len(tag) && (tag[i] == ' ' || tag[i] == '\t' || tag[i] == '\n' || tag[i] == '\r') {
			i++
		}
		if i >= len(tag) || tag[i] != '=' {
			continue
		}
		i++
		for i < len(tag) && (tag[i] == ' ' || tag[i] == '\t' || tag[i] == '\n' || tag[i] == '\r') {
			i++
		}
		if i >= len(tag) || (tag[i] != '"' && tag[i] != '\'') {
			continue
		}
		q := tag[i]
		i++
		vs := i
		for i < len(tag) && tag[i] != q {
			i++
		}
		if string(key) == name && start > 0 {
			return tag[vs:min(i, len(tag))]
		}
		i++
	}
	return nil
}

func isNameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}
