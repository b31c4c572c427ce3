package component

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	accounts := []string{"SPP", "BCA"}
	ok := Input{Name: "SPP Januari", AccountCode: "SPP", Amount: "Rp 450.000", Penalty: "25.000", Due: "2026-01-10", Expiry: "2026-03-10", Active: "2026-01-01", Notes: "semester 2"}
	with := func(f func(*Input)) Input {
		r := ok
		f(&r)
		return r
	}
	tests := []struct {
		name string
		row  Input
		want []string // field=key
	}{
		{"valid", ok, nil},
		{"penalty and active optional", with(func(r *Input) { r.Penalty, r.Active, r.Notes = "", "", "" }), nil},
		{"name required", with(func(r *Input) { r.Name = " " }), []string{"name=form.required"}},
		{"name too long", with(func(r *Input) { r.Name = strings.Repeat("n", 101) }), []string{"name=form.too_long"}},
		{"account required", with(func(r *Input) { r.AccountCode = "" }), []string{"account_code=form.required"}},
		{"account unknown", with(func(r *Input) { r.AccountCode = "MANDIRI" }), []string{"account_code=" + KeyAccount}},
		{"account in another case", with(func(r *Input) { r.AccountCode = "spp" }), nil},
		{"amount required", with(func(r *Input) { r.Amount = "" }), []string{"amount=form.required"}},
		{"amount zero", with(func(r *Input) { r.Amount = "0" }), []string{"amount=form.positive"}},
		{"amount negative", with(func(r *Input) { r.Amount = "-1" }), []string{"amount=form.positive"}},
		{"amount with cents", with(func(r *Input) { r.Amount = "450.000,50" }), []string{"amount=" + KeyAmount}},
		{"amount words", with(func(r *Input) { r.Amount = "empat ratus" }), []string{"amount=" + KeyAmount}},
		{"amount grouped the English way", with(func(r *Input) { r.Amount = "1,250,000" }), nil},
		{"amount as an exponent", with(func(r *Input) { r.Amount = "12e5" }), []string{"amount=" + KeyAmount}},
		{"amount at the cap", with(func(r *Input) { r.Amount = "999.999.999.999" }), nil},
		{"amount above the cap", with(func(r *Input) { r.Amount = "1.000.000.000.000" }), []string{"amount=" + KeyTooLarge}},
		{"penalty above the cap", with(func(r *Input) { r.Penalty = "Rp 2.000.000.000.000" }), []string{"penalty=" + KeyTooLarge}},
		{"penalty zero", with(func(r *Input) { r.Penalty = "0" }), nil},
		{"penalty negative", with(func(r *Input) { r.Penalty = "-5.000" }), []string{"penalty=form.not_negative"}},
		{"penalty not a number", with(func(r *Input) { r.Penalty = "lima" }), []string{"penalty=" + KeyAmount}},
		{"due required", with(func(r *Input) { r.Due = "" }), []string{"due=form.required"}},
		{"expiry required", with(func(r *Input) { r.Expiry = "" }), []string{"expiry=form.required"}},
		{"due not a date", with(func(r *Input) { r.Due = "besok" }), []string{"due=" + KeyDate}},
		{"active not a date", with(func(r *Input) { r.Active = "2026-02-31" }), []string{"active=" + KeyDate}},
		{"due equals expiry", with(func(r *Input) { r.Expiry = r.Due }), nil},
		{"due after expiry", with(func(r *Input) { r.Due = "2026-03-11" }), []string{"due=" + KeyDueAfterExpiry}},
		{"active equals due", with(func(r *Input) { r.Active = r.Due }), nil},
		{"active after due", with(func(r *Input) { r.Active = "2026-01-11" }), []string{"active=" + KeyActiveAfterDue}},
		{"notes too long", with(func(r *Input) { r.Notes = strings.Repeat("c", 256) }), []string{"notes=form.too_long"}},
		{"only a name", Input{Name: "Buku", AccountCode: "SPP"}, []string{"amount=form.required", "due=form.required", "expiry=form.required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := PlanRows("2601", []Input{tt.row}, accounts)
			got := plan.Problems[0].Keys()
			if !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("problems = %v, want %v", got, tt.want)
			}
			if len(tt.want) == 0 && (!plan.Valid() || len(plan.Inputs) != 1) {
				t.Errorf("valid row not planned: %+v", plan)
			}
		})
	}
}

func TestDayProblemsCarryTheDays(t *testing.T) {
	t.Parallel()
	_, l := Validate("1", Input{Name: "SPP", AccountCode: "SPP", Amount: "1", Due: "2026-03-11", Expiry: "2026-03-10"}, []string{"SPP"})
	p, ok := l.Of(FieldDue)
	if !ok || len(p.Args) != 2 || p.Args[0] != time.Date(2026, 3, 11, 0, 0, 0, 0, time.UTC) {
		t.Fatalf("due after expiry: %+v", p)
	}
}

func TestPlanRows(t *testing.T) {
	t.Parallel()
	rows := []Input{
		{AccountCode: "SPP"}, // left alone: ignored
		{Name: "SPP Januari", AccountCode: "SPP", Amount: "Rp 1.250.000", Penalty: "", Due: "2026-01-10", Expiry: "10/03/2026", Notes: " x "},
		{AccountCode: "BCA", Amount: "5"}, // half filled: errors
		{Name: "Seragam", AccountCode: "BCA", Amount: "300000", Penalty: "10.000", Due: "2026-02-01", Expiry: "2026-02-01", Active: "2026-01-15"},
	}
	plan := PlanRows("2601", rows, []string{"SPP", "BCA"})
	if plan.Valid() {
		t.Fatal("a plan with a half-filled row is valid")
	}
	if _, ok := plan.Problems[0]; ok {
		t.Error("the empty row has errors")
	}
	if e := plan.Problems[2]; !slices.Equal(e.Keys(), []string{"name=form.required", "due=form.required", "expiry=form.required"}) {
		t.Errorf("row 2 errors = %v", e.Keys())
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

	if p := PlanRows("2601", []Input{{AccountCode: "SPP"}, {}}, []string{"SPP"}); p.Valid() || len(p.Problems) != 0 {
		t.Errorf("all-empty form: %+v", p)
	}
}

func TestRuleKeysHaveMessages(t *testing.T) {
	t.Parallel()
	for _, k := range []string{KeyAmount, KeyTooLarge, KeyDate, KeyDueAfterExpiry, KeyActiveAfterDue, KeyAccount,
		"form.required", "form.too_long", "form.positive", "form.not_negative"} {
		if !i18n.Has(k) {
			t.Errorf("no message %s", k)
		}
	}
}
