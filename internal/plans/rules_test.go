package plans_test

import (
	"strings"
	"testing"

	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/plans"
)

func TestGrade(t *testing.T) {
	for class, want := range map[string]string{
		"Kelas 7A": "7", "7 B": "7", "VIII-C": "8", "X IPA 1": "10", "XII IPS 2": "12", "kelas 12C": "12", "Kls. 9": "9",
		"TK A": "", "": "", "Kelas": "", "13A": "", "IXB": "", "Class 1": "1",
	} {
		if got := plans.Grade(class); got != want {
			t.Errorf("Grade(%q) = %q, want %q", class, got, want)
		}
	}
}

func TestDeriveCode(t *testing.T) {
	for name, want := range map[string]string{
		"SPP 2026/2027": "SPP2627", "SPP 2026 / 2027": "SPP2627", "Uang Pangkal 2026": "UP2026", "Uang Gedung": "UG",
		"Seragam": "SERAGAM", "Ekstrakurikuler": "EKSTRAKU", "Iuran Komite T.A. 2026/2027": "IKT2627", "7": "7PLA",
	} {
		got := plans.DeriveCode(name)
		if got != want || !plans.ValidCode(got) {
			t.Errorf("DeriveCode(%q) = %q (valid %v), want %q", name, got, plans.ValidCode(got), want)
		}
	}
	for name, want := range map[string]string{
		"SPP 2026/2027": "SPP", "SPP T.A. 2026/2027": "SPP", "Iuran Komite 2026": "Iuran Komite", "2026": "2026",
	} {
		if got := plans.DefaultItemName(name, plans.Monthly); got != want {
			t.Errorf("DefaultItemName(%q) = %q, want %q", name, got, want)
		}
	}
	if got := plans.DefaultItemName("Uang Pangkal 2026", plans.Once); got != "Uang Pangkal 2026" {
		t.Errorf("a one-time fee keeps its name: %q", got)
	}
}

func TestSchedule(t *testing.T) {
	f := plans.Form{Name: "SPP 2026/2027", AccountCode: "spp", Amount: "350.000", Frequency: "monthly", From: "2026-07",
		To: "2027-06", DueDay: "31", ExpiryDays: "20"}
	p, probs := f.Parse([]string{"SPP", "BCA"})
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	if p.AccountCode != "SPP" || p.ItemName != "SPP" || p.Instalments != 1 || p.Penalty != 0 {
		t.Fatalf("plan %+v", p)
	}
	ps := p.Periods()
	if len(ps) != 12 {
		t.Fatalf("%d periods", len(ps))
	}
	feb := ps[7]
	if feb.Name != "SPP Februari 2027" || feb.Due.Format("2006-01-02") != "2027-02-28" || feb.Expiry.Format("2006-01-02") != "2027-03-20" ||
		feb.Active.Format("2006-01-02") != "2027-02-01" {
		t.Fatalf("February: %+v", feb)
	}
	if got := p.Key(feb.Month).Notes(); got != "[plan "+p.Code+" 2027-02]" {
		t.Fatalf("key %q", got)
	}
	if k, ok := ledger.ParsePlanKey("dibayar sebagian [plan SPP2627 2027-02] lihat"); !ok || k.Code != "SPP2627" || k.Period != "2027-02" {
		t.Fatalf("key read back: %+v %v", k, ok)
	}
	for _, notes := range []string{"", "[plan spp 2027-02]", "[plan SPP2627 2027-13]", "[plan S 2027-02]", "plan SPP2627 2027-02"} {
		if k, ok := ledger.ParsePlanKey(notes); ok {
			t.Errorf("%q read as a key: %+v", notes, k)
		}
	}
	if in := p.PeriodsIn(plans.MonthOf(2026, 10), plans.MonthOf(2026, 12)); len(in) != 3 || in[0].Name != "SPP Oktober 2026" {
		t.Fatalf("October to December: %+v", in)
	}

	f.Frequency, f.Name = "semester", "Iuran Komite 2026/2027"
	p, probs = f.Parse([]string{"SPP"})
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	ps = p.Periods()
	if len(ps) != 2 || ps[0].Name != "Iuran Komite Semester Ganjil 2026/2027" || ps[1].Name != "Iuran Komite Semester Genap 2026/2027" ||
		ps[1].Month != plans.MonthOf(2027, 1) || ps[1].Months != 6 {
		t.Fatalf("semesters: %+v", ps)
	}

	f = plans.Form{Name: "Uang Pangkal 2026", AccountCode: "SPP", Amount: "6.000.000", Frequency: "once", From: "2026-07",
		DueDay: "15", ExpiryDays: "30", Instalments: "3"}
	p, probs = f.Parse([]string{"SPP"})
	if len(probs) > 0 || p.To != plans.MonthOf(2026, 9) {
		t.Fatalf("instalments: %v, to %s", probs, p.To)
	}
	if ps := p.Periods(); len(ps) != 3 || ps[1].Name != "Uang Pangkal 2026, cicilan 2/3" || ps[1].Due.Format("2006-01-02") != "2026-08-15" {
		t.Fatalf("instalments: %+v", ps)
	}
}

