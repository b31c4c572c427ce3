package uploads

import (
	"testing"
	"time"
)

func TestOrders(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		text string
		want order
	}{
		{"25/07/2027", orderDayFirst}, {"30/11/2027", orderDayFirst}, {"07/25/2027", orderMonthFirst}, {"10/08/2027", orderNone},
		{"31/02/2027", orderNone}, {"2027-08-10", orderNone}, {"10 Agustus 2027", orderNone}, {"25-07-27", orderDayFirst},
		{"25.07.2027", orderDayFirst}, {"1/2/3/4", orderNone}, {"", orderNone},
	} {
		if got := textOrder(tt.text); got != tt.want {
			t.Errorf("textOrder(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
	for _, tt := range []struct {
		code string
		want order
	}{
		{"dd/mm/yyyy", orderDayFirst}, {"d-m-yy", orderDayFirst}, {"m/d/yyyy", orderLocale}, {"mm-dd-yy", orderLocale},
		{"MM/DD/YY", orderLocale}, {"mm/dd/yyyy", orderMonthFirst}, {"yyyy-mm-dd", orderNone}, {"d mmmm yyyy", orderNone},
		{`[$-421]dd/mm/yyyy`, orderDayFirst}, {`"Tgl" dd/mm/yyyy`, orderDayFirst}, {"General", orderNone}, {"h:mm", orderNone},
	} {
		if got := formatOrder(tt.code); got != tt.want {
			t.Errorf("formatOrder(%q) = %v, want %v", tt.code, got, tt.want)
		}
	}
}

func TestSchoolYears(t *testing.T) {
	t.Parallel()
	d := func(y int, m time.Month, day int) time.Time { return time.Date(y, m, day, 0, 0, 0, 0, time.UTC) }
	for _, tt := range []struct {
		today    time.Time
		from, to time.Time
		name     string
	}{
		{d(2027, 7, 20), d(2027, 7, 1), d(2028, 7, 1), "2027/2028"},
		{d(2028, 1, 5), d(2027, 7, 1), d(2028, 7, 1), "2027/2028"},
		{d(2028, 5, 2), d(2027, 7, 1), d(2029, 7, 1), "2027/2028, 2028/2029"},
	} {
		from, to, name := schoolYears(tt.today)
		if !from.Equal(tt.from) || !to.Equal(tt.to) || name != tt.name {
			t.Errorf("%s: %s – %s %q", tt.today.Format(time.DateOnly), from, to, name)
		}
	}
}

func TestRestore(t *testing.T) {
	t.Parallel()
	ix := &rosterIndex{nis: map[string]string{"0012345": "budi", "0012346": "siti", "12347": "dewi", "000777": "agus"},
		names: map[string][]string{}, length: 7}
	for _, tt := range []struct {
		nis, name, want string
		ok              bool
	}{
		{"12345", "", "0012345", true},      // the roster's length
		{"12345", "Siapa", "0012345", true}, // the length is enough
		{"777", "Agus", "000777", true},     // another length, the same name
		{"777", "Budi", "", false},          // another length, another name
		{"12347", "", "", false},            // the roster has it as it is
		{"1234A", "", "", false},            // not all digits
		{"99999", "", "", false},            // no such student
	} {
		got, ok := ix.restore(tt.nis, tt.name)
		if got != tt.want || ok != tt.ok {
			t.Errorf("restore(%q, %q) = %q %v", tt.nis, tt.name, got, ok)
		}
	}
	var none *rosterIndex
	if _, ok := none.restore("12345", ""); ok {
		t.Error("no roster restored a NIS")
	}
}
