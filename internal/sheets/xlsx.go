package sheets

import (
	"encoding/xml"
	"io"
	"path"
	"strconv"
	"strings"
	"time"
)

// Content types of the zip formats: what the main part of an OOXML package is, and the
// mimetypes of OpenDocument.
const (
	odsMime = "application/vnd.oasis.opendocument.spreadsheet"
	odfMime = "application/vnd.oasis.opendocument."
)

// openZipBook tells an .xlsx from an .ods (and from other documents in a zip) and opens it.
func openZipBook(b *Book, r io.ReaderAt, size int64) error {
	z, err := openZip(r, size, XLSX, &b.lim)
	if err != nil {
		return err
	}
	if z.has("mimetype") {
		z.format = ODS
		mime, err := z.readSmall("mimetype", 256)
		if err != nil {
			return err
		}
		m := strings.TrimSpace(string(mime))
		switch {
		case strings.HasPrefix(m, odsMime):
			return openODS(b, z)
		case strings.HasPrefix(m, odfMime+"text"):
			return &Error{Reason: OtherDocument, Part: "odt"}
		case strings.HasPrefix(m, odfMime+"presentation"):
			return &Error{Reason: OtherDocument, Part: "odp"}
		}
		return &Error{Reason: NotSpreadsheet, Detail: m}
	}
	if !z.has("[Content_Types].xml") {
		return &Error{Reason: NotSpreadsheet, Detail: "zip"}
	}
	main, other := "", ""
	err = z.scanXML("[Content_Types].xml", func(t *tagView) error {
		if t.closing || t.local() != "Override" {
			return nil
		}
		ct := t.attr("ContentType")
		switch {
		case strings.Contains(ct, "spreadsheetml.sheet.main+xml"), strings.Contains(ct, "spreadsheetml.template.main+xml"),
			strings.Contains(ct, "ms-excel.sheet.macroEnabled.main+xml"), strings.Contains(ct, "ms-excel.template.macroEnabled.main+xml"),
			strings.Contains(ct, "ms-excel.addin.macroEnabled.main+xml"):
			main = strings.TrimPrefix(t.attr("PartName"), "/")
		case strings.Contains(ct, "ms-excel.sheet.binary.macroEnabled.main"):
			other = "xlsb"
		case strings.Contains(ct, "wordprocessingml.document.main"):
			other = "docx"
		case strings.Contains(ct, "presentationml.presentation.main"):
			other = "pptx"
		}
		return nil
	})
	if err != nil {
		return err
	}
	if main == "" && z.has("xl/workbook.xml") {
		main = "xl/workbook.xml"
	}
	switch {
	case main != "":
		return openXLSX(b, z, main)
	case other != "":
		return &Error{Reason: OtherDocument, Part: other}
	}
	return &Error{Reason: NotSpreadsheet, Detail: "zip"}
}

// xlsxBook is an open .xlsx.
type xlsxBook struct {
	z        *zipBook
	lim      *Limits
	date1904 bool
	parts    []string // each sheet's worksheet part
	sstPart  string
	sst      []string
	sstRead  bool
	fmtCodes map[int]string // custom number formats by id
	xfFmt    []int          // each cell format's number format id
	formats  []*numFormat   // parsed, by cell format, on first use
}

