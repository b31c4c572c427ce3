package sheets

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// csvBook is an open CSV file: one sheet.
type csvBook struct {
	r     io.ReaderAt
	size  int64
	lim   *Limits
	enc   string
	delim byte
	skip  int64 // bytes before the first record: a BOM, a "sep=" line
}

// openCSV finds the encoding (a BOM; else UTF-8 if the whole file is valid UTF-8; else
// Windows-1252, what Excel on Windows writes as "CSV") and the separator (Excel's
// "sep=;" first line, else the one of ';', ',' and tab the first record has most of).
func openCSV(b *Book, r io.ReaderAt, size int64) error {
	b.Format = CSV
	c := &csvBook{r: r, size: size, lim: &b.lim}
	head := make([]byte, min(size, 64<<10))
	if _, err := r.ReadAt(head, 0); err != nil && err != io.EOF {
		return err
	}
	switch {
	case bytes.HasPrefix(head, []byte("\xEF\xBB\xBF")):
		c.enc, c.skip = "UTF-8 BOM", 3
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}):
		c.enc = "UTF-16LE"
	case bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		c.enc = "UTF-16BE"
	default:
		valid, err := validUTF8(r, size)
		if err != nil {
			return err
		}
		c.enc = "UTF-8"
		if !valid {
			c.enc = "Windows-1252"
		}
	}
	// The first records, decoded, to find the separator.
	dec, err := c.decoded()
	if err != nil {
		return err
	}
	sample := make([]byte, 16<<10)
	n, _ := io.ReadFull(dec, sample)
	sample = sample[:n]
	c.delim = sniffDelimiter(sample)
	if d, skip, ok := sepLine(sample); ok {
		c.delim = d
		// The "sep=" line is skipped by its decoded length; only UTF-8 and Windows-1252
		// map it byte for byte, and Excel writes it only in those.
		if c.enc == "UTF-8" || c.enc == "UTF-8 BOM" || c.enc == "Windows-1252" {
			c.skip += int64(skip)
		}
	}
	b.Encoding, b.Delimiter = c.enc, rune(c.delim)
	b.Sheets = []SheetInfo{{Index: 0, Name: "", Visibility: Visible, Active: true}}
	b.impl = c
	return nil
}

// validUTF8 reports whether the whole file is valid UTF-8, reading it in chunks.
func validUTF8(r io.ReaderAt, size int64) (bool, error) {
	buf := make([]byte, 64<<10+4)
	carry := 0
	for off := int64(0); off < size; {
		n, err := r.ReadAt(buf[carry:carry+64<<10], off)
		if n == 0 && err != nil && err != io.EOF {
			return false, err
		}
		off += int64(n)
		end := carry + n
		cut := end
		if off < size {
			// Leave an incomplete sequence at the end for the next chunk.
			for i := end - 1; i >= 0 && i >= end-3; i-- {
				if buf[i]&0xC0 != 0x80 {
					if !utf8.FullRune(buf[i:end]) {
						cut = i
					}
					break
				}
			}
		}
		if !utf8.Valid(buf[:cut]) {
			return false, nil
		}
		carry = copy(buf, buf[cut:end])
		if n == 0 {
			break
		}
	}
	return carry == 0 || utf8.Valid(buf[:carry]), nil
}

// decoded is the file's text from its first record on, as UTF-8.
func (c *csvBook) decoded() (io.Reader, error) {
	src := io.NewSectionReader(c.r, c.skip, c.size-c.skip)
	switch c.enc {
	case "Windows-1252":
		return transform.NewReader(src, charmap.Windows1252.NewDecoder()), nil
	case "UTF-16LE":
		return transform.NewReader(src, unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder()), nil
	case "UTF-16BE":
		return transform.NewReader(src, unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM).NewDecoder()), nil
	}
	return src, nil
}

// sepLine reads Excel's "sep=;" first line: the separator and the line's length.
func sepLine(b []byte) (byte, int, bool) {
	if len(b) < 5 || !bytes.EqualFold(b[:4], []byte("sep=")) {
		return 0, 0, false
	}
	d := b[4]
	i := 5
	for i < len(b) && (b[i] == '\r' || b[i] == '\n') {
		i++
	}
	if i == 5 && i < len(b) {
		return 0, 0, false
	}
	return d, i, true
}

// sniffDelimiter picks the separator the first record has most of, outside quotes (';'
// first on a tie: Indonesian Excel writes it, the comma being the decimal mark).
func sniffDelimiter(b []byte) byte {
	if _, skip, ok := sepLine(b); ok {
		b = b[skip:]
	}
	counts := map[byte]int{}
	inQ := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			inQ = !inQ
		case inQ:
		case c == '\n' || c == '\r':
			i = len(b)
		case c == ';' || c == ',' || c == '\t':
			counts[c]++
		}
	}
	best := byte(',')
	for _, d := range []byte{'\t', ',', ';'} {
		if counts[d] >= counts[best] && counts[d] > 0 {
			best = d
		}
	}
	return best
}

