package reports

import (
	"strings"
	"testing"
	"time"
)

// Fractions are written with the flavour's decimal separator; whole numbers, days and
// times of day are the same in both.
func TestCSVCellFlavours(t *testing.T) {
	jkt := time.FixedZone("WIB", 7*3600)
	paid := time.Date(2027, 3, 12, 16, 45, 30, 0, time.UTC) // 23:45 in Jakarta
	for _, tt := range []struct {
		v           any
		comma, semi string
	}{
		{1250000.5, "1250000.5", "1250000,5"},
		{0.25, "0.25", "0,25"},
		{int64(1250000), "1250000", "1250000"},
		{time.Date(2027, 3, 12, 0, 0, 0, 0, time.UTC), "2027-03-12", "2027-03-12"},
		{ClockOf(paid, jkt), "23:45", "23:45"},
		{ClockOf(time.Time{}, jkt), "", ""},
	} {
		if got := csvCell(tt.v, '.'); got != tt.comma {
			t.Errorf("CSV (,) %v = %q, want %q", tt.v, got, tt.comma)
		}
		if got := csvCell(tt.v, ','); got != tt.semi {
			t.Errorf("CSV (;) %v = %q, want %q", tt.v, got, tt.semi)
		}
	}
}

// TestCSVKeepsNISZeros: a NIS with leading zeros (or more digits than a spreadsheet shows
// of a number) is written ="0012345", which Excel and LibreOffice open as the text
// 0012345 (plain, both read 12345); the bytes of both flavours. Other ids and texts are as
// they were, a text starting like a formula still neutralised.
func TestCSVKeepsNISZeros(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"0012345", `="0012345"`}, {"2026001", "2026001"}, {"001", `="001"`}, {"123456789012", `="123456789012"`},
		{"A-001", "A-001"}, {"", ""}, {"'=1+1", "'=1+1"},
	} {
		if got := csvID(tt.in); got != tt.want {
			t.Errorf("csvID(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, tt := range []struct {
		format Format
		want   string
	}{
		{CSV, "\ufeffNIS,Nama siswa\r\n\"=\"\"0012345\"\"\",Budi\r\n2026001,Siti\r\n\"'=HYPERLINK(\"\"x\"\")\",Dewi\r\n"},
		{CSVExcelID, "\ufeffNIS;Nama siswa\r\n\"=\"\"0012345\"\"\";Budi\r\n2026001;Siti\r\n\"'=HYPERLINK(\"\"x\"\")\";Dewi\r\n"},
	} {
		var buf strings.Builder
		w := newCSVWriter(Export{Format: tt.format, W: &buf})
		if err := w.begin(table{Columns: []Column{{Title: "NIS", Kind: KindID}, {Title: "Nama siswa"}}}); err != nil {
			t.Fatal(err)
		}
		for _, r := range [][]any{{"0012345", "Budi"}, {"2026001", "Siti"}, {`=HYPERLINK("x")`, "Dewi"}} {
			if err := w.row(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.close(); err != nil {
			t.Fatal(err)
		}
		if buf.String() != tt.want {
			t.Errorf("%s:\n%q\nwant\n%q", tt.format, buf.String(), tt.want)
		}
	}
}
