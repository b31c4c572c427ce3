package students

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
)

func TestValidateStudent(t *testing.T) {
	t.Parallel()
	ok := Input{NIS: "2026.07-001", Name: "Budi Santoso", KeyName: "NIS", Phone: "0812-3456-7890", Email: "budi@example.sch.id", Class: "Kelas 7A"}
	with := func(f func(*Input)) Input {
		in := ok
		f(&in)
		return in
	}
	tests := []struct {
		name string
		in   Input
		want []string // field=key
	}{
		{"valid", ok, nil},
		{"only required", Input{NIS: "1", Name: "A"}, nil},
		{"NIS missing", with(func(in *Input) { in.NIS = "  " }), []string{"nis=form.required"}},
		{"NIS with space", with(func(in *Input) { in.NIS = "26 01" }), []string{"nis=students.err.nis"}},
		{"NIS with slash", with(func(in *Input) { in.NIS = "26/01" }), []string{"nis=students.err.nis"}},
		{"NIS with underscore", with(func(in *Input) { in.NIS = "26_01" }), []string{"nis=students.err.nis"}},
		{"NIS 32 characters", with(func(in *Input) { in.NIS = strings.Repeat("9", 32) }), nil},
		{"NIS 33 characters", with(func(in *Input) { in.NIS = strings.Repeat("9", 33) }), []string{"nis=students.err.nis"}},
		{"name missing", with(func(in *Input) { in.Name = "\t" }), []string{"name=form.required"}},
		{"name too long", with(func(in *Input) { in.Name = strings.Repeat("é", 151) }), []string{"name=form.too_long"}},
		{"name 150 characters", with(func(in *Input) { in.Name = strings.Repeat("é", 150) }), nil},
		{"Nomor Induk Siswa", with(func(in *Input) { in.KeyName = "Nomor Induk Siswa" }), nil},
		{"key name too long", with(func(in *Input) { in.KeyName = strings.Repeat("x", 51) }), []string{"key_name=form.too_long"}},
		{"phone +62", with(func(in *Input) { in.Phone = "+62 812 3456 7890" }), nil},
		{"phone 62", with(func(in *Input) { in.Phone = "6281234567890" }), nil},
		{"phone landline", with(func(in *Input) { in.Phone = "(021) 555.1234" }), nil},
		{"phone letters", with(func(in *Input) { in.Phone = "0812-ABCD" }), []string{"phone=students.err.phone"}},
		{"phone too short", with(func(in *Input) { in.Phone = "08123" }), []string{"phone=students.err.phone"}},
		{"phone six digits", with(func(in *Input) { in.Phone = "123456" }), []string{"phone=students.err.phone"}},
		{"phone without prefix", with(func(in *Input) { in.Phone = "81234567890" }), []string{"phone=students.err.phone"}},
		{"phone too long", with(func(in *Input) { in.Phone = "08123456789012345" }), []string{"phone=students.err.phone"}},
		{"email without at", with(func(in *Input) { in.Email = "budi.example.com" }), []string{"email=form.invalid_email"}},
		{"email without dot", with(func(in *Input) { in.Email = "budi@localhost" }), []string{"email=form.invalid_email"}},
		{"email with name", with(func(in *Input) { in.Email = "Budi <budi@example.com>" }), []string{"email=form.invalid_email"}},
		{"email too long", with(func(in *Input) { in.Email = strings.Repeat("b", 250) + "@x.id" }), []string{"email=form.invalid_email"}},
		{"class too long", with(func(in *Input) { in.Class = strings.Repeat("k", 101) }), []string{"description=form.too_long"}},
		{"everything wrong", Input{NIS: "a b", Phone: "x", Email: "y"}, []string{"nis=students.err.nis", "name=form.required", "phone=students.err.phone", "email=form.invalid_email"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got := Validate(tt.in)
			if !slices.Equal(got.Keys(), tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("Validate(%+v) = %v, want %v", tt.in, got.Keys(), tt.want)
			}
		})
	}
}

