package registration_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/internal/store"
)

var accounts = []string{"SPP", "BCA", "MANDIRI"}

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func fields(ps problem.List) []string { return ps.Keys() }

func goodLine() registration.LineInput {
	return registration.LineInput{Name: "Uang Pangkal", AccountCode: "SPP", Amount: "5.000.000", Penalty: "100000", Due: "+14", Expiry: "60"}
}

func TestParseTemplateLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(l *registration.LineInput)
		want []string // field=key of every problem, in order
	}{
		{"valid", func(*registration.LineInput) {}, nil},
		{"fixed days", func(l *registration.LineInput) { l.Due, l.Expiry = "2027-07-01", "31/08/2027" }, nil},
		{"mixed days are checked on the day", func(l *registration.LineInput) { l.Due, l.Expiry = "2027-07-01", "+1" }, nil},
		{"no penalty", func(l *registration.LineInput) { l.Penalty = "" }, nil},
		{"name missing", func(l *registration.LineInput) { l.Name = "  " }, []string{"line0_name=form.required"}},
		{"name too long", func(l *registration.LineInput) { l.Name = strings.Repeat("a", 101) }, []string{"line0_name=form.too_long"}},
		{"unknown account", func(l *registration.LineInput) { l.AccountCode = "BNI" }, []string{"line0_account=components.err.account"}},
		{"amount missing", func(l *registration.LineInput) { l.Amount = "" }, []string{"line0_amount=form.required"}},
		{"amount zero", func(l *registration.LineInput) { l.Amount = "0" }, []string{"line0_amount=form.positive"}},
		{"amount with decimals", func(l *registration.LineInput) { l.Amount = "1250000,50" }, []string{"line0_amount=components.err.amount"}},
		{"amount with zero decimals", func(l *registration.LineInput) { l.Amount = "Rp 1.250.000,-" }, nil},
		{"amount negative", func(l *registration.LineInput) { l.Amount = "-100" }, []string{"line0_amount=form.positive"}},
		{"amount as an exponent", func(l *registration.LineInput) { l.Amount = "12e5" }, []string{"line0_amount=components.err.amount"}},
		{"amount above the cap", func(l *registration.LineInput) { l.Amount = "1.000.000.000.000" }, []string{"line0_amount=components.err.too_large"}},
		{"negative penalty", func(l *registration.LineInput) { l.Penalty = "-5" }, []string{"line0_penalty=form.not_negative"}},
		{"due missing", func(l *registration.LineInput) { l.Due = "" }, []string{"line0_due=form.required"}},
		{"due not a day", func(l *registration.LineInput) { l.Due = "next week" }, []string{"line0_due=feetemplates.err.day"}},
		{"due impossible date", func(l *registration.LineInput) { l.Due = "2027-02-30" }, []string{"line0_due=feetemplates.err.day"}},
		{"expiry too far", func(l *registration.LineInput) { l.Expiry = "+4000" }, []string{"line0_expiry=feetemplates.err.offset_range"}},
		{"due after expiry, relative", func(l *registration.LineInput) { l.Due, l.Expiry = "+61", "+60" }, []string{"line0_due=feetemplates.err.due_after_expiry"}},
		{"due after expiry, fixed", func(l *registration.LineInput) { l.Due, l.Expiry = "2027-09-01", "2027-08-31" }, []string{"line0_due=feetemplates.err.due_after_expiry"}},
		{"description too long", func(l *registration.LineInput) { l.Description = strings.Repeat("x", 201) }, []string{"line0_description=form.too_long"}},
		{"several at once", func(l *registration.LineInput) { l.Name, l.Amount, l.Expiry = "", "abc", "" },
			[]string{"line0_name=form.required", "line0_amount=components.err.amount", "line0_expiry=form.required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := goodLine()
			tt.edit(&l)
			tpl, ps := registration.ParseTemplate(registration.TemplateInput{Name: "Pendaftaran SMP 2027", Lines: []registration.LineInput{l}}, accounts)
			if got := fields(ps); !slices.Equal(got, tt.want) {
				t.Fatalf("problems = %v, want %v", got, tt.want)
			}
			if len(tt.want) == 0 && len(tpl.Lines) != 1 {
				t.Fatalf("lines = %+v", tpl.Lines)
			}
		})
	}
}

