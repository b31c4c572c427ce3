package sheets

import (
	"bytes"
	"encoding/xml"
	"strconv"
	"strings"
	"time"
)

// odsBook is an open .ods: its sheets found by a first scan of content.xml, which also
// reads the automatic styles (the tables' visibility, the cells' number formats).
type odsBook struct {
	z      *zipBook
	lim    *Limits
	styles *odsStyles
}

// odsStyles are what the styles say about a table or a cell.
type odsStyles struct {
	hiddenTables map[string]bool
	cellData     map[string]string // a cell style's data style
	cellParent   map[string]string // a cell style's parent style
	codes        map[string]string // a data style's format code
	maps         map[string]string // a data style applied to values ≥ 0 instead (style:map)
	formats      map[string]*numFormat
	count        int
}

// odsStyleScan reads styles as tags go by (a hook of an xmlFilter): data styles are
// turned into format codes as their elements come, the text of number:text included.
type odsStyleScan struct {
	st        *odsStyles
	lim       *Limits
	part      string
	cur       string // the style:style being read
	curFamily string
	data      string // the data style being read
	kind      string
	code      strings.Builder
	indo      bool
	inText    bool
	text      []byte
}

func newODSStyles() *odsStyles {
	return &odsStyles{hiddenTables: map[string]bool{}, cellData: map[string]string{}, cellParent: map[string]string{},
		codes: map[string]string{}, maps: map[string]string{}, formats: map[string]*numFormat{}}
}

func (s *odsStyleScan) onText(b []byte) {
	if s.inText && len(s.text) < 256 {
		s.text = append(s.text, b...)
	}
}

func (s *odsStyleScan) onTag(t *tagView) error {
	name := string(t.name)
	switch {
	case name == "style:style":
		if t.closing {
			s.cur = ""
			return nil
		}
		if s.st.count++; s.st.count > s.lim.MaxStyles {
			return tooBig(ODS, BoundStyles, int64(s.lim.MaxStyles), s.part)
		}
		n := t.attr("style:name")
		s.curFamily = t.attr("style:family")
		if !t.selfClosing {
			s.cur = n
		}
		if s.curFamily == "table-cell" {
			if d := t.attr("style:data-style-name"); d != "" {
				s.st.cellData[n] = d
			}
			if p := t.attr("style:parent-style-name"); p != "" {
				s.st.cellParent[n] = p
			}
		}
	case name == "style:table-properties":
		if s.cur != "" && s.curFamily == "table" && t.attr("table:display") == "false" {
			s.st.hiddenTables[s.cur] = true
		}
	case strings.HasPrefix(name, "number:") && strings.HasSuffix(name, "-style"):
		if t.closing {
			if s.data != "" {
				s.st.codes[s.data] = s.finishCode()
			}
			s.data = ""
			return nil
		}
		if s.st.count++; s.st.count > s.lim.MaxStyles {
			return tooBig(ODS, BoundStyles, int64(s.lim.MaxStyles), s.part)
		}
		s.data, s.kind = t.attr("style:name"), strings.TrimSuffix(strings.TrimPrefix(name, "number:"), "-style")
		s.code.Reset()
		s.indo = t.attr("number:language") == "id"
		if t.selfClosing {
			s.st.codes[s.data] = s.finishCode()
			s.data = ""
		}
	case s.data != "":
		s.dataPart(name, t)
	}
	return nil
}

func (s *odsStyleScan) finishCode() string {
	code := s.code.String()
	switch {
	case s.kind == "boolean":
		return "BOOLEAN"
	case code == "":
		return "General"
	case s.indo && (s.kind == "date" || s.kind == "time"):
		return "[$-421]" + code
	}
	return code
}

