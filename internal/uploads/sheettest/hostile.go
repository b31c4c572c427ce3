package sheettest

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// Hostile workbooks: small files whose reading would cost far more than they weigh. They
// are written here, when a test runs, never committed. Each is a well-formed workbook
// with a components header (so nothing but its size can be held against it).

// HostileCell writes a workbook whose cell B2 (the component's name) holds chars characters
// of text: written inline in the sheet, or, when shared, as the shared-string table's only
// long string. 300 MiB of text zips to a few hundred KB.
func HostileCell(path string, chars int, shared bool) error {
	return writeHostile(path, func(part func(name string) io.Writer) error {
		header := headerCells()
		if shared {
			sst := bufio.NewWriterSize(part("xl/sharedStrings.xml"), 1<<16)
			fmt.Fprint(sst, `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`+"\n"+
				`<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="1" uniqueCount="1"><si><t>`)
			repeat(sst, 'A', chars)
			fmt.Fprint(sst, `</t></si></sst>`)
			if err := sst.Flush(); err != nil {
				return err
			}
		}
		w := bufio.NewWriterSize(part("xl/worksheets/sheet1.xml"), 1<<16)
		fmt.Fprint(w, sheetStart+`<row r="1">`+header+`</row><row r="2"><c r="A2" t="inlineStr"><is><t>2026001</t></is></c>`)
		if shared {
			fmt.Fprint(w, `<c r="B2" t="s"><v>0</v></c>`)
		} else {
			fmt.Fprint(w, `<c r="B2" t="inlineStr"><is><t>`)
			repeat(w, 'A', chars)
			fmt.Fprint(w, `</t></is></c>`)
		}
		fmt.Fprint(w, `</row></sheetData></worksheet>`)
		return w.Flush()
	})
}

// SharedStringBomb writes a workbook whose shared-string table holds n short strings that
// no cell uses: tens of millions of them zip to a few hundred KB.
func SharedStringBomb(path string, n int) error {
	return writeHostile(path, func(part func(name string) io.Writer) error {
		sst := bufio.NewWriterSize(part("xl/sharedStrings.xml"), 1<<16)
		fmt.Fprintf(sst, `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`+"\n"+
			`<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="%d" uniqueCount="%d">`, n, n)
		writeRepeated(sst, `<si><t>x</t></si>`, n)
		fmt.Fprint(sst, `</sst>`)
		if err := sst.Flush(); err != nil {
			return err
		}
		_, err := io.WriteString(part("xl/worksheets/sheet1.xml"), sheetStart+`<row r="1">`+headerCells()+`</row></sheetData></worksheet>`)
		return err
	})
}

// HugeSheet writes a workbook whose sheet XML is about size bytes: the header, then rows
// of empty cells (each row the same, so it zips down to almost nothing).
func HugeSheet(path string, size int) error {
	return writeHostile(path, func(part func(name string) io.Writer) error {
		w := bufio.NewWriterSize(part("xl/worksheets/sheet1.xml"), 1<<16)
		fmt.Fprint(w, sheetStart+`<row r="1">`+headerCells()+`</row>`)
		row := "<row>" + strings.Repeat("<c/>", 250) + "</row>"
		writeRepeated(w, row, size/len(row))
		fmt.Fprint(w, `</sheetData></worksheet>`)
		return w.Flush()
	})
}

