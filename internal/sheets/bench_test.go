package sheets

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

const benchRows = 10_000

// benchXLSX is a components sheet of 10,000 rows as excelize streams it: a NIS in format
// 0000000, a name, a component, an amount in #,##0, a due date and a note.
func benchXLSX(b *testing.B) []byte {
	f := excelize.NewFile()
	defer f.Close()
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		b.Fatal(err)
	}
	nis, amount, date := "0000000", "#,##0", "dd/mm/yyyy"
	sNIS, _ := f.NewStyle(&excelize.Style{CustomNumFmt: &nis})
	sAmt, _ := f.NewStyle(&excelize.Style{CustomNumFmt: &amount})
	sDate, _ := f.NewStyle(&excelize.Style{CustomNumFmt: &date})
	if err := sw.SetRow("A1", []any{"NIS", "Nama", "Komponen", "Jumlah", "Jatuh Tempo", "Catatan"}); err != nil {
		b.Fatal(err)
	}
	for i := range benchRows {
		cell, _ := excelize.CoordinatesToCellName(1, i+2)
		err := sw.SetRow(cell, []any{
			excelize.Cell{StyleID: sNIS, Value: 12000 + i%900}, fmt.Sprintf("Siswa %d", i%900),
			fmt.Sprintf("SPP %d", i%12), excelize.Cell{StyleID: sAmt, Value: 350000 + i%7*25000},
			excelize.Cell{StyleID: sDate, Value: 46600 + i%60}, "lunas sebagian"})
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := sw.Flush(); err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// benchXLS is the same sheet as an .xls: shared strings, NUMBER cells, a DBCELL every 32
// rows as Excel and LibreOffice write them.
func benchXLS() []byte {
	var sst []string
	idx := map[string]int{}
	str := func(s string) int {
		if i, ok := idx[s]; ok {
			return i
		}
		idx[s] = len(sst)
		sst = append(sst, s)
		return len(sst) - 1
	}
	var cells [][2]any
	for c, h := range []string{"NIS", "Nama", "Komponen", "Jumlah", "Jatuh Tempo", "Catatan"} {
		cells = append(cells, xLabelSST(0, c, str(h)))
	}
	for i := range benchRows {
		r := i + 1
		cells = append(cells, xNumber(r, 0, 16, float64(12000+i%900)), xLabelSST(r, 1, str(fmt.Sprintf("Siswa %d", i%900))),
			xLabelSST(r, 2, str(fmt.Sprintf("SPP %d", i%12))), xNumber(r, 3, 17, float64(350000+i%7*25000)),
			xNumber(r, 4, 18, float64(46600+i%60)), xLabelSST(r, 5, str("lunas sebagian")))
		if r%32 == 31 {
			cells = append(cells, xRec(recDBCell, le32(0)))
		}
	}
	return xlsBytes([]xlsSheet{{name: "Tagihan", cells: cells}}, sst, []string{"0000000", "#,##0", "dd/mm/yyyy"}, 0, false, 8000)
}

// benchODS is the same sheet as LibreOffice writes it in content.xml.
func benchODS() []byte {
	var sb strings.Builder
	sb.WriteString(`<table:table table:name="Tagihan"><table:table-column table:number-columns-repeated="6"/><table:table-row>`)
	for _, h := range []string{"NIS", "Nama", "Komponen", "Jumlah", "Jatuh Tempo", "Catatan"} {
		fmt.Fprintf(&sb, `<table:table-cell office:value-type="string" calcext:value-type="string"><text:p>%s</text:p></table:table-cell>`, h)
	}
	sb.WriteString(`</table:table-row>`)
	for i := range benchRows {
		fmt.Fprintf(&sb, `<table:table-row table:style-name="ro1">`+
			`<table:table-cell office:value-type="float" office:value="%d" calcext:value-type="float"><text:p>%07d</text:p></table:table-cell>`+
			`<table:table-cell office:value-type="string" calcext:value-type="string"><text:p>Siswa %d</text:p></table:table-cell>`+
			`<table:table-cell office:value-type="string" calcext:value-type="string"><text:p>SPP %d</text:p></table:table-cell>`+
			`<table:table-cell office:value-type="float" office:value="%d" calcext:value-type="float"><text:p>%d</text:p></table:table-cell>`+
			`<table:table-cell office:value-type="date" office:date-value="2027-08-%02d" calcext:value-type="date"><text:p>%02d/08/2027</text:p></table:table-cell>`+
			`<table:table-cell office:value-type="string" calcext:value-type="string"><text:p>lunas sebagian</text:p></table:table-cell>`+
			`<table:table-cell table:number-columns-repeated="1018"/></table:table-row>`,
			12000+i%900, 12000+i%900, i%900, i%12, 350000+i%7*25000, 350000+i%7*25000, 1+i%28, 1+i%28)
	}
	sb.WriteString(`<table:table-row table:number-rows-repeated="1038575"><table:table-cell table:number-columns-repeated="1024"/></table:table-row></table:table>`)
	return odsBytes(sb.String())
}

func benchCSV() []byte {
	var sb strings.Builder
	sb.WriteString("NIS;Nama;Komponen;Jumlah;Jatuh Tempo;Catatan\r\n")
	for i := range benchRows {
		fmt.Fprintf(&sb, "%07d;Siswa %d;SPP %d;%d;%02d/08/2027;\"lunas; sebagian\"\r\n", 12000+i%900, i%900, i%12, 350000+i%7*25000, 1+i%28)
	}
	return []byte(sb.String())
}

// benchRead opens the file and reads its sheet, b.N times: rows/s and allocations.
func benchRead(b *testing.B, data []byte) {
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	rowsRead := 0
	for b.Loop() {
		bk, err := openBytes(b, data, Limits{})
		if err != nil {
			b.Fatal(err)
		}
		rows, err := bk.Rows(0)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for rows.Next() {
			n++
		}
		if err := rows.Err(); err != nil || n != benchRows+1 {
			b.Fatalf("%d rows, %v", n, err)
		}
		rowsRead += n
		bk.Close()
	}
	b.ReportMetric(float64(rowsRead)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkRead reads a 10,000-row components sheet in each format.
func BenchmarkRead(b *testing.B) {
	b.Run("xlsx", func(b *testing.B) { benchRead(b, benchXLSX(b)) })
	b.Run("xls", func(b *testing.B) { benchRead(b, benchXLS()) })
	b.Run("ods", func(b *testing.B) { benchRead(b, benchODS()) })
	b.Run("csv", func(b *testing.B) { benchRead(b, benchCSV()) })
}

// BenchmarkExcelizeRows is the reading the uploads do today (excelize's Rows, raw
// values), on the same .xlsx, for comparison.
func BenchmarkExcelizeRows(b *testing.B) {
	data := benchXLSX(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	rowsRead := 0
	for b.Loop() {
		f, err := excelize.OpenReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		rows, err := f.Rows("Sheet1")
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
			if _, err := rows.Columns(excelize.Options{RawCellValue: true}); err != nil {
				b.Fatal(err)
			}
			rowsRead++
		}
		rows.Close()
		f.Close()
	}
	b.ReportMetric(float64(rowsRead)/b.Elapsed().Seconds(), "rows/s")
}