func TestParseTemplate(t *testing.T) {
	t.Parallel()
	in := registration.TemplateInput{Name: "  Pendaftaran   SMP 2027 ", Lines: []registration.LineInput{
		{AccountCode: "SPP"}, // a spare row: left out
		goodLine(),
		{Name: "Seragam", AccountCode: "BCA", Amount: "Rp 750.000", Due: "2027-07-01", Expiry: "2027-08-31", Optional: true, Description: " ukuran S–XL "},
	}}
	tpl, ps := registration.ParseTemplate(in, accounts)
	if len(ps) > 0 {
		t.Fatalf("problems: %v", ps)
	}
	want := []store.FeeTemplateLine{
		{Name: "Uang Pangkal", AccountCode: "SPP", Amount: 5_000_000, Penalty: 100_000, Due: store.DayRule{Offset: 14}, Expiry: store.DayRule{Offset: 60}},
		{Name: "Seragam", AccountCode: "BCA", Amount: 750_000, Due: store.DayRule{Fixed: day(2027, 7, 1)}, Expiry: store.DayRule{Fixed: day(2027, 8, 31)}, Optional: true, Description: "ukuran S–XL"},
	}
	if tpl.Name != "Pendaftaran SMP 2027" || !slices.Equal(tpl.Lines, want) {
		t.Fatalf("template = %+v", tpl)
	}
	// Problems name the form's own row (2 here, after the spare row and a good one).
	in.Lines[2].Amount = ""
	if _, ps := registration.ParseTemplate(in, accounts); !slices.Equal(fields(ps), []string{"line2_amount=form.required"}) {
		t.Fatalf("problems = %v", fields(ps))
	}
	// Round trip through the edit form.
	back, ps := registration.ParseTemplate(registration.InputOf(tpl), accounts)
	if len(ps) > 0 || !slices.Equal(back.Lines, tpl.Lines) {
		t.Fatalf("round trip: %+v %v", back.Lines, ps)
	}

	empty := []struct {
		name string
		in   registration.TemplateInput
		want []string
	}{
		{"no name, no lines", registration.TemplateInput{Lines: []registration.LineInput{{AccountCode: "SPP"}}},
			[]string{"name=form.required", "lines=feetemplates.err.no_lines"}},
		{"too many lines", registration.TemplateInput{Name: "x", Lines: slices.Repeat([]registration.LineInput{goodLine()}, registration.MaxLines+1)},
			[]string{"lines=feetemplates.err.too_many_lines"}},
	}
	for _, tt := range empty {
		if _, ps := registration.ParseTemplate(tt.in, accounts); !slices.Equal(fields(ps), tt.want) {
			t.Errorf("%s: problems = %v, want %v", tt.name, fields(ps), tt.want)
		}
	}
}

func TestParseDay(t *testing.T) {
	t.Parallel()
	days := []struct {
		in   string
		want store.DayRule
		ok   bool
	}{
		{"14", store.DayRule{Offset: 14}, true},
		{"+14", store.DayRule{Offset: 14}, true},
		{" + 0 ", store.DayRule{Offset: 0}, true},
		{"2027-07-15", store.DayRule{Fixed: day(2027, 7, 15)}, true},
		{"15-07-2027", store.DayRule{Fixed: day(2027, 7, 15)}, true},
		{"15/07/2027", store.DayRule{Fixed: day(2027, 7, 15)}, true},
		{"5/7/2027", store.DayRule{Fixed: day(2027, 7, 5)}, true},
		{"15 Jul 2027", store.DayRule{Fixed: day(2027, 7, 15)}, true},
		{"-3", store.DayRule{}, false},
		{"3650", store.DayRule{Offset: 3650}, true},
		{"3651", store.DayRule{Offset: 3651}, false},
		{"2027-13-01", store.DayRule{}, false},
		{"besok", store.DayRule{}, false},
	}
	for _, tt := range days {
		got, err := registration.ParseDay(tt.in)
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("ParseDay(%q) = %+v, %v", tt.in, got, err)
		}
		if tt.ok {
			if back, _ := registration.ParseDay(registration.FormatDay(got)); back != got {
				t.Errorf("FormatDay(%+v) = %q does not read back", got, registration.FormatDay(got))
			}
		}
	}
}