// dataPart adds an element of a data style to its format code.
func (s *odsStyleScan) dataPart(name string, t *tagView) {
	long := t.attr("number:style") == "long"
	w := &s.code
	switch name {
	case "number:number", "number:scientific-number":
		if t.closing {
			return
		}
		dp, _ := strconv.Atoi(t.attr("number:decimal-places"))
		mdp := dp
		if v, err := strconv.Atoi(t.attr("number:min-decimal-places")); err == nil {
			mdp = min(v, dp)
		}
		mi := 1
		if v, err := strconv.Atoi(t.attr("number:min-integer-digits")); err == nil {
			mi = v
		}
		intPart := strings.Repeat("0", min(mi, 64))
		if intPart == "" {
			intPart = "#"
		}
		if t.attr("number:grouping") == "true" {
			// #,##0 for one digit at least, #,#00 for two, 0,000 for four.
			intPart = strings.Repeat("#", max(0, 4-len(intPart))) + intPart
			intPart = intPart[:len(intPart)-3] + "," + intPart[len(intPart)-3:]
		}
		w.WriteString(intPart)
		if dp > 0 {
			w.WriteString("." + strings.Repeat("0", min(mdp, 30)) + strings.Repeat("#", min(dp-mdp, 30)))
		}
		if name == "number:scientific-number" {
			ed, _ := strconv.Atoi(t.attr("number:min-exponent-digits"))
			w.WriteString("E+" + strings.Repeat("0", max(min(ed, 4), 1)))
		}
	case "number:fraction":
		if !t.closing {
			w.WriteString("# ?/?")
		}
	case "number:text-content":
		if !t.closing {
			w.WriteString("@")
		}
	case "number:text", "number:currency-symbol":
		switch {
		case !t.closing && !t.selfClosing:
			s.inText, s.text = true, s.text[:0]
		case t.closing:
			s.inText = false
			lit := unescapeXML(s.text)
			switch {
			case s.kind == "percentage" && strings.TrimSpace(lit) == "%":
				w.WriteString("%")
			case lit == "/" || lit == "-" || lit == "." || lit == ":" || lit == " " || lit == ",":
				if s.kind == "date" || s.kind == "time" {
					w.WriteString(lit)
				} else {
					w.WriteString(`"` + lit + `"`)
				}
			case lit != "":
				w.WriteString(`"` + strings.ReplaceAll(lit, `"`, "") + `"`)
			}
		}
	case "number:day":
		if !t.closing {
			w.WriteString(map[bool]string{true: "dd", false: "d"}[long])
		}
	case "number:month":
		if t.closing {
			return
		}
		switch {
		case t.attr("number:textual") == "true" && long:
			w.WriteString("mmmm")
		case t.attr("number:textual") == "true":
			w.WriteString("mmm")
		case long:
			w.WriteString("mm")
		default:
			w.WriteString("m")
		}
	case "number:year":
		if !t.closing {
			w.WriteString(map[bool]string{true: "yyyy", false: "yy"}[long])
		}
	case "number:day-of-week":
		if !t.closing {
			w.WriteString(map[bool]string{true: "dddd", false: "ddd"}[long])
		}
	case "number:hours":
		if !t.closing {
			h := map[bool]string{true: "hh", false: "h"}[long]
			if t.attr("number:truncate-on-overflow") == "false" {
				h = "[" + h + "]"
			}
			w.WriteString(h)
		}
	case "number:minutes":
		if !t.closing {
			w.WriteString(map[bool]string{true: "mm", false: "m"}[long])
		}
	case "number:seconds":
		if !t.closing {
			w.WriteString(map[bool]string{true: "ss", false: "s"}[long])
			if dp, _ := strconv.Atoi(t.attr("number:decimal-places")); dp > 0 {
				w.WriteString("." + strings.Repeat("0", min(dp, 9)))
			}
		}
	case "number:am-pm":
		if !t.closing {
			w.WriteString("AM/PM")
		}
	case "style:map":
		if !t.closing && strings.Contains(t.attr("style:condition"), ">=0") {
			s.st.maps[s.data] = t.attr("style:apply-style-name")
		}
	}
}