// BigStyles writes a workbook whose styles part, which excelize holds in memory and
// decodes whole, is about size bytes of cell formats.
func BigStyles(path string, size int) error {
	return writeHostile(path, func(part func(name string) io.Writer) error {
		w := bufio.NewWriterSize(part("xl/styles.xml"), 1<<16)
		xf := `<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>`
		n := size / len(xf)
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`+"\n"+
			`<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><cellXfs count="%d">`, n)
		writeRepeated(w, xf, n)
		fmt.Fprint(w, `</cellXfs></styleSheet>`)
		if err := w.Flush(); err != nil {
			return err
		}
		_, err := io.WriteString(part("xl/worksheets/sheet1.xml"), sheetStart+`<row r="1">`+headerCells()+`</row></sheetData></worksheet>`)
		return err
	})
}

var compressLevel = flate.DefaultCompression

const sheetStart = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
	`<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`

// headerCells is the components header as inline strings in row 1.
func headerCells() string {
	var b strings.Builder
	for i, h := range ComponentHeader {
		fmt.Fprintf(&b, `<c r="%c1" t="inlineStr"><is><t>%s</t></is></c>`, 'A'+i, h)
	}
	return b.String()
}

// writeRepeated writes s n times, a block at a time.
func writeRepeated(w io.Writer, s string, n int) {
	per := max(1, (1<<16)/len(s))
	block := []byte(strings.Repeat(s, per))
	for ; n >= per; n -= per {
		_, _ = w.Write(block)
	}
	_, _ = w.Write(block[:n*len(s)])
}

// repeat writes n bytes c.
func repeat(w io.Writer, c byte, n int) {
	chunk := bytes.Repeat([]byte{c}, 1<<16)
	for n > 0 {
		k := min(n, len(chunk))
		_, _ = w.Write(chunk[:k])
		n -= k
	}
}

// writeHostile writes a workbook's fixed parts and lets body write its sheet and shared
// strings (a part is written through the returned writer until the next part starts).
// A part named in replace is left to body instead of being written with its usual content.
func writeHostile(path string, body func(part func(name string) io.Writer) error, replace ...string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, compressLevel)
	})
	var perr error
	part := func(name string) io.Writer {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil && perr == nil {
			perr = err
		}
		return w
	}
	for name, content := range map[string]string{
		"[Content_Types].xml": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
			`<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
			`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
			`<Default Extension="xml" ContentType="application/xml"/>` +
			`<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>` +
			`<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>` +
			`<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>` +
			`<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>` +
			`</Types>`,
		"_rels/.rels": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
			`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>` +
			`</Relationships>`,
		"xl/workbook.xml": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
			`<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">` +
			`<sheets><sheet name="Tagihan" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
			`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>` +
			`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>` +
			`<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>` +
			`</Relationships>`,
	} {
		if slices.Contains(replace, name) {
			continue
		}
		if _, err := io.WriteString(part(name), content); err != nil {
			perr = err
		}
	}
	if err := body(part); err != nil && perr == nil {
		perr = err
	}
	if err := zw.Close(); err != nil && perr == nil {
		perr = err
	}
	if err := f.Close(); err != nil && perr == nil {
		perr = err
	}
	return perr
}

// DeepSheet writes a components sheet whose row 2 holds depth nested elements,
// `<x><x>…</x></x>`, and nothing else: six million of them zip to about 43 KB, and an XML
// decoder that keeps the stack of open elements holds every one of them.
func DeepSheet(path string, depth int) error {
	return writeHostile(path, func(part func(name string) io.Writer) error {
		w := bufio.NewWriterSize(part("xl/worksheets/sheet1.xml"), 1<<16)
		fmt.Fprint(w, sheetStart+`<row r="1">`+headerCells()+`</row><row r="2">`)
		writeRepeated(w, "<x>", depth)
		writeRepeated(w, "</x>", depth)
		fmt.Fprint(w, `</row></sheetData></worksheet>`)
		return w.Flush()
	})
}

// DeepPart writes an ordinary components sheet (its header) whose part name,
// which may be any part of the workbook ("xl/styles.xml", "[Content_Types].xml"), starts
// with depth nested elements before its usual content.
func DeepPart(path, name string, depth int) error {
	return writeHostile(path, func(part func(string) io.Writer) error {
		if name != "xl/worksheets/sheet1.xml" {
			_, err := io.WriteString(part("xl/worksheets/sheet1.xml"), sheetStart+`<row r="1">`+headerCells()+`</row></sheetData></worksheet>`)
			if err != nil {
				return err
			}
		}
		w := bufio.NewWriterSize(part(name), 1<<16)
		fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`+"\n")
		writeRepeated(w, "<x>", depth)
		writeRepeated(w, "</x>", depth)
		return w.Flush()
	}, name)
}