func TestCompute(t *testing.T) {
	t.Parallel()
	line := func(name string, due, exp store.DayRule, optional bool) store.FeeTemplateLine {
		return store.FeeTemplateLine{ID: "id-" + name, Name: name, AccountCode: "SPP", Amount: 1_000_000, Penalty: 50_000,
			Due: due, Expiry: exp, Optional: optional, Description: "d-" + name}
	}
	rel := func(n int) store.DayRule { return store.DayRule{Offset: n} }
	fixed := func(y int, m time.Month, d int) store.DayRule { return store.DayRule{Fixed: day(y, m, d)} }
	tests := []struct {
		name          string
		line          store.FeeTemplateLine
		on            time.Time
		due, expiry   time.Time
		wantProblemOf string // the problem key, if any
	}{
		{"relative", line("a", rel(14), rel(60), false), day(2026, 11, 22), day(2026, 12, 6), day(2027, 1, 21), ""},
		{"same day", line("a", rel(0), rel(0), false), day(2026, 11, 22), day(2026, 11, 22), day(2026, 11, 22), ""},
		{"across the year", line("a", rel(14), rel(60), false), day(2026, 12, 20), day(2027, 1, 3), day(2027, 2, 18), ""},
		{"leap February", line("a", rel(1), rel(30), false), day(2028, 2, 28), day(2028, 2, 29), day(2028, 3, 29), ""},
		{"fixed", line("a", fixed(2027, 7, 1), fixed(2027, 8, 31), false), day(2026, 11, 22), day(2027, 7, 1), day(2027, 8, 31), ""},
		{"fixed due, relative expiry", line("a", fixed(2026, 12, 1), rel(30), false), day(2026, 11, 22), day(2026, 12, 1), day(2026, 12, 22), ""},
		{"fixed due is today", line("a", fixed(2026, 11, 22), rel(30), false), day(2026, 11, 22), day(2026, 11, 22), day(2026, 12, 22), ""},
		{"fixed due already past", line("a", fixed(2026, 11, 21), rel(30), false), day(2026, 11, 22), day(2026, 11, 21), day(2026, 12, 22), "registration.err.line_past_due"},
		{"fixed expiry already past", line("a", rel(0), fixed(2026, 11, 1), false), day(2026, 11, 22), day(2026, 11, 22), day(2026, 11, 1), "registration.err.line_expired"},
		{"mixed, due after expiry on this day", line("a", rel(20), fixed(2026, 12, 1), false), day(2026, 11, 22), day(2026, 12, 12), day(2026, 12, 1), "registration.err.line_order"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, ps := registration.Compute(store.FeeTemplate{Lines: []store.FeeTemplateLine{tt.line}}, tt.on)
			if len(items) != 1 {
				t.Fatalf("items = %+v", items)
			}
			c := items[0].Component
			want := billing.CheckoutComponent{AccountCode: "SPP", Name: "a", Due: tt.due, Expiry: tt.expiry, Amount: 1_000_000, Penalty: 50_000, Description: "d-a"}
			if c != want || items[0].LineID != "id-a" {
				t.Fatalf("component = %+v\nwant        %+v", c, want)
			}
			var got string
			if len(ps) > 0 {
				got = ps[0].Key
				if ps[0].Field != "template" || len(ps[0].Args) != 1 || ps[0].Args[0] != "a" {
					t.Errorf("problem = %+v", ps[0])
				}
			}
			if got != tt.wantProblemOf {
				t.Fatalf("problem = %q, want %q", got, tt.wantProblemOf)
			}
		})
	}
}

func TestSelectAndTotal(t *testing.T) {
	t.Parallel()
	tpl := store.FeeTemplate{ID: "t1", Lines: []store.FeeTemplateLine{
		{ID: "l1", Name: "Uang Pangkal", Amount: 5_000_000, Due: store.DayRule{Offset: 14}, Expiry: store.DayRule{Offset: 60}},
		{ID: "l2", Name: "Seragam", Amount: 750_000, Optional: true, Due: store.DayRule{Offset: 14}, Expiry: store.DayRule{Offset: 60}},
		{ID: "l3", Name: "Buku", Amount: 400_000, Optional: true, Due: store.DayRule{Offset: 14}, Expiry: store.DayRule{Offset: 60}},
	}}
	items, _ := registration.Compute(tpl, day(2026, 11, 22))
	tests := []struct {
		name    string
		include func(string) bool
		want    []string
		total   int64
	}{
		{"nil bills everything", nil, []string{"l1", "l2", "l3"}, 6_150_000},
		{"required lines stay", func(string) bool { return false }, []string{"l1"}, 5_000_000},
		{"one optional ticked", func(id string) bool { return id == "l3" }, []string{"l1", "l3"}, 5_400_000},
		{"ticking a required line changes nothing", func(id string) bool { return id == "l1" }, []string{"l1"}, 5_000_000},
	}
	for _, tt := range tests {
		sel := registration.Select(items, tt.include)
		var ids []string
		for _, it := range sel {
			ids = append(ids, it.LineID)
		}
		if !slices.Equal(ids, tt.want) || registration.Total(sel) != tt.total {
			t.Errorf("%s: %v total %d, want %v total %d", tt.name, ids, registration.Total(sel), tt.want, tt.total)
		}
	}
	// The fingerprint moves with the template's version and with the day.
	fp := registration.Fingerprint(tpl, day(2026, 11, 22))
	later := tpl
	later.UpdatedAt = time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC)
	if fp == registration.Fingerprint(later, day(2026, 11, 22)) || fp == registration.Fingerprint(tpl, day(2026, 11, 23)) ||
		fp != registration.Fingerprint(tpl, day(2026, 11, 22)) {
		t.Fatal("fingerprint does not follow template version and day")
	}
}