// code is the format code of a cell style: its data style's, or its parent's.
func (st *odsStyles) format(cellStyle string) *numFormat {
	if nf, ok := st.formats[cellStyle]; ok {
		return nf
	}
	data := ""
	for s, hops := cellStyle, 0; s != "" && hops < 8; hops++ {
		if d, ok := st.cellData[s]; ok {
			data = d
			break
		}
		s = st.cellParent[s]
	}
	code := "General"
	if c, ok := st.codes[data]; ok {
		code = c
		if pos, ok := st.maps[data]; ok {
			if pc, ok := st.codes[pos]; ok && !strings.Contains(pc, ";") {
				code = pc + ";" + c
			}
		}
	}
	nf := parseNumFormat(code)
	if len(st.formats) < 4096 {
		st.formats[cellStyle] = nf
	}
	return nf
}

func openODS(b *Book, z *zipBook) error {
	b.Format = ODS
	if z.has("META-INF/manifest.xml") {
		encrypted := false
		err := z.scanXML("META-INF/manifest.xml", func(t *tagView) error {
			if t.local() == "encryption-data" {
				encrypted = true
			}
			return nil
		})
		if err != nil {
			return err
		}
		if encrypted {
			return &Error{Format: ODS, Reason: Encrypted}
		}
	}
	if !z.has("content.xml") {
		return damaged(ODS, "content.xml", "missing part", nil)
	}
	o := &odsBook{z: z, lim: &b.lim, styles: newODSStyles()}
	if z.has("styles.xml") {
		sc := &odsStyleScan{st: o.styles, lim: &b.lim, part: "styles.xml"}
		if err := o.scanStyles("styles.xml", sc, nil); err != nil {
			return err
		}
	}
	// content.xml: its automatic styles, then the tables' names and styles.
	type table struct{ name, style string }
	var tables []table
	spreadsheetDepth := -1
	sc := &odsStyleScan{st: o.styles, lim: &b.lim, part: "content.xml"}
	// Where the scan is in the tables, to name a cell too long: rows and columns counted
	// with their repeats.
	var row, col, rowRep int
	inCell := ""
	err := o.scanStyles("content.xml", sc, func(t *tagView) error {
		switch string(t.name) {
		case "table:table-row":
			if !t.closing {
				col, rowRep = 0, max(atoiDefault(t.attr("table:number-rows-repeated"), 1), 1)
			}
			if t.closing || t.selfClosing {
				row += rowRep
			}
		case "table:table-cell", "table:covered-table-cell":
			rep := max(atoiDefault(t.attr("table:number-columns-repeated"), 1), 1)
			switch {
			case t.closing:
				col, inCell = col+rep, ""
			case t.selfClosing:
				col += rep
			default:
				inCell = CellRef(row+1, min(col, ExcelMaxCols))
			}
		}
		switch string(t.name) {
		case "office:spreadsheet":
			if !t.closing {
				spreadsheetDepth = t.depth
			}
		case "table:table":
			if !t.closing && spreadsheetDepth > 0 && t.depth == spreadsheetDepth+1 {
				if len(tables) >= b.lim.MaxSheets {
					return tooBig(ODS, BoundSheets, int64(b.lim.MaxSheets), "content.xml")
				}
				tables = append(tables, table{t.attr("table:name"), t.attr("table:style-name")})
				row, col = 0, 0
			}
		}
		return nil
	})
	if e, ok := err.(*Error); ok && e.Cell == "" && e.Bound == BoundCellChars {
		e.Cell = inCell
	}
	if err != nil {
		return err
	}
	if len(tables) == 0 {
		return &Error{Format: ODS, Reason: NoSheet}
	}
	active := ""
	if z.has("settings.xml") {
		if active, err = odsActiveTable(z); err != nil {
			return err
		}
	}
	for i, t := range tables {
		info := SheetInfo{Index: i, Name: t.name, Active: t.name == active}
		if o.styles.hiddenTables[t.style] {
			info.Visibility = Hidden
		}
		b.Sheets = append(b.Sheets, info)
	}
	if active == "" {
		b.Sheets[0].Active = true
	}
	b.impl = o
	return nil
}