func (c *csvBook) close() error { return nil }

func (c *csvBook) rows(int) (rowSource, error) {
	dec, err := c.decoded()
	if err != nil {
		return nil, err
	}
	return &csvRows{br: bufio.NewReaderSize(dec, 64<<10), lim: c.lim, delim: c.delim}, nil
}

// csvRows parses records: fields separated by the delimiter, quoted fields with "" for a
// quote and line breaks inside, CRLF, LF or CR line ends; a quote inside an unquoted field
// is kept as it is.
type csvRows struct {
	br     *bufio.Reader
	lim    *Limits
	delim  byte
	record int // records read, blank ones included: the row number
	line   int // physical lines read
	done   bool
	field  []byte
}

func (s *csvRows) merged() []Range       { return nil }
func (s *csvRows) colHidden(int) bool    { return false }
func (s *csvRows) close() error          { s.done = true; return nil }
func (s *csvRows) where(line int) string { return "line " + strconv.Itoa(line) }

func (s *csvRows) next(row *Row) (bool, error) {
	for !s.done {
		s.record++
		startLine := s.line + 1
		row.Number = s.record
		n, err := s.readRecord(row, startLine)
		if err != nil {
			return false, err
		}
		if n == 0 {
			s.done = true
			return false, nil
		}
		if len(row.Cells) > 0 {
			return true, nil
		}
	}
	return false, nil
}

// excelText is a field as a spreadsheet shows it: ="0012345", how a CSV keeps a number's
// leading zeros for Excel and LibreOffice (both evaluate it, to that text; the portal's
// exports write NIS so), is the text inside the quotes; any other field is as it is.
func excelText(field []byte) string {
	if len(field) >= 3 && field[0] == '=' && field[1] == '"' && field[len(field)-1] == '"' &&
		!bytes.ContainsRune(field[2:len(field)-1], '"') {
		return string(field[2 : len(field)-1])
	}
	return string(field)
}

// readRecord reads one record into row's cells; n is the bytes read (0 at the end).
func (s *csvRows) readRecord(row *Row, startLine int) (int, error) {
	n, col := 0, 0
	s.field = s.field[:0]
	quoted, inQuotes, afterQuote := false, false, false
	emit := func() error {
		if col >= s.lim.MaxFields {
			e := tooBig(CSV, BoundFields, int64(s.lim.MaxFields), s.where(startLine))
			return e
		}
		if len(s.field) > 0 {
			if len(s.field) > s.lim.MaxCellChars && utf8.RuneCount(s.field) > s.lim.MaxCellChars {
				e := tooBig(CSV, BoundCellChars, int64(s.lim.MaxCellChars), s.where(startLine))
				e.Cell = CellRef(row.Number, col)
				return e
			}
			v := excelText(s.field)
			row.Cells = append(row.Cells, Cell{Row: row.Number, Col: col, Kind: KindText, Text: v, Raw: v})
		}
		col++
		s.field = s.field[:0]
		quoted, inQuotes, afterQuote = false, false, false
		return nil
	}
	for {
		c, err := s.br.ReadByte()
		if err == io.EOF {
			if n == 0 {
				return 0, nil
			}
			s.line++
			return n, emit()
		}
		if err != nil {
			return 0, damaged(CSV, s.where(startLine), "decode", err)
		}
		if n++; n > s.lim.MaxLineBytes {
			return 0, tooBig(CSV, BoundLineBytes, int64(s.lim.MaxLineBytes), s.where(startLine))
		}
		switch {
		case inQuotes:
			switch c {
			case '"':
				if p, _ := s.br.Peek(1); len(p) == 1 && p[0] == '"' {
					_, _ = s.br.ReadByte()
					n++
					s.field = append(s.field, '"')
				} else {
					inQuotes, afterQuote = false, true
				}
			case '\n':
				s.line++
				s.field = append(s.field, c)
			default:
				s.field = append(s.field, c)
			}
		case c == s.delim:
			if err := emit(); err != nil {
				return 0, err
			}
		case c == '\n' || c == '\r':
			if c == '\r' {
				if p, _ := s.br.Peek(1); len(p) == 1 && p[0] == '\n' {
					_, _ = s.br.ReadByte()
					n++
				}
			}
			s.line++
			if col == 0 && len(s.field) == 0 && !quoted {
				return n, nil // a blank line
			}
			return n, emit()
		case c == '"' && len(s.field) == 0 && !quoted && !afterQuote:
			quoted, inQuotes = true, true
		default:
			s.field = append(s.field, c)
		}
	}
}
