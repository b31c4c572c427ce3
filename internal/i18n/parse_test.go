package i18n

import (
	"errors"
	"strconv"
	"testing"
	"time"
)

func TestParseRupiah(t *testing.T) {
	// Both ParseRupiah and ParseRupiahCell read these the same way.
	tests := []struct {
		in   string
		want int64
		err  error
	}{
		{"1250000", 1250000, nil},
		{"0", 0, nil},
		{"1250000.5", 0, ErrFraction},
		// Text as people type it.
		{"1.250.000", 1250000, nil},
		{"Rp 1.250.000", 1250000, nil},
		{"Rp1.250.000", 1250000, nil},
		{"rp. 1.250.000", 1250000, nil},
		{"Rp. 750.000", 750000, nil},
		{"rp750000", 750000, nil},
		{"RP 1.250.000,-", 1250000, nil},
		{"Rp 1.250.000,-", 1250000, nil},
		{"Rp 1.250.000,00", 1250000, nil},
		{"1.250.000,00", 1250000, nil},
		{"IDR 1.250.000", 1250000, nil},
		{"IDR 1,250,000", 1250000, nil},
		{"1,250,000", 1250000, nil}, // English grouping: the students form used to refuse it
		{"1,250,000.00", 1250000, nil},
		{"1 250 000", 1250000, nil},
		{"1\u00a0250\u00a0000", 1250000, nil},
		{"Rp\u00a0450.000", 450000, nil},
		{"  350000  ", 350000, nil},
		{"1.250", 1250, nil},
		{"25.000", 25000, nil},
		{"1250000 IDR", 1250000, nil},
		{"999.999.999.999", MaxRupiah, nil},
		// Negative amounts are read; the caller decides whether they are allowed.
		{"-5.000", -5000, nil},
		{"-100", -100, nil},
		{"-Rp 5.000", -5000, nil},
		{"Rp -5.000", -5000, nil},
		{"(5.000)", -5000, nil},
		{"−5000", -5000, nil},
		// One sign at most: a second one is a typo, not a double negative.
		{"--5", 0, ErrNotNumber},
		{"-Rp -5.000", 0, ErrNotNumber},
		{"(-5.000)", 0, ErrNotNumber},
		// Not whole rupiah.
		{"1,5", 0, ErrFraction},
		{"12.50", 0, ErrFraction},
		{"1.250.000,50", 0, ErrFraction},
		{"1.2500", 0, ErrFraction},
		// Not numbers at all.
		{"", 0, ErrNotNumber},
		{"Rp", 0, ErrNotNumber},
		{"dua ratus ribu", 0, ErrNotNumber},
		{"satu juta", 0, ErrNotNumber},
		{"1.2.3", 0, ErrNotNumber},
		{"1.25.000", 0, ErrNotNumber},
		{"12.50.000", 0, ErrNotNumber},
		{"12,34,567", 0, ErrNotNumber},
		{"1.250,000.00", 0, ErrNotNumber},
		{"1e400", 0, ErrNotNumber},
		{"NaN", 0, ErrNotNumber},
		{"0x10", 0, ErrNotNumber},
		{"12a", 0, ErrNotNumber},
		// Too large for a bill.
		{"1.000.000.000.000", 0, ErrTooLarge},
		{"99999999999999", 0, ErrTooLarge},
		{"99999999999999999999", 0, ErrNotNumber},
	}
	for _, tt := range tests {
		for name, parse := range map[string]func(string) (int64, error){"ParseRupiah": ParseRupiah, "ParseRupiahCell": ParseRupiahCell} {
			got, err := parse(tt.in)
			if !errors.Is(err, tt.err) || got != tt.want {
				t.Errorf("%s(%q) = %d, %v; want %d, %v", name, tt.in, got, err, tt.want, tt.err)
			}
		}
	}
}

func TestParseRupiahCellReadsStoredNumbers(t *testing.T) {
	// What spreadsheets store for a number cell; typed into a form, the same text is a
	// slip of the finger (an "e" next to the 3 and 4 keys), not an amount.
	tests := []struct {
		in       string
		want     int64
		cellErr  error
		typedErr error
	}{
		{"1.25E+6", 1250000, nil, ErrNotNumber},
		{"1e6", 1000000, nil, ErrNotNumber},
		{"12e5", 1200000, nil, ErrNotNumber},
		{"1E+13", 0, ErrTooLarge, ErrNotNumber},
		{"1250000.0000000002", 1250000, nil, ErrFraction},
		{"1249999.9999999998", 1250000, nil, ErrFraction},
	}
	for _, tt := range tests {
		if got, err := ParseRupiahCell(tt.in); !errors.Is(err, tt.cellErr) || got != tt.want {
			t.Errorf("ParseRupiahCell(%q) = %d, %v; want %d, %v", tt.in, got, err, tt.want, tt.cellErr)
		}
		if got, err := ParseRupiah(tt.in); !errors.Is(err, tt.typedErr) || got != 0 {
			t.Errorf("ParseRupiah(%q) = %d, %v; want 0, %v", tt.in, got, err, tt.typedErr)
		}
	}
}

func BenchmarkParseRupiah(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_, _ = ParseRupiah("Rp 1.250.000,-")
	}
}