func TestFormProblems(t *testing.T) {
	for _, c := range []struct {
		f      plans.Form
		fields []string
	}{
		{plans.Form{}, []string{"name", "account_code", "amount", "frequency", "due_day", "expiry_days", "from", "to"}},
		{plans.Form{Name: "SPP", Code: "spp 26!", AccountCode: "XYZ", Amount: "350", Penalty: "-1", Frequency: "weekly",
			From: "2026-13", To: "juli", DueDay: "32", ExpiryDays: "400", Instalments: "2"},
			[]string{"code", "account_code", "penalty_amount", "frequency", "from", "to", "due_day", "expiry_days"}},
		{plans.Form{Name: "SPP", AccountCode: "SPP", Amount: "1", Frequency: "monthly", From: "2026-07", To: "2026-06", DueDay: "1",
			ExpiryDays: "0", Instalments: "3"}, []string{"to", "instalments"}},
		{plans.Form{Name: "SPP", AccountCode: "SPP", Amount: "1", Frequency: "monthly", From: "2026-01", To: "2029-12", DueDay: "1",
			ExpiryDays: "0"}, []string{"to"}},
		{plans.Form{Name: "UP", AccountCode: "SPP", Amount: "1", Frequency: "once", From: "2026-07", To: "2026-08", DueDay: "1",
			ExpiryDays: "0", Instalments: "3"}, []string{"to"}},
		{plans.Form{Name: "SPP", AccountCode: "SPP", Amount: "1", Frequency: "monthly", From: "2026-07", To: "2026-08", DueDay: "1",
			ExpiryDays: "0", Rates: []plans.RateForm{{For: "8", Amount: "2"}, {For: "VIII", Amount: "3"}, {For: "", Amount: "4"}, {}}},
			[]string{"rate_for.1", "rate_for.2"}},
	} {
		_, probs := c.f.Parse([]string{"SPP"})
		for _, field := range c.fields {
			if !probs.Has(field) {
				t.Errorf("%+v: no problem with %s (%v)", c.f, field, probs)
			}
		}
		if len(c.fields) > 0 && len(probs) == 0 {
			t.Errorf("%+v: no problem", c.f)
		}
	}
	ok := plans.Form{Name: "SPP", AccountCode: "SPP", Amount: "1", Frequency: "monthly", From: "2026-07", To: "2026-08", DueDay: "1",
		ExpiryDays: "0", Rates: []plans.RateForm{{For: "Kelas 8", Amount: "2"}, {For: "kelas  8A", Amount: "3"}, {}}}
	p, probs := ok.Parse([]string{"SPP"})
	if len(probs) > 0 || len(p.Rates) != 2 || p.Rates[0].Scope != plans.ScopeGrade || p.Rates[0].Target != "8" ||
		p.Rates[1].Scope != plans.ScopeClass || p.Rates[1].Target != "kelas 8A" {
		t.Fatalf("rates: %+v %v", p.Rates, probs)
	}
	for class, want := range map[string]int64{"Kelas 8A": 3, "KELAS 8A": 3, "Kelas 8B": 2, "VIII C": 2, "Kelas 7A": 1, "": 1} {
		if got, _ := p.PriceFor(class); got != want {
			t.Errorf("price for %q: %d, want %d", class, got, want)
		}
	}
}

func TestDiscountForm(t *testing.T) {
	known := map[string]bool{"p1": true}
	d, probs := plans.DiscountForm{Plan: "p1", Kind: "percent", Value: "12,5", Reason: "sibling", From: "2026-07"}.Parse("07000", known)
	if len(probs) > 0 || d.Value != 1250 || d.Reason != plans.Sibling || d.From != plans.MonthOf(2026, 7) || !d.To.IsZero() {
		t.Fatalf("%+v %v", d, probs)
	}
	d, probs = plans.DiscountForm{Kind: "amount", Value: "Rp 100.000", Reason: "  anak   yatim "}.Parse("07000", known)
	if len(probs) > 0 || d.Value != 100_000 || d.Reason != plans.Other || d.Note != "anak yatim" {
		t.Fatalf("free words: %+v %v", d, probs)
	}
	_, probs = plans.DiscountForm{Kind: "amount", Value: "1", Reason: "other", From: "2027-01", To: "2026-12", Note: strings.Repeat("x", 201)}.Parse("07000", known)
	for _, f := range []string{"to", "note"} {
		if !probs.Has(f) {
			t.Errorf("no problem with %s: %v", f, probs)
		}
	}
}
