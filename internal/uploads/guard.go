package uploads

import (
	"archive/zip"
	"bytes"
	"io"
	"strconv"
	"strings"

	"github.com/sekolah/portal/internal/i18n"
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
	// maxTagBytes bounds one tag, comment or processing instruction. The longest in a real
	// workbook (a worksheet's namespaces, a long list of validated ranges) is a few KB;
	// excelize's XML decoder holds a whole one in memory.
	maxTagBytes = 1 << 20
)

// guardWorkbook refuses, as a *FileError, a workbook that would cost too much to open or
// read, before excelize opens it: it reads the zip's directory (the sizes every part
// declares; Go's zip reader refuses a part that inflates past what it declared) and
// streams every XML part once through a small scanner that holds nothing of it but a few
// counters. Refused: a total unzipped size over lim.UnzipSize; parts excelize holds in
// memory over lim.InMemory; a shared-string table of more than lim.MaxSharedStrings
// strings; any cell or text longer than MaxCellChars (named by its cell when it is in
// one); more rows than Excel allows; any tag over maxTagBytes.
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
		case strings.HasSuffix(name, ".xml") || strings.HasSuffix(name, ".rels") || strings.HasSuffix(name, ".vml"):
			parts = append(parts, f)
		}
	}
	if lim.InMemory > 0 && inMemory > uint64(lim.InMemory) {
		return &FileError{Code: "too_big_parts", Args: []string{mb(int64(inMemory)), mb(lim.InMemory)}}
	}
	// The shared strings first: a too long one is named by the first cell that uses it.
	var big map[int]bool
	if sst != nil {
		g := &xmlGuard{sst: true, maxItems: lim.MaxSharedStrings}
		if err := g.scanPart(sst); err != nil {
			return err
		}
		big = g.bigItems
	}
	for _, f := range parts {
		g := &xmlGuard{sheet: strings.HasPrefix(strings.ToLower(f.Name), "xl/worksheets/"), bigItems: big}
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

// Scanner states.
const (
	stText      = iota // character data
	stOpen             // just after '<'
	stTag              // inside a start or end tag
	stQuote            // inside a quoted attribute value
	stComment          // <!-- ... -->
	stCData            // <![CDATA[ ... ]]>
	stPI               // <? ... ?>
	stDirective        // <!DOCTYPE ...> and the like
	stBang             // just after "<!": deciding which
)

// xmlGuard streams one XML part and keeps only counters: the characters of the current
// text run, of the current cell or shared string, the bytes of the current tag.
type xmlGuard struct {
	sheet bool // a worksheet: cells and rows
	sst   bool // the shared-string table: its items

	state    int
	quote    byte
	run      int    // characters of the current text run
	entity   int    // > 0 inside an entity reference (&amp;): bytes so far
	tagLen   int    // bytes of the current tag (or comment, ...)
	tag      []byte // its first bytes, for the element's name and attributes
	prev     byte   // the tag's byte before the current one ('/' before '>': self-closing)
	endMatch int    // how much of an end marker ("-->", "]]>", "?>") was seen
	bang     []byte // the bytes after "<!" while deciding
	depth    int    // nesting of '<' inside a directive

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
	for {
		n, rerr := rc.Read(buf)
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

func (g *xmlGuard) feed(b []byte) error {
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch g.state {
		case stText:
			j := bytes.IndexByte(b[i:], '<')
			if j < 0 {
				return g.chars(b[i:])
			}
			if err := g.chars(b[i : i+j]); err != nil {
				return err
			}
			i += j
			g.run, g.entity, g.state = 0, 0, stOpen
		case stOpen:
			switch c {
			case '!':
				g.state, g.bang = stBang, g.bang[:0]
			case '?':
				g.state, g.tagLen, g.endMatch = stPI, 2, 0
			default:
				g.state, g.tagLen, g.tag, g.prev = stTag, 2, append(g.tag[:0], c), c
				if c == '>' { // "<>": not XML; excelize will say so
					g.state = stText
				}
			}
		case stBang:
			g.bang = append(g.bang, c)
			switch {
			case bytes.Equal(g.bang, []byte("--")):
				g.state, g.tagLen, g.endMatch = stComment, 4, 0
			case bytes.Equal(g.bang, []byte("[CDATA[")):
				g.state, g.endMatch = stCData, 0
			case !bytes.HasPrefix([]byte("--"), g.bang) && !bytes.HasPrefix([]byte("[CDATA["), g.bang):
				g.state, g.tagLen, g.depth, g.quote = stDirective, 2+len(g.bang), 0, 0
				if c == '>' {
					g.state = stText
				}
			}
		case stTag, stQuote:
			if g.tagLen++; g.tagLen > maxTagBytes {
				return &FileError{Code: "unreadable"}
			}
			if len(g.tag) < 256 {
				g.tag = append(g.tag, c)
			}
			switch {
			case g.state == stQuote:
				if c == g.quote {
					g.state = stTag
				}
			case c == '"' || c == '\'':
				g.state, g.quote = stQuote, c
			case c == '>':
				g.state = stText
				if err := g.element(g.prev == '/'); err != nil {
					return err
				}
			}
			g.prev = c
		case stComment, stPI:
			if g.tagLen++; g.tagLen > maxTagBytes {
				return &FileError{Code: "unreadable"}
			}
			end := "-->"
			if g.state == stPI {
				end = "?>"
			}
			g.endMatch = advance(g.endMatch, end, c)
			if g.endMatch == len(end) {
				g.state = stText
			}
		case stCData:
			// Character data like any other: counted, a byte at a time (rare in workbooks).
			g.endMatch = advance(g.endMatch, "]]>", c)
			if g.endMatch == 3 {
				g.state = stText
				continue
			}
			if g.endMatch == 0 {
				if err := g.chars(b[i : i+1]); err != nil {
					return err
				}
			}
		case stDirective:
			if g.tagLen++; g.tagLen > maxTagBytes {
				return &FileError{Code: "unreadable"}
			}
			switch {
			case g.quote != 0:
				if c == g.quote {
					g.quote = 0
				}
			case c == '"' || c == '\'':
				g.quote = c
			case c == '<':
				g.depth++
			case c == '>' && g.depth > 0:
				g.depth--
			case c == '>':
				g.state = stText
			}
		}
	}
	return nil
}

func (g *xmlGuard) rowLimit() int {
	if g.maxRows > 0 {
		return g.maxRows
	}
	return MaxSheetRows
}

// advance moves the match of an end marker over c.
func advance(matched int, marker string, c byte) int {
	switch {
	case c == marker[matched]:
		return matched + 1
	case c == marker[0]:
		return 1
	}
	return 0
}

// element acts on a tag just read (g.tag holds its first bytes, without the '<').
func (g *xmlGuard) element(selfClosing bool) error {
	t := g.tag
	closing := len(t) > 0 && t[0] == '/'
	if closing {
		t = t[1:]
	}
	name := t
	if k := bytes.IndexAny(name, " \t\r\n/>"); k >= 0 {
		name = name[:k]
	}
	if k := bytes.IndexByte(name, ':'); k >= 0 {
		name = name[k+1:] // a namespace prefix (x:c)
	}
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