func FuzzParseRupiah(f *testing.F) {
	for _, s := range []string{"1250000", "1.250.000", "Rp 1.250.000", "Rp1.250.000,-", "1,250,000.00", "1 250 000",
		"1.25E+6", "1250000.0000000002", "-5.000", "(5.000)", "1,5", "abc", "", "Rp", "1.2.3", "99999999999999999999",
		"--5", "-Rp 5.000", "Rp\u00a0450.000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseRupiahCell(s)
		typed, typedErr := ParseRupiah(s)
		if typedErr == nil && (err != nil || typed != v) {
			t.Fatalf("ParseRupiah(%q) = %d but ParseRupiahCell = %d, %v: a cell reads all that is typed", s, typed, v, err)
		}
		if typedErr != nil && typed != 0 {
			t.Fatalf("ParseRupiah(%q) = %d with error %v", s, typed, typedErr)
		}
		if err != nil {
			if v != 0 {
				t.Fatalf("ParseRupiahCell(%q) = %d with error %v", s, v, err)
			}
			return
		}
		if v > MaxRupiah || v < -MaxRupiah {
			t.Fatalf("ParseRupiahCell(%q) = %d, beyond MaxRupiah", s, v)
		}
		// A read amount reads the same once written the plain way, and the way Rupiah
		// shows it.
		plain := strconv.FormatInt(max(v, -v), 10)
		if back, err := ParseRupiah(plain); err != nil || back != max(v, -v) {
			t.Fatalf("ParseRupiahCell(%q) = %d, but %q reads as %d, %v", s, v, plain, back, err)
		}
		if back, err := ParseRupiah(Rupiah(v)); err != nil || back != v {
			t.Fatalf("ParseRupiahCell(%q) = %d, but %q reads as %d, %v", s, v, Rupiah(v), back, err)
		}
	})
}

func TestParseDay(t *testing.T) {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		in   string
		want time.Time // zero: ErrNotDay
	}{
		// What a date input sends.
		{"2026-12-10", day(2026, 12, 10)},
		{" 2026-01-10 ", day(2026, 1, 10)},
		{"2026/12/10", day(2026, 12, 10)},
		{"2026-12-10T08:30:00Z", day(2026, 12, 10)},
		{"2026-12-10 23:59:59", day(2026, 12, 10)},
		// Day first, as Indonesia writes it.
		{"10/12/2026", day(2026, 12, 10)},
		{"10/01/2026", day(2026, 1, 10)},
		{"10/1/2026", day(2026, 1, 10)},
		{"5/7/2027", day(2027, 7, 5)},
		{"01/11/2026", day(2026, 11, 1)}, // the bills filter used to refuse it
		{"10-12-2026", day(2026, 12, 10)},
		{"10-01-2026", day(2026, 1, 10)},
		{"15-07-2027", day(2027, 7, 15)},
		{"10.12.2026", day(2026, 12, 10)},
		{"1/2/2026", day(2026, 2, 1)},
		{"10/12/26", day(2026, 12, 10)},
		{"10/12/2026 08:00", day(2026, 12, 10)},
		// Month names, Indonesian or English.
		{"10 Des 2026", day(2026, 12, 10)},
		{"10 des 2026", day(2026, 12, 10)},
		{"10 Desember 2026", day(2026, 12, 10)},
		{"10-Dec-2026", day(2026, 12, 10)},
		{"10 Agu 2026", day(2026, 8, 10)},
		{"10 Agustus 2026 08.00", day(2026, 8, 10)},
		{"Dec 10, 2026", day(2026, 12, 10)},
		{"Jan 10 2026", day(2026, 1, 10)}, // the students form used to refuse it
		{"Kamis, 10 Des 2026", day(2026, 12, 10)},
		{" 10 Mei 2026 ", day(2026, 5, 10)},
		// Any year: the range is the caller's rule.
		{"10/12/1999", day(1999, 12, 10)},
		// Not days.
		{"", time.Time{}},
		{"besok", time.Time{}},
		{"kemarin", time.Time{}},
		{"next week", time.Time{}},
		{"31/11/2026", time.Time{}},
		{"31/02/2026", time.Time{}},
		{"2026-02-30", time.Time{}},
		{"29/02/2027", time.Time{}},
		{"12/31/2026", time.Time{}}, // month first is not how Indonesia writes
		{"10 Foo 2026", time.Time{}},
		{"2026-13-01", time.Time{}},
		{"10/12", time.Time{}},
		{"10/12/2026/1", time.Time{}},
		{"1.2.3.4.5.6.7", time.Time{}},
		{"20260110", time.Time{}},
		{"46366", time.Time{}}, // an Excel serial is the uploads' to read
	}
	for _, tt := range tests {
		got, err := ParseDay(tt.in)
		if tt.want.IsZero() {
			if !errors.Is(err, ErrNotDay) || !got.IsZero() {
				t.Errorf("ParseDay(%q) = %v, %v; want ErrNotDay", tt.in, got, err)
			}
			continue
		}
		if err != nil || !got.Equal(tt.want) || got.Location() != time.UTC {
			t.Errorf("ParseDay(%q) = %v, %v; want %v UTC", tt.in, got, err, tt.want)
		}
	}
}
