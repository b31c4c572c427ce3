package i18n

import (
	"math"
	"testing"
	"time"
)

func TestRupiahAndNumber(t *testing.T) {
	tests := []struct {
		in     int64
		rupiah string
		number string
	}{
		{0, "Rp\u00a00", "0"},
		{5, "Rp\u00a05", "5"},
		{999, "Rp\u00a0999", "999"},
		{1000, "Rp\u00a01.000", "1.000"},
		{125000, "Rp\u00a0125.000", "125.000"},
		{1250000, "Rp\u00a01.250.000", "1.250.000"},
		{-5000, "-Rp\u00a05.000", "-5.000"},
		{-1, "-Rp\u00a01", "-1"},
		{math.MaxInt64, "Rp\u00a09.223.372.036.854.775.807", "9.223.372.036.854.775.807"},
		{math.MinInt64, "-Rp\u00a09.223.372.036.854.775.808", "-9.223.372.036.854.775.808"},
	}
	for _, tt := range tests {
		if got := Rupiah(tt.in); got != tt.rupiah {
			t.Errorf("Rupiah(%d) = %q, want %q", tt.in, got, tt.rupiah)
		}
		if got := Number(tt.in); got != tt.number {
			t.Errorf("Number(%d) = %q, want %q", tt.in, got, tt.number)
		}
	}
}

