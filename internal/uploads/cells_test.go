package uploads_test

import (
	"errors"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/uploads"
)

func TestParseDate(t *testing.T) {
	t.Parallel()
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	serial := formatSerial
	tests := []struct {
		in   string
		want time.Time
		err  error
	}{
		// Excel date cells arrive as serial numbers; a time of day is a fraction.
		{"46366", day(2026, 12, 10), nil},
		{"46366.75", day(2026, 12, 10), nil},
		{serial(day(2000, 1, 1)), day(2000, 1, 1), nil},
		{serial(day(2028, 2, 29)), day(2028, 2, 29), nil},
		{"2026", time.Time{}, uploads.ErrDateRange}, // a year typed in a date cell is 1905
		// Text dates are i18n.ParseDay's (see its test); a few to show they arrive.
		{"2026-12-10", day(2026, 12, 10), nil},
		{"10/12/2026", day(2026, 12, 10), nil},
		{" 10 Mei 2026 ", day(2026, 5, 10), nil},
		{"Kamis, 10 Des 2026", day(2026, 12, 10), nil},
		// Not dates.
		{"", time.Time{}, uploads.ErrNotDate},
		{"besok", time.Time{}, uploads.ErrNotDate},
		{"31/11/2026", time.Time{}, uploads.ErrNotDate},
		{"12/31/2026", time.Time{}, uploads.ErrNotDate}, // month first is not how Indonesia writes
		// Real dates in years no bill has.
		{"10/12/1999", time.Time{}, uploads.ErrDateRange},
		{"10/12/2101", time.Time{}, uploads.ErrDateRange},
	}
	for _, tt := range tests {
		got, err := uploads.ParseDate(tt.in, false)
		if !errors.Is(err, tt.err) || !got.Equal(tt.want) {
			t.Errorf("ParseDate(%q) = %v, %v; want %v, %v", tt.in, got, err, tt.want, tt.err)
		}
		if err == nil && (got.Location() != time.UTC || got.Hour() != 0) {
			t.Errorf("ParseDate(%q) = %v, want UTC midnight", tt.in, got)
		}
	}
}

// formatSerial is the serial Excel stores for a day, computed with excelize's own
// conversion so the test does not share our arithmetic.
func formatSerial(t time.Time) string {
	f := excelize.NewFile()
	defer f.Close()
	_ = f.SetCellValue("Sheet1", "A1", t)
	v, _ := f.GetCellValue("Sheet1", "A1", excelize.Options{RawCellValue: true})
	return v
}

func TestParseDateMatchesExcel(t *testing.T) {
	t.Parallel()
	for d := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() < 2031; d = d.AddDate(0, 0, 37) {
		s := formatSerial(d)
		got, err := uploads.ParseDate(s, false)
		if err != nil || !got.Equal(d) {
			t.Fatalf("serial %s of %s read as %v, %v", s, d.Format(time.DateOnly), got, err)
		}
	}
	// The 1904 system, from old Mac workbooks, counts from another day.
	got, err := uploads.ParseDate("44904", true)
	if want := time.Date(2026, 12, 10, 0, 0, 0, 0, time.UTC); err != nil || !got.Equal(want) {
		t.Fatalf("1904 serial = %v, %v; want %v", got, err, want)
	}
}

func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"46366", "46366.75", "2026-12-10", "10/12/2026", "10-12-26", "10 Des 2026",
		"Dec 10, 2026", "Kamis, 10 Des 2026", "2026-12-10T08:00:00Z", "31/11/2026", "besok", "", "1.2.3.4.5.6.7"} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, date1904 bool) {
		d, err := uploads.ParseDate(s, date1904)
		if err != nil {
			if !d.IsZero() {
				t.Fatalf("ParseDate(%q) = %v with error %v", s, d, err)
			}
			return
		}
		if d.Location() != time.UTC || d.Hour() != 0 || d.Minute() != 0 || d.Second() != 0 || d.Nanosecond() != 0 {
			t.Fatalf("ParseDate(%q) = %v, not UTC midnight", s, d)
		}
		if d.Year() < uploads.MinYear || d.Year() > uploads.MaxYear {
			t.Fatalf("ParseDate(%q) = %v, outside the allowed years", s, d)
		}
		back, err := uploads.ParseDate(d.Format(time.DateOnly), false)
		if err != nil || !back.Equal(d) {
			t.Fatalf("ParseDate(%q) = %v, but its ISO form reads as %v, %v", s, d, back, err)
		}
	})
}
