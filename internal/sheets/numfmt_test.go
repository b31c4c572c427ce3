package sheets

import (
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

func TestFormatNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		code string
		v    float64
		want string
		kind Kind
	}{
		{"General", 12360, "12360", KindNumber},
		{"General", 0.1 + 0.2, "0.3", KindNumber},
		{"General", -350000, "-350000", KindNumber},
		{"General", 1234567890123456789, "1.23457E+18", KindNumber},
		{"0000000", 12360, "0012360", KindNumber},
		{"0000000", 12345678, "12345678", KindNumber},
		{"0", 2.5, "3", KindNumber},
		{"0.00", 2.675, "2.68", KindNumber},
		{"#,##0", 350000, "350,000", KindNumber},
		{"#,##0", 350, "350", KindNumber},
		{"#,##0", -1200000, "-1,200,000", KindNumber},
		{"#,##0.00", 1234.5, "1,234.50", KindNumber},
		{`"Rp "#,##0`, 350000, "Rp 350,000", KindNumber},
		{`[$Rp-421]#,##0`, 350000, "Rp350,000", KindNumber},
		{`[$Rp-421]\ #,##0;[Red]\-[$Rp-421]\ #,##0`, -25000, "-Rp 25,000", KindNumber},
		{"#,##0,", 350000, "350", KindNumber},
		{"0%", 0.25, "25%", KindNumber},
		{"0.00%", 0.125, "12.50%", KindNumber},
		{"0.00E+00", 12345, "1.23E+04", KindNumber},
		{"#.##", 12, "12.", KindNumber},
		{"0.0#", 1.5, "1.5", KindNumber},
		{"#,##0 ;(#,##0)", -1500, "(1,500)", KindNumber},
		{`_(* #,##0_);_(* \(#,##0\);_(* "-"_);_(@_)`, 0, "-", KindNumber},
		{`_(* #,##0_);_(* \(#,##0\);_(* "-"_);_(@_)`, 350000, "350,000", KindNumber},
		{"000-000", 123456, "123-456", KindNumber},
		{"# ?/?", 1.5, "1 1/2", KindNumber},
		{"@", 12360, "12360", KindNumber},
		{"dd/mm/yyyy", 46609, "10/08/2027", KindDate},
		{"mm/dd/yyyy", 46609, "08/10/2027", KindDate},
		{"DD/MM/YYYY", 46609, "10/08/2027", KindDate},
		{"d-mmm-yy", 46609, "10-Aug-27", KindDate},
		{"mm-dd-yy", 46609, "08-10-27", KindDate},
		{"[$-421]dd mmmm yyyy", 46609, "10 Agustus 2027", KindDate},
		{"[$-421]dddd, d mmm yyyy", 46609, "Selasa, 10 Agu 2027", KindDate},
		{"dddd, mmmm d, yyyy", 46609, "Tuesday, August 10, 2027", KindDate},
		{"yyyy-mm-dd hh:mm", 46609.75, "2027-08-10 18:00", KindDate},
		{"h:mm AM/PM", 0.75, "6:00 PM", KindTime},
		{"hh:mm:ss", 0.5 + 1.0/86400, "12:00:01", KindTime},
		{"[h]:mm", 1.5, "36:00", KindTime},
		{"mm:ss.0", 0.0001, "00:08.6", KindTime},
		{"m/d/yy h:mm", 61, "3/1/00 0:00", KindDate},
		{"dd/mm/yyyy", -1, "########", KindDate},
	}
	for _, tt := range tests {
		nf := parseNumFormat(tt.code)
		if got := nf.formatNumber(tt.v, false); got != tt.want {
			t.Errorf("format %q of %v = %q, want %q", tt.code, tt.v, got, tt.want)
		}
		if nf.kind != tt.kind {
			t.Errorf("format %q: kind %v, want %v", tt.code, nf.kind, tt.kind)
		}
	}
}

func TestFormatDate1904(t *testing.T) {
	t.Parallel()
	nf := parseNumFormat("dd/mm/yyyy")
	// 46609 on the 1900 system is 45147 on the 1904 system.
	if got := nf.formatNumber(46609-1462, true); got != "10/08/2027" {
		t.Errorf("1904: %q", got)
	}
	if got := timeSerial(mustTime(t, 46609, false), false); got != 46609 {
		t.Errorf("timeSerial = %v", got)
	}
	if got := timeSerial(mustTime(t, 45147, true), true); got != 45147 {
		t.Errorf("timeSerial 1904 = %v", got)
	}
	if got := parseNumFormat("d/m/yyyy").formatNumber(59, false); got != "28/2/1900" {
		t.Errorf("serial 59 = %q", got)
	}
	if got := parseNumFormat("d/m/yyyy").formatNumber(1, false); got != "1/1/1900" {
		t.Errorf("serial 1 = %q", got)
	}
}

func mustTime(t *testing.T, v float64, d1904 bool) time.Time {
	t.Helper()
	tm, ok := serialTime(v, d1904, 0)
	if !ok {
		t.Fatalf("serial %v: no date", v)
	}
	return tm
}

func TestFormatText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ code, s, want string }{
		{"@", "0012345", "0012345"},
		{"General", "abc", "abc"},
		{`0;-0;0;"NIS "@`, "12", "NIS 12"},
		{`"Kode: "@`, "A1", "Kode: A1"},
	} {
		if got := parseNumFormat(tt.code).formatText(tt.s); got != tt.want {
			t.Errorf("format %q of %q = %q, want %q", tt.code, tt.s, got, tt.want)
		}
	}
}

// TestFormatLikeExcelize compares the text of numbers in common formats with what
// excelize shows for the same cell, where both follow Excel.
func TestFormatLikeExcelize(t *testing.T) {
	t.Parallel()
	f := excelize.NewFile()
	defer f.Close()
	codes := []string{"0", "0.00", "#,##0", "#,##0.00", "0000000", "0%", "0.00%", "dd/mm/yyyy",
		"d-mmm-yy", "yyyy-mm-dd", "hh:mm:ss", "[$-421]dd mmmm yyyy", `"Rp "#,##0`, "#,##0.0,"}
	values := []float64{0, 1, 12360, 350000, 1234.5678, 46609, 46609.25, 0.5, 99.995}
	for ci, code := range codes {
		c := code
		style, err := f.NewStyle(&excelize.Style{CustomNumFmt: &c})
		if err != nil {
			t.Fatal(err)
		}
		nf := parseNumFormat(code)
		for vi, v := range values {
			cell := CellRef(vi+1, ci)
			if err := f.SetCellFloat("Sheet1", cell, v, -1, 64); err != nil {
				t.Fatal(err)
			}
			if err := f.SetCellStyle("Sheet1", cell, cell, style); err != nil {
				t.Fatal(err)
			}
			want, err := f.GetCellValue("Sheet1", cell)
			if err != nil {
				t.Fatal(err)
			}
			if got := nf.formatNumber(v, false); got != want {
				t.Errorf("format %q of %v = %q, excelize shows %q", code, v, got, want)
			}
		}
	}
}