func TestDates(t *testing.T) {
	jkt := Jakarta()
	id := NewPrinter(Indonesian, jkt)
	en := NewPrinter(English, jkt)
	// 2026-11-22 07:05 UTC is 14:05 in Jakarta.
	instant := time.Date(2026, 11, 22, 7, 5, 0, 0, time.UTC)
	// 2026-08-31 20:30 UTC is already 1 September in Jakarta.
	lateEvening := time.Date(2026, 8, 31, 20, 30, 0, 0, time.UTC)
	// A due day as the upstream sends it: 2026-12-01T00:00:00Z means 1 December.
	dueDay := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"Date id", id.Date(instant), "22 Nov 2026"},
		{"Date en", en.Date(instant), "22 Nov 2026"},
		{"Date id shifts to Jakarta", id.Date(lateEvening), "1 Sep 2026"},
		{"Date id Agustus", id.Date(time.Date(2026, 8, 5, 3, 0, 0, 0, time.UTC)), "5 Agu 2026"},
		{"Date en August", en.Date(time.Date(2026, 8, 5, 3, 0, 0, 0, time.UTC)), "5 Aug 2026"},
		{"Date id Mei", id.Date(time.Date(2026, 5, 1, 3, 0, 0, 0, time.UTC)), "1 Mei 2026"},
		{"Date id Okt", id.Date(time.Date(2026, 10, 1, 3, 0, 0, 0, time.UTC)), "1 Okt 2026"},
		{"Date zero", id.Date(time.Time{}), ""},
		{"Day id", id.Day(dueDay), "1 Des 2026"},
		{"Day en", en.Day(dueDay), "1 Dec 2026"},
		{"Day does not shift west of UTC", NewPrinter(English, la).Day(dueDay), "1 Dec 2026"},
		{"Day of a value already in Jakarta", id.Day(dueDay.In(jkt)), "1 Des 2026"},
		{"Day zero", id.Day(time.Time{}), ""},
		{"DateTime id", id.DateTime(instant), "22 Nov 2026 14:05"},
		{"DateTime en", en.DateTime(instant), "22 Nov 2026 14:05"},
		{"DateTime midnight pad", id.DateTime(time.Date(2026, 1, 1, 17, 0, 0, 0, time.UTC)), "2 Jan 2026 00:00"},
		{"Month id", id.Month(dueDay), "Des 2026"},
		{"Month en", en.Month(dueDay), "Dec 2026"},
		{"Month shifts to Jakarta", id.Month(lateEvening), "Sep 2026"},
		{"MonthYear id", id.MonthYear(instant), "November 2026"},
		{"MonthName id", id.MonthName(time.December), "Desember"},
		{"MonthName en", en.MonthName(time.December), "December"},
		{"MonthName id Agustus", id.MonthName(time.August), "Agustus"},
		{"MonthShort id", MonthShort(Indonesian, time.August), "Agu"},
		{"MonthShort en", MonthShort(English, time.May), "May"},
		{"MonthShort out of range", MonthShort(English, 13), "13"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestNilLocation(t *testing.T) {
	// A zero Printer (no NewPrinter) must still show Jakarta time rather than panic.
	var p Printer
	if got, want := p.DateTime(time.Date(2026, 11, 22, 7, 5, 0, 0, time.UTC)), "22 Nov 2026 14:05"; got != want {
		t.Errorf("zero Printer DateTime = %q, want %q", got, want)
	}
}

func TestRelDays(t *testing.T) {
	id := NewPrinter(Indonesian, nil)
	en := NewPrinter(English, nil)
	tests := []struct {
		days   int
		id, en string
	}{
		{0, "hari ini", "today"},
		{1, "terlambat 1 hari", "1 day late"},
		{5, "terlambat 5 hari", "5 days late"},
		{-1, "dalam 1 hari", "in 1 day"},
		{-3, "dalam 3 hari", "in 3 days"},
	}
	for _, tt := range tests {
		if got := id.RelDays(tt.days); got != tt.id {
			t.Errorf("id RelDays(%d) = %q, want %q", tt.days, got, tt.id)
		}
		if got := en.RelDays(tt.days); got != tt.en {
			t.Errorf("en RelDays(%d) = %q, want %q", tt.days, got, tt.en)
		}
	}
}

func TestDayCount(t *testing.T) {
	jkt := Jakarta()
	due := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		now  time.Time
		want int
	}{
		{"on the due day in Jakarta", time.Date(2026, 11, 20, 10, 0, 0, 0, jkt), 0},
		{"late evening UTC the day before is already the due day in Jakarta", time.Date(2026, 11, 19, 18, 0, 0, 0, time.UTC), 0},
		{"two days late", time.Date(2026, 11, 22, 23, 59, 0, 0, jkt), 2},
		{"three days to go", time.Date(2026, 11, 17, 0, 0, 0, 0, jkt), -3},
	}
	for _, tt := range tests {
		if got := DayCount(tt.now, jkt, due); got != tt.want {
			t.Errorf("%s: DayCount = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestAgo(t *testing.T) {
	id := NewPrinter(Indonesian, nil)
	en := NewPrinter(English, nil)
	tests := []struct {
		d      time.Duration
		id, en string
	}{
		{0, "baru saja", "just now"},
		{-5 * time.Second, "baru saja", "just now"},
		{59 * time.Second, "baru saja", "just now"},
		{time.Minute, "1 menit lalu", "1 minute ago"},
		{2*time.Minute + 30*time.Second, "2 menit lalu", "2 minutes ago"},
		{time.Hour, "1 jam lalu", "1 hour ago"},
		{5 * time.Hour, "5 jam lalu", "5 hours ago"},
		{24 * time.Hour, "1 hari lalu", "1 day ago"},
		{72 * time.Hour, "3 hari lalu", "3 days ago"},
	}
	for _, tt := range tests {
		if got := id.Ago(tt.d); got != tt.id {
			t.Errorf("id Ago(%v) = %q, want %q", tt.d, got, tt.id)
		}
		if got := en.Ago(tt.d); got != tt.en {
			t.Errorf("en Ago(%v) = %q, want %q", tt.d, got, tt.en)
		}
	}
}

func TestParseMonthShort(t *testing.T) {
	tests := []struct {
		in   string
		want time.Month
		ok   bool
	}{
		{"Jan", time.January, true},
		{"Des", time.December, true},
		{"Dec", time.December, true},
		{"Desember", time.December, true},
		{"december", time.December, true},
		{"Agu", time.August, true},
		{"Agustus", time.August, true},
		{"Aug", time.August, true},
		{"AUG", time.August, true},
		{"Mei", time.May, true},
		{"May", time.May, true},
		{"Okt", time.October, true},
		{"Oct", time.October, true},
		{" Sep. ", time.September, true},
		{"Nopember", time.November, true},
		{"", 0, false},
		{"Foo", 0, false},
		{"13", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseMonthShort(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseMonthShort(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func BenchmarkRupiah(b *testing.B) {
	for b.Loop() {
		_ = Rupiah(1250000)
	}
}

func BenchmarkT(b *testing.B) {
	p := NewPrinter(Indonesian, nil)
	for b.Loop() {
		_ = p.T("page.showing", 51, 100, 230)
	}
}

func init() {
	Register(map[string]Message{
		"test.count":  {ID: "%[1]d siswa, %[2]d tagihan", EN: "%[1]d {1:student|students}, %[2]d {2:item|items}"},
		"test.plural": {ID: "Kirim %[1]d baris", EN: "Send {1:this row|these %[1]d rows}"},
	})
}

// Counts in messages are grouped like every number, and English picks its plural.
func TestMessageCountsAndPlurals(t *testing.T) {
	id := NewPrinter(Indonesian, nil)
	en := NewPrinter(English, nil)
	tests := []struct{ got, want string }{
		{id.T("test.count", 7244, int64(1)), "7.244 siswa, 1 tagihan"},
		{en.T("test.count", 7244, int64(1)), "7.244 students, 1 item"},
		{en.T("test.count", 1, 2), "1 student, 2 items"},
		{en.T("test.count", 0, -1), "0 students, -1 item"},
		{en.T("test.plural", 1), "Send this row"},
		{en.T("test.plural", 1500), "Send these 1.500 rows"},
		{id.T("test.plural", 1500), "Kirim 1.500 baris"},
		{id.T("page.showing", 1001, 1050, 7244), "Menampilkan 1.001–1.050 dari 7.244"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestCountAsText(t *testing.T) {
	en := NewPrinter(English, nil)
	for _, tt := range []struct {
		arg  any
		want string
	}{{1, "1 item chosen"}, {2, "2 items chosen"}, {1234, "1.234 items chosen"}, {"{n}", "{n} items chosen"}} {
		if got := en.T("payments.selected_count", tt.arg); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.arg, got, tt.want)
		}
	}
}
