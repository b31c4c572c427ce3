package sheets

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"math"
	"unicode/utf16"
)

// This file builds files for the tests: .xls (a BIFF8 workbook stream in an OLE2
// compound file), and zips (.xlsx, .ods) part by part, so hostile ones can be made too.

// oleFile wraps a stream in a version 3 compound file (512-byte sectors): the stream,
// then the directory, then the FAT. Streams under 4,096 bytes would live in the mini
// stream: they are padded past it.
func oleFile(name string, stream []byte) []byte {
	const sec = 512
	if len(stream) < 4096 {
		stream = append(append([]byte(nil), stream...), make([]byte, 4096-len(stream))...)
	}
	k := (len(stream) + sec - 1) / sec
	fat := 1
	for k+1+fat > fat*128 {
		fat++
	}
	total := k + 1 + fat
	out := make([]byte, sec*(1+total))
	h := out[:sec]
	copy(h, oleMagic)
	binary.LittleEndian.PutUint16(h[24:], 0x3E)
	binary.LittleEndian.PutUint16(h[26:], 3)
	binary.LittleEndian.PutUint16(h[28:], 0xFFFE)
	binary.LittleEndian.PutUint16(h[30:], 9)
	binary.LittleEndian.PutUint16(h[32:], 6)
	binary.LittleEndian.PutUint32(h[44:], uint32(fat))
	binary.LittleEndian.PutUint32(h[48:], uint32(k)) // the directory
	binary.LittleEndian.PutUint32(h[56:], 4096)
	binary.LittleEndian.PutUint32(h[60:], 0xFFFFFFFE)
	binary.LittleEndian.PutUint32(h[68:], 0xFFFFFFFE)
	for i := 0; i < 109; i++ {
		v := uint32(0xFFFFFFFF)
		if i < fat {
			v = uint32(k + 1 + i)
		}
		binary.LittleEndian.PutUint32(h[76+4*i:], v)
	}
	copy(out[sec:], stream)
	// The directory: the root, the stream, two empty entries.
	dir := out[sec*(1+k) : sec*(2+k)]
	entry := func(i int, name string, typ byte, child, start uint32, size uint32) {
		e := dir[128*i : 128*(i+1)]
		u := utf16.Encode([]rune(name))
		for j, c := range u {
			binary.LittleEndian.PutUint16(e[2*j:], c)
		}
		binary.LittleEndian.PutUint16(e[64:], uint16(2*len(u)+2))
		e[66], e[67] = typ, 1
		binary.LittleEndian.PutUint32(e[68:], 0xFFFFFFFF)
		binary.LittleEndian.PutUint32(e[72:], 0xFFFFFFFF)
		binary.LittleEndian.PutUint32(e[76:], child)
		binary.LittleEndian.PutUint32(e[116:], start)
		binary.LittleEndian.PutUint32(e[120:], size)
	}
	entry(0, "Root Entry", 5, 1, 0xFFFFFFFE, 0)
	entry(1, name, 2, 0xFFFFFFFF, 0, uint32(len(stream)))
	for i := 2; i < 4; i++ {
		e := dir[128*i:]
		binary.LittleEndian.PutUint32(e[68:], 0xFFFFFFFF)
		binary.LittleEndian.PutUint32(e[72:], 0xFFFFFFFF)
		binary.LittleEndian.PutUint32(e[76:], 0xFFFFFFFF)
	}
	// The FAT.
	f := out[sec*(2+k):]
	put := func(i int, v uint32) { binary.LittleEndian.PutUint32(f[4*i:], v) }
	for i := 0; i < fat*128; i++ {
		put(i, 0xFFFFFFFF)
	}
	for i := 0; i < k; i++ {
		put(i, uint32(i+1))
	}
	put(k-1, 0xFFFFFFFE)
	put(k, 0xFFFFFFFE)
	for i := 0; i < fat; i++ {
		put(k+1+i, 0xFFFFFFFD)
	}
	return out
}

// biffWriter writes BIFF8 records.
type biffWriter struct{ bytes.Buffer }

func (w *biffWriter) rec(typ uint16, data []byte) {
	var h [4]byte
	binary.LittleEndian.PutUint16(h[:], typ)
	binary.LittleEndian.PutUint16(h[2:], uint16(len(data)))
	w.Write(h[:])
	w.Write(data)
}

func le16(v int) []byte { return binary.LittleEndian.AppendUint16(nil, uint16(v)) }
func le32(v int) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(v)) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// xlsString is an XLUnicodeString: 16-bit count, 8-bit characters when they fit.
func xlsString(s string) []byte {
	r := []rune(s)
	wide := false
	for _, c := range r {
		if c > 0xFF {
			wide = true
		}
	}
	if !wide {
		b := cat(le16(len(r)), []byte{0})
		for _, c := range r {
			b = append(b, byte(c))
		}
		return b
	}
	u := utf16.Encode(r)
	b := cat(le16(len(u)), []byte{1})
	for _, c := range u {
		b = binary.LittleEndian.AppendUint16(b, c)
	}
	return b
}