// scanStyles streams a part through the style scan, and through more when given.
func (o *odsBook) scanStyles(part string, sc *odsStyleScan, more func(*tagView) error) error {
	rc, err := o.z.open(part)
	if err != nil {
		return err
	}
	defer rc.Close()
	fl := newXMLFilter(rc, ODS, part, o.lim)
	fl.textHook = sc.onText
	fl.hook = func(t *tagView) error {
		if err := sc.onTag(t); err != nil {
			return err
		}
		if more != nil {
			return more(t)
		}
		return nil
	}
	return fl.scan()
}

// odsActiveTable reads the name of the table the document opens on (settings.xml).
func odsActiveTable(z *zipBook) (string, error) {
	rc, err := z.open("settings.xml")
	if err != nil {
		return "", err
	}
	defer rc.Close()
	fl := newXMLFilter(rc, ODS, "settings.xml", z.lim)
	in, done := false, false
	var text []byte
	fl.textHook = func(b []byte) {
		if in && len(text) < 4096 {
			text = append(text, b...)
		}
	}
	fl.hook = func(t *tagView) error {
		if t.local() != "config-item" || done {
			return nil
		}
		switch {
		case t.closing && in:
			in, done = false, true
		case !t.closing && !t.selfClosing && t.attr("config:name") == "ActiveTable":
			in = true
		}
		return nil
	}
	if err := fl.scan(); err != nil {
		return "", err
	}
	return unescapeXML(text), nil
}

func (o *odsBook) close() error { return nil }

func (o *odsBook) rows(sheet int) (rowSource, error) {
	p, err := o.z.openXML("content.xml", nil)
	if err != nil {
		return nil, err
	}
	s := &odsRows{b: o, p: p, sheet: sheet}
	if err := s.seek(); err != nil {
		p.close()
		return nil, err
	}
	return s, nil
}

// odsRows streams one table of content.xml.
type odsRows struct {
	b       *odsBook
	p       *xmlPart
	sheet   int
	depth   int // element depth in content.xml
	tDepth  int // the table's depth
	done    bool
	rowNum  int
	merges  []Range
	hidden  [][2]int
	colNext int
	// The default cell styles of the columns (first column, last, style) and of the row.
	colStyles []colStyle
	rowStyle  string

	// A row repeated: handed out again with each next number.
	repeat   int
	repCells []Cell
	repHide  bool
}

func (s *odsRows) merged() []Range { return s.merges }

func (s *odsRows) colHidden(col int) bool {
	for _, h := range s.hidden {
		if col >= h[0] && col <= h[1] {
			return true
		}
	}
	return false
}

func (s *odsRows) close() error {
	s.done = true
	if s.p != nil {
		err := s.p.close()
		s.p = nil
		return err
	}
	return nil
}

// seek reads up to the start of the table.
func (s *odsRows) seek() error {
	n := -1
	spreadsheet := -1
	for {
		tok, err := s.p.token()
		if err != nil {
			return err
		}
		if tok == nil {
			return &Error{Format: ODS, Reason: NoSheet}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			s.depth++
			switch {
			case t.Name.Space == "office" && t.Name.Local == "spreadsheet":
				spreadsheet = s.depth
			case t.Name.Space == "table" && t.Name.Local == "table" && s.depth == spreadsheet+1 && spreadsheet > 0:
				if n++; n == s.sheet {
					s.tDepth = s.depth
					return nil
				}
			}
		case xml.EndElement:
			s.depth--
		}
	}
}

func boolAttr(attrs []xml.Attr, space, local string) bool {
	v, _ := attrOf(attrs, space, local)
	return v == "true"
}

