// Package celltexttest reads a cell of a written .xlsx from its XML, as a spreadsheet
// will: its text exactly as stored and whether its style carries the quote prefix. Tests
// of the portal's workbooks use it (excelize's own reader hides the flag).
package celltexttest

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"io"
	"strconv"
	"testing"
)

// Cell is one cell as the workbook's XML has it.
type Cell struct {
	// Text is the cell's string (inline or shared), "" for a cell without one.
	Text string
	// String: the cell is a string, not a number or a formula.
	String bool
	// Formula is the cell's formula, "" when none.
	Formula string
	// QuotePrefix: the cell's style has Excel's quote prefix.
	QuotePrefix bool
}

type xmlCell struct {
	R  string `xml:"r,attr"`
	S  string `xml:"s,attr"`
	T  string `xml:"t,attr"`
	V  string `xml:"v"`
	F  string `xml:"f"`
	T2 struct {
		T string `xml:"t"`
		R []struct {
			T string `xml:"t"`
		} `xml:"r"`
	} `xml:"is"`
}

type xmlSheet struct {
	Rows []struct {
		Cells []xmlCell `xml:"c"`
	} `xml:"sheetData>row"`
}

type xmlSST struct {
	SI []struct {
		T string `xml:"t"`
		R []struct {
			T string `xml:"t"`
		} `xml:"r"`
	} `xml:"si"`
}

type xmlStyles struct {
	Xf []struct {
		QuotePrefix string `xml:"quotePrefix,attr"`
	} `xml:"cellXfs>xf"`
}

func part(t testing.TB, zr *zip.Reader, name string, v any) bool {
	t.Helper()
	for _, f := range zr.File {
		if f.Name != name {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		if err != nil {
			t.Fatal(err)
		}
		if err := xml.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return true
	}
	return false
}

// Read returns the cell ref ("K10") of the sheet part ("xl/worksheets/sheet1.xml") of the
// workbook book.
func Read(t testing.TB, book []byte, sheetPart, ref string) Cell {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(book), int64(len(book)))
	if err != nil {
		t.Fatal(err)
	}
	var sheet xmlSheet
	if !part(t, zr, sheetPart, &sheet) {
		t.Fatalf("no part %s", sheetPart)
	}
	var sst xmlSST
	part(t, zr, "xl/sharedStrings.xml", &sst)
	var styles xmlStyles
	part(t, zr, "xl/styles.xml", &styles)
	for _, row := range sheet.Rows {
		for _, c := range row.Cells {
			if c.R != ref {
				continue
			}
			out := Cell{Formula: c.F}
			switch c.T {
			case "inlineStr":
				out.String, out.Text = true, c.T2.T
				for _, r := range c.T2.R {
					out.Text += r.T
				}
			case "s":
				i, err := strconv.Atoi(c.V)
				if err != nil || i >= len(sst.SI) {
					t.Fatalf("%s: shared string %q of %d", ref, c.V, len(sst.SI))
				}
				out.String, out.Text = true, sst.SI[i].T
				for _, r := range sst.SI[i].R {
					out.Text += r.T
				}
			case "str":
				out.String, out.Text = true, c.V
			default:
				out.Text = c.V
			}
			if c.S != "" {
				s, err := strconv.Atoi(c.S)
				if err != nil || s >= len(styles.Xf) {
					t.Fatalf("%s: style %q of %d", ref, c.S, len(styles.Xf))
				}
				out.QuotePrefix = styles.Xf[s].QuotePrefix == "1" || styles.Xf[s].QuotePrefix == "true"
			}
			return out
		}
	}
	t.Fatalf("no cell %s in %s", ref, sheetPart)
	return Cell{}
}