func openXLSX(b *Book, z *zipBook, main string) error {
	b.Format = XLSX
	x := &xlsxBook{z: z, lim: &b.lim, fmtCodes: map[int]string{}}
	dir := path.Dir(main)
	rels := map[string]string{}
	relTypes := map[string]string{}
	stylesPart := ""
	relsPart := path.Join(dir, "_rels", path.Base(main)+".rels")
	if z.has(relsPart) {
		err := z.scanXML(relsPart, func(t *tagView) error {
			if t.closing || t.local() != "Relationship" {
				return nil
			}
			target := t.attr("Target")
			if strings.EqualFold(t.attr("TargetMode"), "External") {
				return nil
			}
			p := path.Join(dir, target)
			if strings.HasPrefix(target, "/") {
				p = path.Clean(strings.TrimPrefix(target, "/"))
			}
			id, typ := t.attr("Id"), t.attr("Type")
			rels[id], relTypes[id] = p, typ
			switch {
			case strings.HasSuffix(typ, "/styles"):
				stylesPart = p
			case strings.HasSuffix(typ, "/sharedStrings"):
				x.sstPart = p
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	type entry struct {
		name, state, part string
		worksheet         bool
	}
	var entries []entry
	active := 0
	sawView := false
	err := z.scanXML(main, func(t *tagView) error {
		if t.closing {
			return nil
		}
		switch t.local() {
		case "workbookPr":
			v := t.attr("date1904")
			x.date1904 = v == "1" || v == "true"
		case "workbookView":
			if !sawView {
				sawView = true
				if n, err := strconv.Atoi(t.attr("activeTab")); err == nil && n >= 0 {
					active = n
				}
			}
		case "sheet":
			if len(entries) >= b.lim.MaxSheets {
				return tooBig(XLSX, BoundSheets, int64(b.lim.MaxSheets), main)
			}
			id := prefixedIDAttr(t.raw)
			p, typ := rels[id], relTypes[id]
			ws := p != "" && !strings.Contains(typ, "chartsheet") && !strings.Contains(typ, "macrosheet") &&
				!strings.Contains(typ, "dialogsheet") && !strings.Contains(p, "chartsheets/")
			entries = append(entries, entry{name: t.attr("name"), state: t.attr("state"), part: p, worksheet: ws})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i, e := range entries {
		if !e.worksheet {
			continue
		}
		info := SheetInfo{Index: len(b.Sheets), Name: e.name, Active: i == active}
		switch e.state {
		case "hidden":
			info.Visibility = Hidden
		case "veryHidden":
			info.Visibility = VeryHidden
		}
		b.Sheets = append(b.Sheets, info)
		x.parts = append(x.parts, e.part)
	}
	if len(b.Sheets) == 0 {
		return &Error{Format: XLSX, Reason: NoSheet}
	}
	if stylesPart != "" && z.has(stylesPart) {
		if err := x.readStyles(stylesPart); err != nil {
			return err
		}
	}
	b.Date1904 = x.date1904
	b.impl = x
	return nil
}

// prefixedIDAttr is the value of a namespaced id attribute (r:id, whatever the prefix).
func prefixedIDAttr(tag []byte) string {
	if v, ok := rawAttr(tag, "r:id"); ok {
		return unescapeXML(v)
	}
	// Another prefix for the relationships' namespace.
	s := string(tag)
	for i := 0; i+4 <= len(s); i++ {
		if s[i] == ':' && strings.HasPrefix(s[i:], ":id=") && i > 0 && s[i-1] != ' ' {
			j := strings.LastIndexAny(s[:i], " \t\r\n")
			if v, ok := rawAttr(tag, s[j+1:i]+":id"); ok {
				return unescapeXML(v)
			}
		}
	}
	return ""
}

// readStyles reads the custom number formats and each cell format's number format.
func (x *xlsxBook) readStyles(part string) error {
	inXfs := false
	return x.z.scanXML(part, func(t *tagView) error {
		switch t.local() {
		case "numFmt":
			if t.closing {
				return nil
			}
			if len(x.fmtCodes) >= x.lim.MaxStyles {
				return tooBig(XLSX, BoundStyles, int64(x.lim.MaxStyles), part)
			}
			if id, err := strconv.Atoi(t.attr("numFmtId")); err == nil {
				x.fmtCodes[id] = t.attr("formatCode")
			}
		case "cellXfs":
			inXfs = !t.closing && !t.selfClosing
		case "xf":
			if !inXfs || t.closing {
				return nil
			}
			if len(x.xfFmt) >= x.lim.MaxStyles {
				return tooBig(XLSX, BoundStyles, int64(x.lim.MaxStyles), part)
			}
			id, _ := strconv.Atoi(t.attr("numFmtId"))
			x.xfFmt = append(x.xfFmt, id)
		}
		return nil
	})
}

// format is the parsed number format of a cell format index.
func (x *xlsxBook) format(xf int) *numFormat {
	if xf < 0 || xf >= len(x.xfFmt) {
		xf = -1
	}
	if x.formats == nil {
		x.formats = make([]*numFormat, len(x.xfFmt)+1)
	}
	if nf := x.formats[xf+1]; nf != nil {
		return nf
	}
	code := "General"
	if xf >= 0 {
		id := x.xfFmt[xf]
		if c, ok := x.fmtCodes[id]; ok {
			code = c
		} else {
			code = builtinFormat(id)
		}
	}
	nf := parseNumFormat(code)
	x.formats[xf+1] = nf
	return nf
}

// readSST reads the shared strings once, within their bounds. The part is scanned with
// the filter's hooks, never decoded: a decoder holds a text run whole, and a string far
// over a cell's length must be counted, kept only in part, and refused with the cell that
// uses it named (its first 4×MaxCellChars bytes are kept: Rows' check then finds it too
// long); what is kept of all strings together is bounded by MaxSharedChars.
func (x *xlsxBook) readSST() error {
	if x.sstRead {
		return nil
	}
	x.sstRead = true
	if x.sstPart == "" || !x.z.has(x.sstPart) {
		return nil
	}
	rc, err := x.z.open(x.sstPart)
	if err != nil {
		return err
	}
	defer rc.Close()
	var (
		total int64
		buf   []byte
		inSI  bool
		inT   bool
		skip  int // inside phonetic runs
	)
	keep := 4*x.lim.MaxCellChars + 4
	fl := newXMLFilter(rc, XLSX, x.sstPart, x.lim)
	fl.unboundedRuns = true
	fl.textHook = func(b []byte) {
		if inT && skip == 0 && len(buf) < keep {
			buf = append(buf, b[:min(len(b), keep-len(buf))]...)
		}
	}
	fl.hook = func(t *tagView) error {
		switch name := t.local(); {
		case name == "si" && !t.closing:
			if len(x.sst) >= x.lim.MaxSharedStrings {
				return tooBig(XLSX, BoundSharedStrings, int64(x.lim.MaxSharedStrings), x.sstPart)
			}
			inSI, buf = !t.selfClosing, buf[:0]
			if t.selfClosing {
				x.sst = append(x.sst, "")
			}
		case name == "si":
			s := decodeXString(unescapeXML(buf))
			if total += int64(len(s)); total > x.lim.MaxSharedChars {
				return tooBig(XLSX, BoundSharedChars, x.lim.MaxSharedChars, x.sstPart)
			}
			x.sst = append(x.sst, s)
			inSI, inT = false, false
		case name == "t":
			inT = inSI && !t.closing && !t.selfClosing
		case name == "rPh" && !t.closing && !t.selfClosing:
			skip++
		case name == "rPh" && t.closing:
			skip = max(skip-1, 0)
		}
		return nil
	}
	return fl.scan()
}

// decodeXString decodes OOXML's _xHHHH_ escapes (Excel writes a carriage return as
// _x000D_).
func decodeXString(s string) string {
	if !strings.Contains(s, "_x") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '_' && i+6 < len(s) && s[i+1] == 'x' && s[i+6] == '_' {
			if n, err := strconv.ParseUint(s[i+2:i+6], 16, 16); err == nil {
				b.WriteRune(rune(n))
				i += 6
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func (x *xlsxBook) close() error { return nil }

func (x *xlsxBook) rows(sheet int) (rowSource, error) {
	part := x.parts[sheet]
	if !x.z.has(part) {
		return nil, damaged(XLSX, part, "missing worksheet", nil)
	}
	if err := x.readSST(); err != nil {
		return nil, err
	}
	s := &xlsxRows{b: x, part: part}
	// The merged ranges are after the cells: a first pass collects them, and the hidden
	// columns, without decoding the cells. It passes every cell, so it is the one to name
	// a cell too long.
	inCell := ""
	err := x.z.scanXML(part, func(t *tagView) error {
		if t.local() == "c" {
			inCell = ""
			if !t.closing && !t.selfClosing {
				inCell = t.attr("r")
			}
		}
		if t.closing {
			return nil
		}
		switch t.local() {
		case "mergeCell":
			if g, ok := parseRange(t.attr("ref")); ok {
				if len(s.merges) >= x.lim.MaxMerges {
					return tooBig(XLSX, BoundMerges, int64(x.lim.MaxMerges), part)
				}
				s.merges = append(s.merges, g)
			}
		case "col":
			if h := t.attr("hidden"); h == "1" || h == "true" {
				lo, err1 := strconv.Atoi(t.attr("min"))
				hi, err2 := strconv.Atoi(t.attr("max"))
				if err1 == nil && err2 == nil && lo >= 1 && hi >= lo {
					s.hiddenCols = append(s.hiddenCols, [2]int{lo - 1, min(hi, ExcelMaxCols) - 1})
				}
			}
		}
		return nil
	})
	if e, ok := err.(*Error); ok && e.Cell == "" && e.Bound == BoundCellChars {
		e.Cell = inCell
	}
	if err != nil {
		return nil, err
	}
	p, err := x.z.openXML(part, nil)
	if err != nil {
		return nil, err
	}
	s.p = p
	return s, nil
}

// xlsxRows streams a worksheet's <sheetData>.
type xlsxRows struct {
	b          *xlsxBook
	part       string
	p          *xmlPart
	merges     []Range
	hiddenCols [][2]int
	rowNum     int
	done       bool

	// The cell being read.
	inCell  bool
	ref     string
	col     int
	style   int
	typ     string
	formula bool
	inV     bool
	inIS    bool
	inT     bool
	skip    int
	val     []byte
}

func (s *xlsxRows) merged() []Range { return s.merges }

func (s *xlsxRows) colHidden(col int) bool {
	for _, h := range s.hiddenCols {
		if col >= h[0] && col <= h[1] {
			return true
		}
	}
	return false
}

func (s *xlsxRows) close() error {
	s.done = true
	if s.p != nil {
		err := s.p.close()
		s.p = nil
		return err
	}
	return nil
}

func (s *xlsxRows) next(row *Row) (bool, error) {
	if s.done {
		return false, nil
	}
	inRow := false
	lastCol := -1
	for {
		tok, err := s.p.token()
		if err != nil {
			if e, ok := err.(*Error); ok && s.inCell && e.Cell == "" {
				e.Cell = CellRef(row.Number, s.col)
			}
			return false, err
		}
		if tok == nil {
			s.done = true
			if inRow && len(row.Cells) > 0 {
				return true, nil
			}
			return false, nil
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "row":
				inRow, lastCol = true, -1
				s.rowNum++
				if r, err := strconv.Atoi(attrLocal(t.Attr, "r")); err == nil && r > 0 {
					s.rowNum = r
				}
				row.Number = s.rowNum
				h := attrLocal(t.Attr, "hidden")
				row.Hidden = h == "1" || h == "true"
			case "c":
				if !inRow {
					continue
				}
				s.inCell, s.formula, s.val = true, false, s.val[:0]
				s.ref = attrLocal(t.Attr, "r")
				s.col = lastCol + 1
				if s.ref != "" {
					r, c, ok := parseRef(s.ref)
					if !ok || r != row.Number {
						return false, &Error{Format: XLSX, Reason: Damaged, Part: s.part, Cell: s.ref, Detail: "cell reference"}
					}
					s.col = c
				}
				if s.col <= lastCol {
					return false, &Error{Format: XLSX, Reason: Damaged, Part: s.part, Cell: CellRef(row.Number, s.col), Detail: "cells out of order"}
				}
				if s.col >= s.b.lim.MaxCols {
					e := tooBig(XLSX, BoundCols, int64(s.b.lim.MaxCols), s.part)
					e.Cell = CellRef(row.Number, s.col)
					return false, e
				}
				lastCol = s.col
				s.style = -1
				if v, err := strconv.Atoi(attrLocal(t.Attr, "s")); err == nil {
					s.style = v
				}
				s.typ = attrLocal(t.Attr, "t")
			case "v":
				s.inV = s.inCell
			case "f":
				s.formula = s.inCell
			case "is":
				s.inIS = s.inCell
			case "t":
				s.inT = s.inIS && s.skip == 0
			case "rPh":
				s.skip++
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "row":
				if inRow {
					if len(row.Cells) > 0 {
						return true, nil
					}
					inRow = false
				}
			case "c":
				if s.inCell {
					s.inCell = false
					if err := s.cell(row); err != nil {
						return false, err
					}
				}
			case "v":
				s.inV = false
			case "is":
				s.inIS = false
			case "t":
				s.inT = false
			case "rPh":
				s.skip = max(s.skip-1, 0)
			case "sheetData":
				s.done = true
				return false, nil
			}
		case xml.CharData:
			if s.inV || s.inT {
				if len(s.val)+len(t) > 4*s.b.lim.MaxCellChars+4 {
					e := tooBig(XLSX, BoundCellChars, int64(s.b.lim.MaxCellChars), s.part)
					e.Cell = CellRef(row.Number, s.col)
					return false, e
				}
				s.val = append(s.val, t...)
			}
		}
	}
}

// cell appends the cell just read, unless it is empty.
func (s *xlsxRows) cell(row *Row) error {
	if len(s.val) == 0 {
		return nil
	}
	nf := s.b.format(s.style)
	c := Cell{Row: row.Number, Col: s.col, Format: nf.code, Formula: s.formula}
	switch s.typ {
	case "s":
		i, err := strconv.Atoi(strings.TrimSpace(string(s.val)))
		if err != nil || i < 0 || i >= len(s.b.sst) {
			return &Error{Format: XLSX, Reason: Damaged, Part: s.part, Cell: CellRef(row.Number, s.col), Detail: "shared string index"}
		}
		if s.b.sst[i] == "" {
			return nil
		}
		c.Kind, c.Raw = KindText, s.b.sst[i]
		c.Text = nf.formatText(c.Raw)
	case "inlineStr", "str":
		c.Kind, c.Raw = KindText, decodeXString(string(s.val))
		c.Text = nf.formatText(c.Raw)
	case "b":
		c.Kind = KindBool
		c.Raw = "FALSE"
		if v := strings.TrimSpace(string(s.val)); v == "1" || v == "true" {
			c.Raw, c.Number = "TRUE", 1
		}
		c.Text = c.Raw
	case "e":
		c.Kind = KindError
		c.Raw = strings.TrimSpace(string(s.val))
		c.Text = c.Raw
	case "d":
		raw := strings.TrimSpace(string(s.val))
		t, err := parseISOTime(raw)
		if err != nil {
			c.Kind, c.Raw, c.Text = KindText, raw, raw
			break
		}
		s.number(&c, nf, timeSerial(t, s.b.date1904))
	default:
		raw := string(s.val)
		v, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
		if err != nil {
			c.Kind, c.Raw, c.Text = KindText, raw, raw
			break
		}
		s.number(&c, nf, v)
		c.Raw = raw
	}
	row.Cells = append(row.Cells, c)
	return nil
}

// number fills a numeric cell: a date or a time when its format shows one.
func (s *xlsxRows) number(c *Cell, nf *numFormat, v float64) {
	fillNumber(c, nf, v, s.b.date1904)
}

// fillNumber fills a numeric cell of any workbook format: kind from the format, text
// through it, raw in the shortest decimal form.
func fillNumber(c *Cell, nf *numFormat, v float64, date1904 bool) {
	c.Number = v
	c.Raw = strconv.FormatFloat(v, 'f', -1, 64)
	c.Kind = KindNumber
	if nf.kind != KindNumber && !nf.textOnly {
		if t, ok := serialTime(v, date1904, 3); ok {
			c.Kind, c.Time = nf.kind, t
		}
	}
	c.Text = nf.formatNumber(v, date1904)
}

// parseISOTime reads the dates of t="d" cells and of .ods (2027-08-10, 2027-08-10T13:00:00).
func parseISOTime(s string) (time.Time, error) {
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05Z07:00", "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			y, m, d := t.Date()
			h, mi, sec := t.Clock()
			return time.Date(y, m, d, h, mi, sec, t.Nanosecond(), time.UTC), nil
		}
	}
	return time.Time{}, strconv.ErrSyntax
}