func intAttr(attrs []xml.Attr, space, local string, def int) int {
	v, ok := attrOf(attrs, space, local)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return def
	}
	return n
}

// colStyle is the default cell style of columns first to last.
type colStyle struct {
	first, last int
	name        string
}

// odsCell is a cell being read.
type odsCell struct {
	attrs    []xml.Attr
	repeat   int
	text     []byte
	paras    int
	covered  bool
	skip     int // inside an annotation or a drawing: not the cell's text
	inP      bool
	startCol int
}

func (s *odsRows) next(row *Row) (bool, error) {
	lim := s.b.lim
	if s.repeat > 0 {
		s.repeat--
		s.rowNum++
		row.Number, row.Hidden = s.rowNum, s.repHide
		for _, c := range s.repCells {
			c.Row = s.rowNum
			row.Cells = append(row.Cells, c)
		}
		return true, nil
	}
	if s.done {
		return false, nil
	}
	var (
		inRow    bool
		rowRep   int
		cell     *odsCell
		col      int
		hideNext bool
	)
	for {
		tok, err := s.p.token()
		if err != nil {
			if e, ok := err.(*Error); ok && cell != nil && e.Cell == "" {
				e.Cell = CellRef(s.rowNum+1, cell.startCol)
			}
			return false, err
		}
		if tok == nil {
			s.done = true
			return false, nil
		}
		switch t := tok.(type) {
		case xml.StartElement:
			s.depth++
			if cell != nil {
				switch {
				case cell.skip > 0:
					cell.skip++
				case t.Name.Space == "office" && t.Name.Local == "annotation", t.Name.Space == "draw":
					cell.skip = 1
				case t.Name.Space == "text" && t.Name.Local == "p":
					if cell.paras > 0 {
						cell.text = append(cell.text, '\n')
					}
					cell.paras++
					cell.inP = true
				case t.Name.Space == "text" && t.Name.Local == "s":
					n := min(intAttr(t.Attr, "text", "c", 1), lim.MaxCellChars)
					cell.text = append(cell.text, bytes.Repeat([]byte{' '}, n)...)
				case t.Name.Space == "text" && t.Name.Local == "tab":
					cell.text = append(cell.text, '\t')
				case t.Name.Space == "text" && t.Name.Local == "line-break":
					cell.text = append(cell.text, '\n')
				}
				if len(cell.text) > 4*lim.MaxCellChars+4 {
					e := tooBig(ODS, BoundCellChars, int64(lim.MaxCellChars), "content.xml")
					e.Cell = CellRef(s.rowNum, col)
					return false, e
				}
				continue
			}
			switch {
			case t.Name.Space == "table" && t.Name.Local == "table-column":
				n := intAttr(t.Attr, "table", "number-columns-repeated", 1)
				if ds, _ := attrOf(t.Attr, "table", "default-cell-style-name"); ds != "" && ds != "Default" && s.colNext < lim.MaxCols && len(s.colStyles) < 4096 {
					s.colStyles = append(s.colStyles, colStyle{s.colNext, min(s.colNext+n, lim.MaxCols) - 1, ds})
				}
				if v, _ := attrOf(t.Attr, "table", "visibility"); v == "collapse" || v == "filter" {
					if s.colNext < lim.MaxCols {
						s.hidden = append(s.hidden, [2]int{s.colNext, min(s.colNext+n, lim.MaxCols) - 1})
					}
				}
				s.colNext = min(s.colNext+n, lim.MaxCols+1)
			case t.Name.Space == "table" && t.Name.Local == "table-row":
				inRow, col = true, 0
				rowRep = intAttr(t.Attr, "table", "number-rows-repeated", 1)
				v, _ := attrOf(t.Attr, "table", "visibility")
				hideNext = v == "collapse" || v == "filter"
				row.Number = s.rowNum + 1
				row.Hidden = hideNext
				s.rowStyle, _ = attrOf(t.Attr, "table", "default-cell-style-name")
			case inRow && t.Name.Space == "table" && (t.Name.Local == "table-cell" || t.Name.Local == "covered-table-cell"):
				attrs := make([]xml.Attr, len(t.Attr))
				copy(attrs, t.Attr)
				cell = &odsCell{attrs: attrs, repeat: intAttr(t.Attr, "table", "number-columns-repeated", 1),
					covered: t.Name.Local == "covered-table-cell", startCol: col}
			}
		case xml.EndElement:
			s.depth--
			if cell != nil {
				switch {
				case cell.skip > 0:
					cell.skip--
					continue
				case t.Name.Space == "text" && t.Name.Local == "p":
					cell.inP = false
					continue
				case t.Name.Space == "table" && (t.Name.Local == "table-cell" || t.Name.Local == "covered-table-cell"):
					var err error
					col, err = s.endCell(row, cell)
					if err != nil {
						return false, err
					}
					cell = nil
				}
				continue
			}
			switch {
			case t.Name.Space == "table" && t.Name.Local == "table-row":
				inRow = false
				if len(row.Cells) == 0 {
					// Empty rows, however many repeated, only move the row number on.
					s.rowNum = min(s.rowNum+rowRep, lim.MaxRows+1)
					row.Number = 0
					continue
				}
				s.rowNum++
				if rowRep > 1 {
					s.repeat = min(rowRep-1, lim.MaxRows)
					s.repCells = append(s.repCells[:0], row.Cells...)
					s.repHide = row.Hidden
				}
				return true, nil
			case s.depth < s.tDepth:
				s.done = true
				return false, nil
			}
		case xml.CharData:
			if cell != nil && cell.skip == 0 && cell.inP {
				if len(cell.text)+len(t) > 4*lim.MaxCellChars+4 {
					e := tooBig(ODS, BoundCellChars, int64(lim.MaxCellChars), "content.xml")
					e.Cell = CellRef(s.rowNum+1, col)
					return false, e
				}
				cell.text = append(cell.text, t...)
			}
		}
	}
}