func TestApplicantValidate(t *testing.T) {
	t.Parallel()
	good := registration.Applicant{NIS: "2027.001", Name: "Rina Wulandari", Phone: "+62 812-3456-7890", Email: "rina@example.id", Description: "Kelas 7A", ContactName: "Budi"}
	tests := []struct {
		name   string
		edit   func(a *registration.Applicant)
		public bool
		want   []string
	}{
		{"valid", func(*registration.Applicant) {}, false, nil},
		{"valid public", func(*registration.Applicant) {}, true, nil},
		{"staff: phone and contact optional", func(a *registration.Applicant) { a.Phone, a.ContactName, a.Email = "", "", "" }, false, nil},
		{"public: phone and contact required", func(a *registration.Applicant) { a.Phone, a.ContactName = "", "" }, true,
			[]string{"contact_name=form.required", "phone=form.required"}},
		{"NIS missing", func(a *registration.Applicant) { a.NIS = "" }, false, []string{"nis=form.required"}},
		{"NIS with a space", func(a *registration.Applicant) { a.NIS = "2027 001" }, false, []string{"nis=students.err.nis"}},
		{"NIS too long", func(a *registration.Applicant) { a.NIS = strings.Repeat("1", 33) }, false, []string{"nis=students.err.nis"}},
		{"name missing", func(a *registration.Applicant) { a.Name = "" }, false, []string{"name=form.required"}},
		{"phone letters", func(a *registration.Applicant) { a.Phone = "call me" }, false, []string{"phone=students.err.phone"}},
		// The wizard once took 123456, which the student's edit form then refused.
		{"phone six digits", func(a *registration.Applicant) { a.Phone = "123456" }, false, []string{"phone=students.err.phone"}},
		{"email", func(a *registration.Applicant) { a.Email = "Rina <rina@example.id>" }, false, []string{"email=form.invalid_email"}},
		{"class too long", func(a *registration.Applicant) { a.Description = strings.Repeat("k", 101) }, false, []string{"description=form.too_long"}},
	}
	for _, tt := range tests {
		a := good
		tt.edit(&a)
		if got := fields(a.Clean().Validate(tt.public)); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	c := registration.Applicant{NIS: " 2027001 ", Name: " Rina   Wulandari ", Description: " Kelas  7A", Phone: "62 812-3456-7890"}.Clean()
	if c.NIS != "2027001" || c.Name != "Rina Wulandari" || c.Description != "Kelas 7A" || c.Phone != "+6281234567890" {
		t.Fatalf("clean = %+v", c)
	}
}

func TestIsNISTaken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  error
		want bool
	}{
		{&billing.APIError{StatusCode: 400, StatusDesc: "bill_key_value: 2027001 already exists",
			Items: []billing.ItemError{{Index: -1, Field: "bill_key_value", Message: "2027001 already exists"}}}, true},
		{&billing.APIError{StatusCode: 400, StatusDesc: "bill_key_value: 2027001 already exists"}, true},
		{&billing.APIError{StatusCode: 400, StatusDesc: "bill_key_value: must be 1 to 32 letters"}, false},
		{&billing.APIError{StatusCode: 400, StatusDesc: "bill_upload_list[0].due_date: required"}, false},
		{&billing.APIError{StatusCode: 503}, false},
		{errors.New("boom"), false},
		{nil, false},
	}
	for i, tt := range tests {
		if got := registration.IsNISTaken(tt.err); got != tt.want {
			t.Errorf("%d: IsNISTaken(%v) = %v", i, tt.err, got)
		}
	}
}
