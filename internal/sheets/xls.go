package sheets

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/richardlehane/mscfb"
)

// BIFF8 record types read here ([MS-XLS] 2.3).
const (
	recFormula    = 0x0006
	recEOF        = 0x000A
	recDateMode   = 0x0022
	recFilePass   = 0x002F
	recContinue   = 0x003C
	recWindow1    = 0x003D
	recColInfo    = 0x007D
	recBoundSheet = 0x0085
	recMulRK      = 0x00BD
	recXF         = 0x00E0
	recMerged     = 0x00E5
	recSST        = 0x00FC
	recLabelSST   = 0x00FD
	recDBCell     = 0x00D7
	recRString    = 0x00D6
	recNumber     = 0x0203
	recLabel      = 0x0204
	recBoolErr    = 0x0205
	recString     = 0x0207
	recRow        = 0x0208
	recRK         = 0x027E
	recFormat     = 0x041E
	recBOF        = 0x0809
	// BOF records of BIFF2, BIFF3 and BIFF4.
	recBOF2 = 0x0009
	recBOF3 = 0x0209
	recBOF4 = 0x0409
)

// errorNames are the cached error values of formulas, by their BIFF code.
var errorNames = map[byte]string{
	0x00: "#NULL!", 0x07: "#DIV/0!", 0x0F: "#VALUE!", 0x17: "#REF!", 0x1D: "#NAME?",
	0x24: "#NUM!", 0x2A: "#N/A", 0x2B: "#GETTING_DATA",
}

// checkCFB refuses a compound file whose header declares more FAT, mini FAT, DIFAT or
// directory sectors than the file holds: mscfb sizes tables from those counts before it
// reads them, so a 512-byte file could make it allocate gigabytes. The directory must
// start inside the file: mscfb takes the first entry of a directory it read nothing of
// (a panic, found by FuzzReadXLS).
func checkCFB(r io.ReaderAt, size int64) error {
	h := make([]byte, 76)
	if _, err := r.ReadAt(h, 0); err != nil {
		return damaged(XLS, "", "compound file header", err)
	}
	shift := binary.LittleEndian.Uint16(h[30:])
	if shift != 9 && shift != 12 {
		return damaged(XLS, "", "compound file sector size", nil)
	}
	sectors := uint64(size >> shift)
	for _, off := range []int{40, 44, 64, 72} {
		if uint64(binary.LittleEndian.Uint32(h[off:])) > sectors {
			return damaged(XLS, "", "compound file header counts", nil)
		}
	}
	if uint64(binary.LittleEndian.Uint32(h[48:])) >= sectors {
		return damaged(XLS, "", "compound file directory", nil)
	}
	return nil
}

// newCFB is mscfb.New with its panics turned into a Damaged error. mscfb indexes its
// tables with numbers read from the file; checkCFB refuses the cases known, and whatever
// else a hostile file finds must refuse the file, not take the portal down.
func newCFB(r io.ReaderAt) (doc *mscfb.Reader, err error) {
	defer recoverCFB(&err)
	doc, err = mscfb.New(r)
	if err != nil {
		return nil, damaged(XLS, "", "compound file", err)
	}
	return doc, nil
}

// cfbStream is a stream of the compound file read through mscfb, its panics turned into
// Damaged errors like newCFB's (a sector chain or mini-stream table a file made up).
type cfbStream struct{ f *mscfb.File }

func (s cfbStream) Read(p []byte) (n int, err error) {
	defer recoverCFB(&err)
	return s.f.Read(p)
}

func (s cfbStream) Seek(offset int64, whence int) (n int64, err error) {
	defer recoverCFB(&err)
	return s.f.Seek(offset, whence)
}

// recoverCFB turns a panic inside mscfb into a Damaged error in *err.
func recoverCFB(err *error) {
	if v := recover(); v != nil {
		*err = damaged(XLS, "", "compound file", fmt.Errorf("mscfb: %v", v))
	}
}