// endCell adds the cell just read (as many times as it repeats) and returns the next
// column.
func (s *odsRows) endCell(row *Row, c *odsCell) (int, error) {
	lim := s.b.lim
	col := c.startCol
	rowNum := s.rowNum + 1
	if col >= lim.MaxCols {
		return col, nil
	}
	if !c.covered {
		cs := intAttr(c.attrs, "table", "number-columns-spanned", 1)
		rs := intAttr(c.attrs, "table", "number-rows-spanned", 1)
		if cs > 1 || rs > 1 {
			if len(s.merges) >= lim.MaxMerges {
				return 0, tooBig(ODS, BoundMerges, int64(lim.MaxMerges), "content.xml")
			}
			s.merges = append(s.merges, Range{FirstRow: rowNum, FirstCol: col,
				LastRow: min(rowNum+rs-1, lim.MaxRows), LastCol: min(col+cs-1, lim.MaxCols-1)})
		}
	}
	cell, ok := s.value(c, rowNum, col)
	if !ok {
		return col + c.repeat, nil
	}
	for i := 0; i < c.repeat; i++ {
		if col+i >= lim.MaxCols {
			e := tooBig(ODS, BoundCols, int64(lim.MaxCols), "content.xml")
			e.Cell = CellRef(rowNum, col+i)
			return 0, e
		}
		cell.Col = col + i
		row.Cells = append(row.Cells, cell)
	}
	return col + c.repeat, nil
}