// RawPart writes an ordinary components sheet (its header) with one more part,
// name, holding content as it is (a picture, a part no workbook has).
func RawPart(path, name, content string) error {
	return writeHostile(path, func(part func(string) io.Writer) error {
		_, err := io.WriteString(part("xl/worksheets/sheet1.xml"), sheetStart+`<row r="1">`+headerCells()+`</row></sheetData></worksheet>`)
		if err != nil {
			return err
		}
		_, err = io.WriteString(part(name), content)
		return err
	})
}

// LongCells writes a components sheet of rows rows each with one cell of chars
// characters, each row's text its own (a different letter first): the NIS (column A) in
// even rows, the component's name (column B) in odd ones. Every such cell is a problem
// (a NIS is quoted in its message), and the error workbook echoes each of them.
func LongCells(path string, rows, chars int) error {
	return writeHostile(path, func(part func(name string) io.Writer) error {
		w := bufio.NewWriterSize(part("xl/worksheets/sheet1.xml"), 1<<16)
		fmt.Fprint(w, sheetStart+`<row r="1">`+headerCells()+`</row>`)
		long := func(i int) {
			fmt.Fprintf(w, `%c`, 'A'+i%26)
			repeat(w, 'a'+byte(i%26), chars-1)
		}
		for i := range rows {
			r := i + 2
			fmt.Fprintf(w, `<row r="%d"><c r="A%d" t="inlineStr"><is><t>`, r, r)
			if i%2 == 0 {
				long(i)
			} else {
				fmt.Fprintf(w, `2026%04d`, i%10_000)
			}
			fmt.Fprintf(w, `</t></is></c><c r="B%d" t="inlineStr"><is><t>`, r)
			if i%2 == 1 {
				long(i)
			} else {
				fmt.Fprint(w, `SPP Juli`)
			}
			fmt.Fprintf(w, `</t></is></c><c r="C%d" t="inlineStr"><is><t>SPP</t></is></c><c r="D%d"><v>150000</v></c>`+
				`<c r="F%d" t="inlineStr"><is><t>10/08/2026</t></is></c><c r="G%d" t="inlineStr"><is><t>31/12/2026</t></is></c></row>`, r, r, r, r)
		}
		fmt.Fprint(w, `</sheetData></worksheet>`)
		return w.Flush()
	})
}

// RawSheet writes a workbook whose one sheet, "Tagihan", holds rows as they are given
// (the XML of its <row> elements: a formula's error is `<c r="D6" t="e"><f>NA()</f><v>#N/A</v></c>`)
// and the merged ranges given ("A2:A4"): what a spreadsheet writes and excelize cannot.
func RawSheet(path, rows string, merges ...string) error {
	return writeHostile(path, func(part func(string) io.Writer) error {
		var b strings.Builder
		b.WriteString(sheetStart + rows + `</sheetData>`)
		if len(merges) > 0 {
			fmt.Fprintf(&b, `<mergeCells count="%d">`, len(merges))
			for _, m := range merges {
				fmt.Fprintf(&b, `<mergeCell ref="%s"/>`, m)
			}
			b.WriteString(`</mergeCells>`)
		}
		b.WriteString(`</worksheet>`)
		_, err := io.WriteString(part("xl/worksheets/sheet1.xml"), b.String())
		return err
	})
}

// Text is a RawSheet's cell of inline text at ref ("B2"); Number one of a number; Row a
// row of cells: what RawSheet takes.
func Text(ref, s string) string {
	return `<c r="` + ref + `" t="inlineStr"><is><t>` + s + `</t></is></c>`
}

// Number is a RawSheet's cell holding the number v (as written: "350000").
func Number(ref, v string) string { return `<c r="` + ref + `"><v>` + v + `</v></c>` }

// Row is a RawSheet's row n of cells.
func Row(n int, cells ...string) string {
	return fmt.Sprintf(`<row r="%d">`, n) + strings.Join(cells, "") + `</row>`
}