// openOLEBook opens an OLE2 compound file: an .xls (its "Workbook" stream), or says what
// else it is (Excel 5/95, a workbook with a password, a Word document).
func openOLEBook(b *Book, r io.ReaderAt, size int64) (err error) {
	if err := checkCFB(r, size); err != nil {
		return err
	}
	doc, err := newCFB(r)
	if err != nil {
		return err
	}
	var wb *mscfb.File
	found := map[string]bool{}
	for _, f := range doc.File {
		name := strings.ToLower(f.Name)
		found[name] = true
		if name == "workbook" && (wb == nil || len(f.Path) == 0) {
			wb = f
		}
	}
	switch {
	case found["encryptedpackage"]:
		return &Error{Format: XLSX, Reason: Encrypted}
	case wb == nil && found["book"]:
		return &Error{Format: XLS, Reason: OldVersion}
	case wb == nil && found["worddocument"]:
		return &Error{Reason: OtherDocument, Part: "doc"}
	case wb == nil && found["powerpoint document"]:
		return &Error{Reason: OtherDocument, Part: "ppt"}
	case wb == nil:
		return &Error{Reason: NotSpreadsheet, Detail: "compound file without a workbook"}
	}
	if wb.Size < 8 || wb.Size > size {
		// A stream cannot hold more than the file: a larger size is a sector chain that
		// loops, which would be read round and round.
		return damaged(XLS, wbPart, "stream size", nil)
	}
	b.Format = XLS
	x := &xlsBook{f: cfbStream{wb}, size: wb.Size, lim: &b.lim}
	if err := x.readGlobals(b); err != nil {
		return err
	}
	b.impl = x
	return nil
}

// biff reads the records of the workbook stream.
type biff struct {
	br   *bufio.Reader
	lim  *Limits
	part string
	recs int
	buf  []byte
}

func (x *xlsBook) reader(pos int64, part string) (*biff, error) {
	if pos < 0 || pos >= x.size {
		return nil, damaged(XLS, part, "sheet position", nil)
	}
	if _, err := x.f.Seek(pos, io.SeekStart); err != nil {
		return nil, damaged(XLS, part, "seek", err)
	}
	return &biff{br: bufio.NewReaderSize(x.f, 32<<10), lim: x.lim, part: part, buf: make([]byte, 0, 8228)}, nil
}

// next is the next record; io.EOF at the end of the stream.
func (b *biff) next() (uint16, []byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(b.br, h[:]); err != nil {
		if err == io.EOF {
			return 0, nil, io.EOF
		}
		return 0, nil, damaged(XLS, b.part, "truncated record", err)
	}
	if b.recs++; b.recs > b.lim.MaxRecords {
		return 0, nil, tooBig(XLS, BoundRecords, int64(b.lim.MaxRecords), b.part)
	}
	n := int(binary.LittleEndian.Uint16(h[2:]))
	if cap(b.buf) < n {
		b.buf = make([]byte, 0, n)
	}
	data := b.buf[:n]
	if _, err := io.ReadFull(b.br, data); err != nil {
		return 0, nil, damaged(XLS, b.part, "truncated record", err)
	}
	return binary.LittleEndian.Uint16(h[:]), data, nil
}

// peek is the type of the next record (0 at the end).
func (b *biff) peek() uint16 {
	p, err := b.br.Peek(2)
	if err != nil {
		return 0
	}
	return binary.LittleEndian.Uint16(p)
}

// xlsBook is an open .xls.
type xlsBook struct {
	f        cfbStream
	size     int64 // of the workbook stream
	lim      *Limits
	date1904 bool
	sst      []string
	xfFmt    []int
	fmtCodes map[int]string
	formats  []*numFormat
	pos      []int64 // each worksheet's BOF in the stream
}

const wbPart = "Workbook"