func TestValidateStudentNormalizes(t *testing.T) {
	t.Parallel()
	s, errs := Validate(Input{NIS: " 2601 ", Name: "  Budi   Santoso ", Phone: "0812-3456 7890", Email: " b@x.id ", Class: " Kelas  7A "})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := billing.Student{NIS: "2601", Name: "Budi Santoso", KeyName: "NIS", Phone: "081234567890", Email: "b@x.id", Description: "Kelas 7A"}
	if s != want {
		t.Fatalf("got %+v, want %+v", s, want)
	}
}

// A phone number is kept one way whatever way it was typed, so what one form accepted
// and kept, every other form accepts again.
func TestNormalizePhone(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"0812-3456-7890":    "081234567890",
		"+62 812 3456 7890": "+6281234567890",
		"62 812 3456 7890":  "+6281234567890",
		"(021) 555.1234":    "0215551234",
		" 0812 1111 2222 ":  "081211112222",
		"":                  "",
	} {
		got := NormalizePhone(in)
		if got != want {
			t.Errorf("NormalizePhone(%q) = %q, want %q", in, got, want)
		}
		var l problem.List
		if want != "" && (!CheckPhone(&l, got) || NormalizePhone(got) != got) {
			t.Errorf("%q normalised to %q is not kept as it is: %v", in, got, l)
		}
	}
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	day := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 0, 0, 0, 0, time.UTC) }
	jakarta, _ := time.LoadLocation("Asia/Jakarta")
	today := time.Date(2026, 11, 22, 10, 0, 0, 0, jakarta)
	bills := []billing.Bill{
		{Amount: 100, Penalty: 10, Due: day(11, 30), Expiry: day(12, 30), State: billing.StateProvisioned},          // unpaid
		{Amount: 200, Penalty: 20, Due: day(11, 22), Expiry: day(12, 30), State: billing.StateProvisioned},          // due today: not late
		{Amount: 300, Penalty: 30, Due: day(11, 10), Expiry: day(12, 30), State: billing.StateProvisioned},          // overdue
		{Amount: 400, Penalty: 40, Due: day(10, 10), Expiry: day(11, 21), State: billing.StateProvisioned},          // past expiry
		{Amount: 500, Penalty: 50, Due: day(9, 10), Expiry: day(10, 10), State: billing.StateExpired},               // expired
		{Amount: 600, Penalty: 60, Due: day(9, 10), Expiry: day(12, 10), State: billing.StatePaid, AmountPaid: 660}, // paid late
	}
	s := Summarize(bills, today)
	want := Summary{
		Unpaid:  StateTotal{2, 300},
		Overdue: StateTotal{1, 330},
		Paid:    StateTotal{1, 660},
		Expired: StateTotal{2, 900},
		Totals:  Totals{Outstanding: 630, Overdue: 1},
	}
	if s != want {
		t.Fatalf("Summarize = %+v, want %+v", s, want)
	}
}

// The one NIS rule, which the bills filter, the counter and the uploads call too.
func TestCheckNIS(t *testing.T) {
	t.Parallel()
	for nis, want := range map[string]string{"2024001": "", "A-12.3": "", "": "form.required", "12 3": KeyNIS, "ü1": KeyNIS} {
		var l problem.List
		valid := CheckNIS(&l, "ref_nis", nis)
		key := ""
		if p, ok := l.Of("ref_nis"); ok {
			key = p.Key
		}
		if key != want || valid != (want == "") {
			t.Errorf("CheckNIS(%q) = %q, %v; want %q", nis, key, valid, want)
		}
	}
}

func TestRuleKeysHaveMessages(t *testing.T) {
	t.Parallel()
	for _, k := range []string{KeyNIS, KeyPhone, KeyEmail, "form.required", "form.too_long"} {
		if !i18n.Has(k) {
			t.Errorf("no message %s", k)
		}
	}
}
