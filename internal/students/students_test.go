package students

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
)

func TestValidateStudent(t *testing.T) {
	ok := StudentInput{NIS: "2026.07-001", Name: "Budi Santoso", KeyName: "NIS", Phone: "0812-3456-7890", Email: "budi@example.sch.id", Description: "Kelas 7A"}
	with := func(f func(*StudentInput)) StudentInput {
		in := ok
		f(&in)
		return in
	}
	tests := []struct {
		name string
		in   StudentInput
		want FieldErrors
	}{
		{"valid", ok, FieldErrors{}},
		{"only required", StudentInput{NIS: "1", Name: "A"}, FieldErrors{}},
		{"NIS missing", with(func(in *StudentInput) { in.NIS = "  " }), FieldErrors{FieldNIS: ProblemRequired}},
		{"NIS with space", with(func(in *StudentInput) { in.NIS = "26 01" }), FieldErrors{FieldNIS: ProblemNIS}},
		{"NIS with slash", with(func(in *StudentInput) { in.NIS = "26/01" }), FieldErrors{FieldNIS: ProblemNIS}},
		{"NIS with underscore", with(func(in *StudentInput) { in.NIS = "26_01" }), FieldErrors{FieldNIS: ProblemNIS}},
		{"NIS 32 characters", with(func(in *StudentInput) { in.NIS = strings.Repeat("9", 32) }), FieldErrors{}},
		{"NIS 33 characters", with(func(in *StudentInput) { in.NIS = strings.Repeat("9", 33) }), FieldErrors{FieldNIS: ProblemNIS}},
		{"name missing", with(func(in *StudentInput) { in.Name = "\t" }), FieldErrors{FieldName: ProblemRequired}},
		{"name too long", with(func(in *StudentInput) { in.Name = strings.Repeat("é", 151) }), FieldErrors{FieldName: ProblemTooLong}},
		{"name 150 characters", with(func(in *StudentInput) { in.Name = strings.Repeat("é", 150) }), FieldErrors{}},
		{"Nomor Induk Siswa", with(func(in *StudentInput) { in.KeyName = "Nomor Induk Siswa" }), FieldErrors{}},
		{"key name too long", with(func(in *StudentInput) { in.KeyName = strings.Repeat("x", 51) }), FieldErrors{FieldKeyName: ProblemTooLong}},
		{"phone +62", with(func(in *StudentInput) { in.Phone = "+62 812 3456 7890" }), FieldErrors{}},
		{"phone 62", with(func(in *StudentInput) { in.Phone = "6281234567890" }), FieldErrors{}},
		{"phone landline", with(func(in *StudentInput) { in.Phone = "(021) 555.1234" }), FieldErrors{}},
		{"phone letters", with(func(in *StudentInput) { in.Phone = "0812-ABCD" }), FieldErrors{FieldPhone: ProblemPhone}},
		{"phone too short", with(func(in *StudentInput) { in.Phone = "08123" }), FieldErrors{FieldPhone: ProblemPhone}},
		{"phone without prefix", with(func(in *StudentInput) { in.Phone = "81234567890" }), FieldErrors{FieldPhone: ProblemPhone}},
		{"phone too long", with(func(in *StudentInput) { in.Phone = "08123456789012345" }), FieldErrors{FieldPhone: ProblemPhone}},
		{"email without at", with(func(in *StudentInput) { in.Email = "budi.example.com" }), FieldErrors{FieldEmail: ProblemEmail}},
		{"email without dot", with(func(in *StudentInput) { in.Email = "budi@localhost" }), FieldErrors{FieldEmail: ProblemEmail}},
		{"email with name", with(func(in *StudentInput) { in.Email = "Budi <budi@example.com>" }), FieldErrors{FieldEmail: ProblemEmail}},
		{"description too long", with(func(in *StudentInput) { in.Description = strings.Repeat("k", 101) }), FieldErrors{FieldDescription: ProblemTooLong}},
		{"everything wrong", StudentInput{NIS: "a b", Phone: "x", Email: "y"}, FieldErrors{FieldNIS: ProblemNIS, FieldName: ProblemRequired, FieldPhone: ProblemPhone, FieldEmail: ProblemEmail}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got := ValidateStudent(tt.in)
			if !maps.Equal(got, tt.want) {
				t.Errorf("ValidateStudent(%+v) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestValidateStudentNormalizes(t *testing.T) {
	s, errs := ValidateStudent(StudentInput{NIS: " 2601 ", Name: "  Budi   Santoso ", Phone: "0812-3456 7890", Email: " b@x.id ", Description: " Kelas 7A "})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := billing.Student{NIS: "2601", Name: "Budi Santoso", KeyName: "NIS", Phone: "081234567890", Email: "b@x.id", Description: "Kelas 7A"}
	if s != want {
		t.Fatalf("got %+v, want %+v", s, want)
	}
}

func TestValidateComponents(t *testing.T) {
	accounts := []string{"SPP", "BCA"}
	ok := ComponentRow{Name: "SPP Januari", AccountCode: "SPP", Amount: "Rp 450.000", Penalty: "25.000", Due: "2026-01-10", Expiry: "2026-03-10", Active: "2026-01-01", Notes: "semester 2"}
	with := func(f func(*ComponentRow)) ComponentRow {
		r := ok
		f(&r)
		return r
	}
	tests := []struct {
		name string
		row  ComponentRow
		want FieldErrors
	}{
		{"valid", ok, FieldErrors{}},
		{"penalty and active optional", with(func(r *ComponentRow) { r.Penalty, r.Active, r.Notes = "", "", "" }), FieldErrors{}},
		{"name required", with(func(r *ComponentRow) { r.Name = " " }), FieldErrors{ColName: ProblemRequired}},
		{"name too long", with(func(r *ComponentRow) { r.Name = strings.Repeat("n", 101) }), FieldErrors{ColName: ProblemTooLong}},
		{"account required", with(func(r *ComponentRow) { r.AccountCode = "" }), FieldErrors{ColAccount: ProblemRequired}},
		{"account unknown", with(func(r *ComponentRow) { r.AccountCode = "MANDIRI" }), FieldErrors{ColAccount: ProblemAccount}},
		{"amount required", with(func(r *ComponentRow) { r.Amount = "" }), FieldErrors{ColAmount: ProblemRequired}},
		{"amount zero", with(func(r *ComponentRow) { r.Amount = "0" }), FieldErrors{ColAmount: ProblemPositive}},
		{"amount negative", with(func(r *ComponentRow) { r.Amount = "-1" }), FieldErrors{ColAmount: ProblemPositive}},
		{"amount with cents", with(func(r *ComponentRow) { r.Amount = "450.000,50" }), FieldErrors{ColAmount: ProblemAmount}},
		{"amount words", with(func(r *ComponentRow) { r.Amount = "empat ratus" }), FieldErrors{ColAmount: ProblemAmount}},
		{"amount grouped the English way", with(func(r *ComponentRow) { r.Amount = "1,250,000" }), FieldErrors{}},
		{"amount as an exponent", with(func(r *ComponentRow) { r.Amount = "12e5" }), FieldErrors{ColAmount: ProblemAmount}},
		{"amount at the cap", with(func(r *ComponentRow) { r.Amount = "999.999.999.999" }), FieldErrors{}},
		{"amount above the cap", with(func(r *ComponentRow) { r.Amount = "1.000.000.000.000" }), FieldErrors{ColAmount: ProblemTooLarge}},
		{"penalty above the cap", with(func(r *ComponentRow) { r.Penalty = "Rp 2.000.000.000.000" }), FieldErrors{ColPenalty: ProblemTooLarge}},
		{"penalty zero", with(func(r *ComponentRow) { r.Penalty = "0" }), FieldErrors{}},
		{"penalty negative", with(func(r *ComponentRow) { r.Penalty = "-5.000" }), FieldErrors{ColPenalty: ProblemNegative}},
		{"penalty not a number", with(func(r *ComponentRow) { r.Penalty = "lima" }), FieldErrors{ColPenalty: ProblemAmount}},
		{"due required", with(func(r *ComponentRow) { r.Due = "" }), FieldErrors{ColDue: ProblemRequired}},
		{"expiry required", with(func(r *ComponentRow) { r.Expiry = "" }), FieldErrors{ColExpiry: ProblemRequired}},
		{"due not a date", with(func(r *ComponentRow) { r.Due = "besok" }), FieldErrors{ColDue: ProblemDate}},
		{"active not a date", with(func(r *ComponentRow) { r.Active = "2026-02-31" }), FieldErrors{ColActive: ProblemDate}},
		{"due equals expiry", with(func(r *ComponentRow) { r.Expiry = r.Due }), FieldErrors{}},
		{"due after expiry", with(func(r *ComponentRow) { r.Due = "2026-03-11" }), FieldErrors{ColDue: ProblemDueAfterExpiry}},
		{"active equals due", with(func(r *ComponentRow) { r.Active = r.Due }), FieldErrors{}},
		{"active after due", with(func(r *ComponentRow) { r.Active = "2026-01-11" }), FieldErrors{ColActive: ProblemActiveAfterDue}},
		{"notes too long", with(func(r *ComponentRow) { r.Notes = strings.Repeat("c", 256) }), FieldErrors{ColNotes: ProblemTooLong}},
		{"only a name", ComponentRow{Name: "Buku", AccountCode: "SPP"}, FieldErrors{ColAmount: ProblemRequired, ColDue: ProblemRequired, ColExpiry: ProblemRequired}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := ValidateComponents("2601", []ComponentRow{tt.row}, accounts)
			got := plan.Errors[0]
			if got == nil {
				got = FieldErrors{}
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("errors = %v, want %v", got, tt.want)
			}
			if len(tt.want) == 0 && (!plan.Valid() || len(plan.Inputs) != 1) {
				t.Errorf("valid row not planned: %+v", plan)
			}
		})
	}
}

func TestValidateComponentsPlan(t *testing.T) {
	rows := []ComponentRow{
		{AccountCode: "SPP"}, // left alone: ignored
		{Name: "SPP Januari", AccountCode: "SPP", Amount: "Rp 1.250.000", Penalty: "", Due: "2026-01-10", Expiry: "10/03/2026", Notes: " x "},
		{AccountCode: "BCA", Amount: "5"}, // half filled: errors
		{Name: "Seragam", AccountCode: "BCA", Amount: "300000", Penalty: "10.000", Due: "2026-02-01", Expiry: "2026-02-01", Active: "2026-01-15"},
	}
	plan := ValidateComponents("2601", rows, []string{"SPP", "BCA"})
	if plan.Valid() {
		t.Fatal("a plan with a half-filled row is valid")
	}
	if _, ok := plan.Errors[0]; ok {
		t.Error("the empty row has errors")
	}
	if e := plan.Errors[2]; e[ColName] != ProblemRequired || e[ColDue] != ProblemRequired {
		t.Errorf("row 2 errors = %v", e)
	}
	if len(plan.Inputs) != 2 || plan.Rows[0] != 1 || plan.Rows[1] != 3 {
		t.Fatalf("planned rows = %v", plan.Rows)
	}
	want := billing.ComponentInput{NIS: "2601", AccountCode: "SPP", Name: "SPP Januari", Amount: 1_250_000,
		Due: time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC), Expiry: time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC), Notes: "x"}
	if plan.Inputs[0] != want {
		t.Errorf("input = %+v, want %+v", plan.Inputs[0], want)
	}
	if in := plan.Inputs[1]; in.Penalty != 10_000 || in.Active.IsZero() {
		t.Errorf("second input = %+v", in)
	}

	if p := ValidateComponents("2601", []ComponentRow{{AccountCode: "SPP"}, {}}, []string{"SPP"}); p.Valid() || len(p.Errors) != 0 {
		t.Errorf("all-empty form: %+v", p)
	}
}

func TestSummarize(t *testing.T) {
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