// readGlobals reads the workbook globals: the date system, the sheets, the formats and the
// shared strings.
func (x *xlsBook) readGlobals(b *Book) error {
	br, err := x.reader(0, wbPart)
	if err != nil {
		return err
	}
	typ, data, err := br.next()
	if err != nil {
		return damaged(XLS, wbPart, "no BOF", err)
	}
	switch {
	case typ == recBOF2 || typ == recBOF3 || typ == recBOF4:
		return &Error{Format: XLS, Reason: OldVersion}
	case typ != recBOF || len(data) < 4:
		return damaged(XLS, wbPart, "no BOF", nil)
	case binary.LittleEndian.Uint16(data) != 0x0600:
		return &Error{Format: XLS, Reason: OldVersion, Detail: "BIFF version " + strconv.Itoa(int(binary.LittleEndian.Uint16(data)))}
	}
	x.fmtCodes = map[int]string{}
	type sheet struct {
		name    string
		state   byte
		pos     int64
		isSheet bool
	}
	var sheets []sheet
	active := 0
	var sst [][]byte // the SST record and its CONTINUE records
	inSST := false
	for {
		typ, data, err := br.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if typ != recContinue {
			inSST = false
		}
		switch typ {
		case recEOF:
			goto done
		case recFilePass:
			return &Error{Format: XLS, Reason: Encrypted}
		case recDateMode:
			x.date1904 = len(data) >= 2 && binary.LittleEndian.Uint16(data) == 1
		case recWindow1:
			if len(data) >= 12 {
				active = int(binary.LittleEndian.Uint16(data[10:]))
			}
		case recBoundSheet:
			if len(data) < 8 {
				return damaged(XLS, wbPart, "BOUNDSHEET", nil)
			}
			if len(sheets) >= x.lim.MaxSheets {
				return tooBig(XLS, BoundSheets, int64(x.lim.MaxSheets), wbPart)
			}
			name, _ := shortString(data[6:])
			sheets = append(sheets, sheet{name: name, state: data[4] & 3, pos: int64(binary.LittleEndian.Uint32(data)), isSheet: data[5] == 0})
		case recFormat:
			if len(data) < 5 {
				continue
			}
			if len(x.fmtCodes) >= x.lim.MaxStyles {
				return tooBig(XLS, BoundStyles, int64(x.lim.MaxStyles), wbPart)
			}
			s, _ := longString(data[2:])
			x.fmtCodes[int(binary.LittleEndian.Uint16(data))] = s
		case recXF:
			if len(data) < 4 {
				continue
			}
			if len(x.xfFmt) >= x.lim.MaxStyles {
				return tooBig(XLS, BoundStyles, int64(x.lim.MaxStyles), wbPart)
			}
			x.xfFmt = append(x.xfFmt, int(binary.LittleEndian.Uint16(data[2:])))
		case recSST:
			sst = append(sst[:0], slices.Clone(data))
			inSST = true
		case recContinue:
			if inSST {
				sst = append(sst, slices.Clone(data))
			}
		}
	}
done:
	if len(sst) > 0 {
		if err := x.readSST(sst); err != nil {
			return err
		}
	}
	for i, s := range sheets {
		if !s.isSheet {
			continue
		}
		info := SheetInfo{Index: len(b.Sheets), Name: s.name, Active: i == active}
		switch s.state {
		case 1:
			info.Visibility = Hidden
		case 2:
			info.Visibility = VeryHidden
		}
		b.Sheets = append(b.Sheets, info)
		x.pos = append(x.pos, s.pos)
	}
	if len(b.Sheets) == 0 {
		return &Error{Format: XLS, Reason: NoSheet}
	}
	b.Date1904 = x.date1904
	return nil
}

// shortString reads a ShortXLUnicodeString (8-bit count) and its length in bytes.
func shortString(b []byte) (string, int) {
	if len(b) < 2 {
		return "", len(b)
	}
	s, n := chars(b[2:], int(b[0]), b[1]&1 != 0)
	return s, 2 + n
}

// longString reads an XLUnicodeString (16-bit count) and its length in bytes.
func longString(b []byte) (string, int) {
	if len(b) < 3 {
		return "", len(b)
	}
	s, n := chars(b[3:], int(binary.LittleEndian.Uint16(b)), b[2]&1 != 0)
	return s, 3 + n
}