// value reads a cell's value; false for an empty one.
func (s *odsRows) value(c *odsCell, rowNum, col int) (Cell, bool) {
	a := c.attrs
	text := string(c.text)
	style, ok := attrOf(a, "table", "style-name")
	if !ok {
		style = s.defaultStyle(col)
	}
	nf := s.b.styles.format(style)
	cell := Cell{Row: rowNum, Col: col, Text: text, Format: nf.code}
	_, cell.Formula = attrOf(a, "table", "formula")
	vt, _ := attrOf(a, "office", "value-type")
	if ext, _ := attrOf(a, "calcext", "value-type"); ext == "error" {
		vt = "error"
	}
	switch vt {
	case "float", "percentage", "currency":
		raw, _ := attrOf(a, "office", "value")
		v, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			cell.Kind, cell.Raw = KindText, text
			break
		}
		cell.Kind, cell.Number, cell.Raw = KindNumber, v, raw
		if nf.kind != KindNumber && !nf.textOnly {
			if t, ok := serialTime(v, false, 3); ok {
				cell.Kind, cell.Time = nf.kind, t
			}
		}
	case "date":
		raw, _ := attrOf(a, "office", "date-value")
		t, err := parseISOTime(raw)
		if err != nil {
			cell.Kind, cell.Raw = KindText, text
			break
		}
		v := timeSerial(t, false)
		cell.Kind, cell.Time, cell.Number = KindDate, t, v
		cell.Raw = strconv.FormatFloat(v, 'f', -1, 64)
	case "time":
		raw, _ := attrOf(a, "office", "time-value")
		d, ok := parseISODuration(raw)
		if !ok {
			cell.Kind, cell.Raw = KindText, text
			break
		}
		v := d.Hours() / 24
		cell.Kind, cell.Number, cell.Time = KindTime, v, epoch1900.Add(d)
		cell.Raw = strconv.FormatFloat(v, 'f', -1, 64)
	case "boolean":
		cell.Kind, cell.Raw = KindBool, "FALSE"
		if boolAttr(a, "office", "boolean-value") {
			cell.Kind, cell.Raw, cell.Number = KindBool, "TRUE", 1
		}
	case "error":
		cell.Kind, cell.Raw = KindError, strings.TrimSpace(text)
	default:
		if sv, ok := attrOf(a, "office", "string-value"); ok && sv != "" {
			cell.Raw = sv
		} else {
			cell.Raw = text
		}
		if cell.Raw == "" {
			return Cell{}, false
		}
		cell.Kind = KindText
	}
	if cell.Text == "" {
		cell.Text = cell.Raw
	}
	return cell, true
}

// defaultStyle is the style of a cell that names none: its row's default, else its
// column's.
func (s *odsRows) defaultStyle(col int) string {
	if s.rowStyle != "" {
		return s.rowStyle
	}
	for _, c := range s.colStyles {
		if col >= c.first && col <= c.last {
			return c.name
		}
	}
	return ""
}

// atoiDefault is s as a number, or def.
func atoiDefault(s string, def int) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return def
	}
	return min(n, ExcelMaxRows)
}

// parseISODuration reads .ods times (PT13H30M00S, P1DT2H, PT12H00M00.5S).
func parseISODuration(s string) (time.Duration, bool) {
	if !strings.HasPrefix(s, "P") && !strings.HasPrefix(s, "-P") {
		return 0, false
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "P")
	var total float64
	inTime := false
	num := ""
	for _, r := range s {
		switch {
		case r == 'T':
			inTime = true
		case r >= '0' && r <= '9' || r == '.' || r == ',':
			if r == ',' {
				r = '.'
			}
			num += string(r)
		default:
			v, err := strconv.ParseFloat(num, 64)
			if err != nil {
				return 0, false
			}
			num = ""
			switch {
			case r == 'D' && !inTime:
				total += v * 86400
			case r == 'H' && inTime:
				total += v * 3600
			case r == 'M' && inTime:
				total += v * 60
			case r == 'S' && inTime:
				total += v
			default:
				return 0, false
			}
		}
	}
	if total > 1e10 {
		return 0, false
	}
	d := time.Duration(total * float64(time.Second))
	if neg {
		d = -d
	}
	return d, true
}