// xlsSheet is a sheet for xlsBytes: its cell records (made with the helpers below).
type xlsSheet struct {
	name  string
	state byte // 0 visible, 1 hidden, 2 very hidden
	cells [][2]any
}

func bofRec(dt int) []byte {
	return cat(le16(0x0600), le16(dt), le16(0x0DBB), le16(0x07CC), make([]byte, 8))
}

func xNumber(r, c, xf int, v float64) [2]any {
	return [2]any{uint16(recNumber), cat(le16(r), le16(c), le16(xf), binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)))}
}
func xLabelSST(r, c, i int) [2]any {
	return [2]any{uint16(recLabelSST), cat(le16(r), le16(c), le16(0), le32(i))}
}
func xRec(typ uint16, data []byte) [2]any { return [2]any{typ, data} }

// xlsBytes builds an .xls: formats (custom codes from id 164), cell formats pointing at
// them, shared strings (the SST split into CONTINUE records every split bytes when split
// > 0), the active sheet and the 1904 system.
func xlsBytes(sheets []xlsSheet, sst []string, codes []string, active int, date1904 bool, split int) []byte {
	var g biffWriter
	g.rec(recBOF, bofRec(5))
	g.rec(recWindow1, cat(make([]byte, 10), le16(active), make([]byte, 6)))
	d := 0
	if date1904 {
		d = 1
	}
	g.rec(recDateMode, le16(d))
	for i, c := range codes {
		g.rec(recFormat, cat(le16(164+i), xlsString(c)))
	}
	// XF 0–15 General; XF 16+i uses code i.
	for i := 0; i < 16+len(codes); i++ {
		f := 0
		if i >= 16 {
			f = 164 + i - 16
		}
		g.rec(recXF, cat(le16(0), le16(f), make([]byte, 16)))
	}
	var bs []int // offsets of each BOUNDSHEET's position field
	for _, s := range sheets {
		bs = append(bs, g.Len()+4)
		name := []rune(s.name)
		nb := []byte{byte(len(name)), 0}
		for _, c := range name {
			nb = append(nb, byte(c))
		}
		g.rec(recBoundSheet, cat(le32(0), []byte{s.state, 0}, nb))
	}
	if len(sst) > 0 {
		var body []byte
		body = append(body, le32(len(sst))...)
		body = append(body, le32(len(sst))...)
		for _, s := range sst {
			body = append(body, xlsString(s)...)
		}
		if split <= 0 || len(body) <= split {
			g.rec(recSST, body)
		} else {
			// Split inside character data: the continuation starts with the flag byte.
			g.rec(recSST, body[:split])
			g.rec(recContinue, cat([]byte{0}, body[split:]))
		}
	}
	g.rec(recEOF, nil)
	out := g.Bytes()
	for i, s := range sheets {
		binary.LittleEndian.PutUint32(out[bs[i]:], uint32(len(out)))
		var w biffWriter
		w.rec(recBOF, bofRec(0x10))
		for _, c := range s.cells {
			w.rec(c[0].(uint16), c[1].([]byte))
		}
		w.rec(recEOF, nil)
		out = append(out, w.Bytes()...)
	}
	return oleFile("Workbook", out)
}

// zipBytes builds a zip of parts in the given order.
func zipBytes(parts ...[2]string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, p := range parts {
		method := zip.Deflate
		if p[0] == "mimetype" {
			method = zip.Store
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: p[0], Method: method})
		if err != nil {
			panic(err)
		}
		if _, err := w.Write([]byte(p[1])); err != nil {
			panic(err)
		}
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// xlsxParts are the parts of a minimal .xlsx with one sheet whose sheetData is given.
func xlsxBytes(sheetXML string, extra ...[2]string) []byte {
	parts := [][2]string{
		{"[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>`},
		{"xl/workbook.xml", `<workbook xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`},
		{"xl/_rels/workbook.xml.rels", `<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>`},
		{"xl/worksheets/sheet1.xml", `<worksheet><sheetData>` + sheetXML + `</sheetData></worksheet>`},
	}
	return zipBytes(append(parts, extra...)...)
}

// odsBytes builds an .ods whose spreadsheet body is given.
func odsBytes(body string) []byte {
	return zipBytes(
		[2]string{"mimetype", odsMime},
		[2]string{"content.xml", `<office:document-content xmlns:office="o" xmlns:table="t" xmlns:text="x" xmlns:calcext="c"><office:body><office:spreadsheet>` + body + `</office:spreadsheet></office:body></office:document-content>`},
	)
}