// chars decodes up to cch characters, 8-bit (the low bytes of UTF-16: Latin-1) or
// UTF-16LE, as far as b holds them.
func chars(b []byte, cch int, high bool) (string, int) {
	if high {
		cch = min(cch, len(b)/2)
		u := make([]uint16, cch)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(b[2*i:])
		}
		return string(utf16.Decode(u)), 2 * cch
	}
	cch = min(cch, len(b))
	ascii := true
	for _, c := range b[:cch] {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return string(b[:cch]), cch
	}
	r := make([]rune, cch)
	for i, c := range b[:cch] {
		r[i] = rune(c)
	}
	return string(r), cch
}

// segments reads data split over a record and its CONTINUE records. Character data
// crossing into the next record starts there with a byte saying whether the rest is
// 8-bit or UTF-16; everything else crosses as it is.
type segments struct {
	segs [][]byte
	i    int
	off  int
}

func (s *segments) left() int {
	if s.i >= len(s.segs) {
		return 0
	}
	return len(s.segs[s.i]) - s.off
}

func (s *segments) nextSeg() bool {
	s.i++
	s.off = 0
	return s.i < len(s.segs)
}

func (s *segments) byte() (byte, bool) {
	for s.left() == 0 {
		if !s.nextSeg() {
			return 0, false
		}
	}
	c := s.segs[s.i][s.off]
	s.off++
	return c, true
}

func (s *segments) uint(n int) (uint32, bool) {
	var v uint32
	for k := range n {
		c, ok := s.byte()
		if !ok {
			return 0, false
		}
		v |= uint32(c) << (8 * k)
	}
	return v, true
}

func (s *segments) skip(n int) bool {
	for n > 0 {
		for s.left() == 0 {
			if !s.nextSeg() {
				return false
			}
		}
		k := min(n, s.left())
		s.off += k
		n -= k
	}
	return true
}

// chars reads cch characters starting 8-bit or UTF-16 (high), switching at each record
// boundary as the next record's first byte says.
func (s *segments) chars(cch int, high bool) (string, bool) {
	var sb strings.Builder
	for cch > 0 {
		if s.left() == 0 {
			if !s.nextSeg() || s.left() == 0 {
				return sb.String(), false
			}
			high = s.segs[s.i][0]&1 != 0
			s.off = 1
		}
		seg := s.segs[s.i][s.off:]
		width := 1
		if high {
			width = 2
		}
		k := min(cch, len(seg)/width)
		if k == 0 {
			s.off = len(s.segs[s.i]) // half a character: skip it
			continue
		}
		str, n := chars(seg, k, high)
		sb.WriteString(str)
		s.off += n
		cch -= k
	}
	return sb.String(), true
}

// readSST reads the shared strings: XLUnicodeRichExtendedString each, with their
// formatting runs and phonetic data skipped.
func (x *xlsBook) readSST(segs [][]byte) error {
	s := &segments{segs: segs}
	if !s.skip(4) {
		return damaged(XLS, wbPart, "SST", nil)
	}
	unique, ok := s.uint(4)
	if !ok {
		return damaged(XLS, wbPart, "SST", nil)
	}
	if int64(unique) > int64(x.lim.MaxSharedStrings) {
		return tooBig(XLS, BoundSharedStrings, int64(x.lim.MaxSharedStrings), wbPart)
	}
	x.sst = make([]string, 0, min(int(unique), 1<<16))
	var total int64
	for range unique {
		cch, ok1 := s.uint(2)
		flags, ok2 := s.byte()
		if !ok1 || !ok2 {
			break // fewer strings than declared; a cell naming a missing one is refused
		}
		runs, ext := uint32(0), uint32(0)
		if flags&0x08 != 0 {
			if runs, ok = s.uint(2); !ok {
				break
			}
		}
		if flags&0x04 != 0 {
			if ext, ok = s.uint(4); !ok {
				break
			}
		}
		str, ok := s.chars(int(cch), flags&1 != 0)
		if total += int64(len(str)); total > x.lim.MaxSharedChars {
			return tooBig(XLS, BoundSharedChars, x.lim.MaxSharedChars, wbPart)
		}
		x.sst = append(x.sst, str)
		if !ok || !s.skip(int(runs)*4) || !s.skip(int(ext)) {
			break
		}
	}
	return nil
}

// format is the parsed number format of a cell format (XF) index.
func (x *xlsBook) format(xf int) *numFormat {
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

func (x *xlsBook) close() error { return nil }

func (x *xlsBook) rows(sheet int) (rowSource, error) {
	part := wbPart
	s := &xlsRows{b: x, part: part, hiddenRows: map[int]bool{}}
	// A first pass over the sheet's records for what comes after its cells: the merged
	// ranges, and the hidden columns and rows.
	br, err := x.reader(x.pos[sheet], part)
	if err != nil {
		return nil, err
	}
	if err := s.prescan(br); err != nil {
		return nil, err
	}
	if s.br, err = x.reader(x.pos[sheet], part); err != nil {
		return nil, err
	}
	if _, _, err := s.br.next(); err != nil { // the BOF
		return nil, err
	}
	return s, nil
}

// xlsRows streams a worksheet's cells, row by row.
type xlsRows struct {
	b          *xlsBook
	part       string
	br         *biff
	merges     []Range
	hiddenCols [][2]int
	hiddenRows map[int]bool
	depth      int // embedded substreams (charts) being skipped
	done       bool

	pending []Cell // cells read, not yet handed out in rows
	ready   []Cell // sorted cells of complete rows
	emitted int    // the last row handed out
	str     *Cell  // a formula's string result, waiting for its STRING record
	strNF   *numFormat
}

func (s *xlsRows) merged() []Range { return s.merges }

func (s *xlsRows) colHidden(col int) bool {
	for _, h := range s.hiddenCols {
		if col >= h[0] && col <= h[1] {
			return true
		}
	}
	return false
}

func (s *xlsRows) close() error { s.done = true; return nil }

func (s *xlsRows) prescan(br *biff) error {
	typ, data, err := br.next()
	if err != nil || typ != recBOF || len(data) < 4 {
		return damaged(XLS, s.part, "sheet BOF", err)
	}
	if binary.LittleEndian.Uint16(data[2:]) != 0x0010 {
		return &Error{Format: XLS, Reason: NoSheet, Detail: "not a worksheet"}
	}
	depth := 1
	for depth > 0 {
		typ, data, err := br.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch typ {
		case recBOF:
			depth++
		case recEOF:
			depth--
		case recMerged:
			if depth != 1 || len(data) < 2 {
				continue
			}
			n := int(binary.LittleEndian.Uint16(data))
			for i := 0; i < n && 2+8*i+8 <= len(data); i++ {
				d := data[2+8*i:]
				g := Range{FirstRow: int(binary.LittleEndian.Uint16(d)) + 1, LastRow: int(binary.LittleEndian.Uint16(d[2:])) + 1,
					FirstCol: int(binary.LittleEndian.Uint16(d[4:])), LastCol: int(binary.LittleEndian.Uint16(d[6:]))}
				if g.LastRow < g.FirstRow || g.LastCol < g.FirstCol {
					continue
				}
				if len(s.merges) >= s.b.lim.MaxMerges {
					return tooBig(XLS, BoundMerges, int64(s.b.lim.MaxMerges), s.part)
				}
				s.merges = append(s.merges, g)
			}
		case recColInfo:
			if depth == 1 && len(data) >= 10 && binary.LittleEndian.Uint16(data[8:])&1 != 0 {
				s.hiddenCols = append(s.hiddenCols, [2]int{int(binary.LittleEndian.Uint16(data)), int(binary.LittleEndian.Uint16(data[2:]))})
			}
		case recRow:
			if depth == 1 && len(data) >= 14 && binary.LittleEndian.Uint16(data[12:])&0x20 != 0 {
				s.hiddenRows[int(binary.LittleEndian.Uint16(data))+1] = true
			}
		}
	}
	return nil
}

// flushAt is how many cells are held before the rows they complete are handed out, for
// a writer that does not mark its row blocks.
const flushAt = 1 << 15

func (s *xlsRows) next(row *Row) (bool, error) {
	for {
		if len(s.ready) > 0 {
			n := s.ready[0].Row
			row.Number, row.Hidden = n, s.hiddenRows[n]
			k := 0
			for k < len(s.ready) && s.ready[k].Row == n {
				k++
			}
			row.Cells = append(row.Cells, s.ready[:k]...)
			s.ready = s.ready[k:]
			s.emitted = n
			return true, nil
		}
		if s.done {
			if len(s.pending) > 0 {
				s.flush(false)
				continue
			}
			return false, nil
		}
		if err := s.read(); err != nil {
			return false, err
		}
	}
}

// flush sorts the cells read and makes ready the rows that are complete: all of them at
// a row block's end, else those before the last row seen.
func (s *xlsRows) flush(partial bool) {
	slices.SortStableFunc(s.pending, func(a, b Cell) int {
		if a.Row != b.Row {
			return a.Row - b.Row
		}
		return a.Col - b.Col
	})
	// One cell per position: the last written.
	out := s.pending[:0]
	for i, c := range s.pending {
		if i+1 < len(s.pending) && s.pending[i+1].Row == c.Row && s.pending[i+1].Col == c.Col {
			continue
		}
		out = append(out, c)
	}
	s.pending = out
	cut := len(s.pending)
	if partial && cut > 0 {
		last := s.pending[cut-1].Row
		for cut > 0 && s.pending[cut-1].Row == last {
			cut--
		}
	}
	s.ready = append(s.ready[:0], s.pending[:cut]...)
	s.pending = append(s.pending[:0], s.pending[cut:]...)
}

// read reads records until some rows are ready or the sheet ends.
func (s *xlsRows) read() error {
	for {
		typ, data, err := s.br.next()
		if err == io.EOF {
			s.done = true
			return nil
		}
		if err != nil {
			return err
		}
		if s.depth > 0 {
			switch typ {
			case recBOF:
				s.depth++
			case recEOF:
				s.depth--
			}
			continue
		}
		switch typ {
		case recBOF:
			s.depth++
			continue
		case recEOF:
			s.done = true
			return nil
		case recDBCell:
			if len(s.pending) > 0 {
				s.flush(false)
				return nil
			}
			continue
		case recString:
			if s.str != nil {
				segs := [][]byte{slices.Clone(data)}
				for s.br.peek() == recContinue {
					_, more, err := s.br.next()
					if err != nil {
						return err
					}
					segs = append(segs, slices.Clone(more))
				}
				sg := &segments{segs: segs}
				cch, _ := sg.uint(2)
				flags, _ := sg.byte()
				text, _ := sg.chars(int(cch), flags&1 != 0)
				c := s.str
				s.str = nil
				if text != "" {
					c.Kind, c.Raw = KindText, text
					c.Text = s.strNF.formatText(text)
					if err := s.add(*c); err != nil {
						return err
					}
				}
			}
			continue
		}
		c, ok, err := s.cell(typ, data)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if err := s.add(c); err != nil {
			return err
		}
		if len(s.pending) >= flushAt {
			s.flush(true)
			if len(s.ready) > 0 {
				return nil
			}
		}
	}
}

// add holds a cell for its row, refusing one for a row already handed out.
func (s *xlsRows) add(c Cell) error {
	if c.Row <= s.emitted {
		return &Error{Format: XLS, Reason: Damaged, Part: s.part, Cell: c.Ref(), Detail: "cells out of order"}
	}
	if c.Col >= s.b.lim.MaxCols {
		e := tooBig(XLS, BoundCols, int64(s.b.lim.MaxCols), s.part)
		e.Cell = c.Ref()
		return e
	}
	if c.Row > s.b.lim.MaxRows {
		return tooBig(XLS, BoundRows, int64(s.b.lim.MaxRows), s.part)
	}
	if c.Kind == KindText && c.Raw == "" {
		return nil
	}
	s.pending = append(s.pending, c)
	return nil
}

// cell reads a cell record; ok is false for a record that is no cell with a value.
func (s *xlsRows) cell(typ uint16, data []byte) (Cell, bool, error) {
	switch typ {
	case recLabelSST, recNumber, recRK, recLabel, recRString, recBoolErr, recFormula, recMulRK:
	default:
		return Cell{}, false, nil
	}
	if len(data) < 6 {
		return Cell{}, false, damaged(XLS, s.part, "short cell record", nil)
	}
	rw := int(binary.LittleEndian.Uint16(data)) + 1
	col := int(binary.LittleEndian.Uint16(data[2:]))
	xf := int(binary.LittleEndian.Uint16(data[4:]))
	c := Cell{Row: rw, Col: col}
	nf := s.b.format(xf)
	c.Format = nf.code
	bad := func() (Cell, bool, error) {
		return Cell{}, false, &Error{Format: XLS, Reason: Damaged, Part: s.part, Cell: c.Ref(), Detail: "cell record"}
	}
	switch typ {
	case recLabelSST:
		if len(data) < 10 {
			return bad()
		}
		i := int(binary.LittleEndian.Uint32(data[6:]))
		if i < 0 || i >= len(s.b.sst) {
			return Cell{}, false, &Error{Format: XLS, Reason: Damaged, Part: s.part, Cell: c.Ref(), Detail: "shared string index"}
		}
		c.Kind, c.Raw = KindText, s.b.sst[i]
		c.Text = nf.formatText(c.Raw)
	case recLabel, recRString:
		str, _ := longString(data[6:])
		c.Kind, c.Raw = KindText, str
		c.Text = nf.formatText(str)
	case recNumber:
		if len(data) < 14 {
			return bad()
		}
		fillNumber(&c, nf, math.Float64frombits(binary.LittleEndian.Uint64(data[6:])), s.b.date1904)
	case recRK:
		if len(data) < 10 {
			return bad()
		}
		fillNumber(&c, nf, rkValue(binary.LittleEndian.Uint32(data[6:])), s.b.date1904)
	case recMulRK:
		// Several cells: all but the last go straight to the row.
		n := (len(data) - 6) / 6
		if n < 1 {
			return bad()
		}
		for i := range n {
			d := data[4+6*i:]
			cc := Cell{Row: rw, Col: col + i}
			cnf := s.b.format(int(binary.LittleEndian.Uint16(d)))
			cc.Format = cnf.code
			fillNumber(&cc, cnf, rkValue(binary.LittleEndian.Uint32(d[2:])), s.b.date1904)
			if i == n-1 {
				return cc, true, nil
			}
			if err := s.add(cc); err != nil {
				return Cell{}, false, err
			}
		}
	case recBoolErr:
		if len(data) < 8 {
			return bad()
		}
		if data[7] != 0 {
			c.Kind = KindError
			c.Raw = errorName(data[6])
		} else {
			c.Kind, c.Raw = KindBool, "FALSE"
			if data[6] != 0 {
				c.Raw, c.Number = "TRUE", 1
			}
		}
		c.Text = c.Raw
	case recFormula:
		if len(data) < 14 {
			return bad()
		}
		c.Formula = true
		v := data[6:14]
		if v[6] != 0xFF || v[7] != 0xFF {
			fillNumber(&c, nf, math.Float64frombits(binary.LittleEndian.Uint64(v)), s.b.date1904)
			break
		}
		switch v[0] {
		case 0: // a string: in the STRING record that follows
			s.str, s.strNF = &Cell{Row: rw, Col: col, Format: nf.code, Formula: true}, nf
			return Cell{}, false, nil
		case 1:
			c.Kind, c.Raw = KindBool, "FALSE"
			if v[2] != 0 {
				c.Raw, c.Number = "TRUE", 1
			}
			c.Text = c.Raw
		case 2:
			c.Kind, c.Raw = KindError, errorName(v[2])
			c.Text = c.Raw
		default: // an empty string
			return Cell{}, false, nil
		}
	}
	return c, true, nil
}

func errorName(code byte) string {
	if n, ok := errorNames[code]; ok {
		return n
	}
	return "#ERROR!"
}

// rkValue decodes an RK number: a 30-bit integer or the high bits of a float, maybe
// hundredths.
func rkValue(rk uint32) float64 {
	var v float64
	if rk&2 != 0 {
		v = float64(int32(rk) >> 2)
	} else {
		v = math.Float64frombits(uint64(rk&0xFFFFFFFC) << 32)
	}
	if rk&1 != 0 {
		v /= 100
	}
	return v
}
