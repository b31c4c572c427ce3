package corrections_test

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/internal/corrections"
)

// TestSplitsProperties: for any amount and any number of parts, the parts add up to the
// amount exactly, none is zero or negative (the amount being at least the parts), every
// part but the last is the same and the remainder is on the last (less than one rounding
// unit per part above the others).
func TestSplitsProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(26, 1))
	amounts := []int64{2, 3, 11, 999, 1000, 1001, 6_000_000, 1_000_000, 350_000, 1_234_567, 999_999_999_999}
	for range 20000 {
		amounts = append(amounts, 1+rng.Int64N(50_000_000))
	}
	for _, total := range amounts {
		for n := corrections.MinParts; n <= corrections.MaxParts; n++ {
			if total < int64(n) {
				continue
			}
			parts := corrections.Splits(total, n)
			if len(parts) != n {
				t.Fatalf("Splits(%d, %d): %d parts", total, n, len(parts))
			}
			var sum int64
			for i, p := range parts {
				sum += p
				if p <= 0 {
					t.Fatalf("Splits(%d, %d): part %d is %d", total, n, i+1, p)
				}
				if i < n-1 && p != parts[0] {
					t.Fatalf("Splits(%d, %d): part %d is %d, the first %d", total, n, i+1, p, parts[0])
				}
			}
			if sum != total {
				t.Fatalf("Splits(%d, %d) = %v adds up to %d", total, n, parts, sum)
			}
			unit := int64(1)
			if total%1000 == 0 && total/int64(n) >= 1000 {
				unit = 1000
			}
			if extra := parts[n-1] - parts[0]; extra < 0 || extra >= int64(n)*unit {
				t.Fatalf("Splits(%d, %d) = %v: the last is not the first plus the remainder", total, n, parts)
			}
		}
	}
	if got := corrections.Splits(6_000_000, 3); got[0] != 2_000_000 || got[2] != 2_000_000 {
		t.Errorf("Rp 6.000.000 in 3: %v", got)
	}
	if got := corrections.Splits(1_000_000, 3); got[0] != 333_000 || got[1] != 333_000 || got[2] != 334_000 {
		t.Errorf("Rp 1.000.000 in 3: %v", got)
	}
	if got := corrections.Splits(1_000, 3); got[0] != 333 || got[2] != 334 {
		t.Errorf("Rp 1.000 in 3: %v", got)
	}
}

// TestMonthlyDues: a month apart, ascending, the day kept or the month's last.
func TestMonthlyDues(t *testing.T) {
	t.Parallel()
	got := corrections.MonthlyDues(time.Date(2027, 1, 31, 0, 0, 0, 0, time.UTC), 4)
	want := []string{"2027-01-31", "2027-02-28", "2027-03-31", "2027-04-30"}
	for i, d := range got {
		if d.Format(time.DateOnly) != want[i] {
			t.Errorf("due %d: %s, want %s", i+1, d.Format(time.DateOnly), want[i])
		}
	}
	got = corrections.MonthlyDues(time.Date(2026, 11, 15, 0, 0, 0, 0, time.UTC), 3)
	if got[2].Format(time.DateOnly) != "2027-01-15" {
		t.Errorf("over the year's end: %v", got)
	}
}

// TestPlanSplitProperties: whatever the original (amount, penalty, days, a long name and
// long notes) and whatever the parts and the first due day, the plan's parts add up to
// the amount and the penalty, none is zero or negative, the remainder is on the last,
// the due days ascend, each part can be paid as long after its due day as the original
// could, names and notes fit the component rules, and each part's notes carry its key.
func TestPlanSplitProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(26, 2))
	base := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3000 {
		amount := 12 + rng.Int64N(20_000_000)
		if i%3 == 0 {
			amount = amount / 1000 * 1000
		}
		due := base.AddDate(0, 0, rng.IntN(300))
		orig := billing.Bill{ComponentID: "c" + strconv.Itoa(i), NIS: "2601", AccountCode: "SPP",
			Name: strings.Repeat("Uang Pangkal ", 1+rng.IntN(9)), Amount: amount, Penalty: rng.Int64N(200_000),
			Due: due, Expiry: due.AddDate(0, 0, rng.IntN(200)), State: billing.StateProvisioned,
			Notes: strings.Repeat("catatan ", rng.IntN(40))}
		n := corrections.MinParts + rng.IntN(corrections.MaxParts-corrections.MinParts+1)
		first := base.AddDate(0, 0, rng.IntN(400))
		s, probs := corrections.PlanSplit(orig, corrections.SplitForm{Parts: strconv.Itoa(n), FirstDue: first.Format(time.DateOnly),
			Reason: "permintaan orang tua"})
		if len(probs) > 0 {
			t.Fatalf("%+v in %d: %v", orig, n, probs)
		}
		var sum, penalties int64
		for k, p := range s.Parts {
			sum += p.Amount
			penalties += p.Penalty
			if p.Amount <= 0 || p.Penalty < 0 {
				t.Fatalf("part %d of %d: amount %d, penalty %d", k+1, n, p.Amount, p.Penalty)
			}
			if k > 0 && !p.Due.After(s.Parts[k-1].Due) {
				t.Fatalf("part %d due %s, not after %s", k+1, p.Due, s.Parts[k-1].Due)
			}
			if k < n-1 && p.Amount > s.Parts[n-1].Amount {
				t.Fatalf("part %d is %d, more than the last %d", k+1, p.Amount, s.Parts[n-1].Amount)
			}
			if got := p.Expiry.Sub(p.Due); got != orig.Expiry.Sub(orig.Due) {
				t.Fatalf("part %d: %s between due and expiry, the original %s", k+1, got, orig.Expiry.Sub(orig.Due))
			}
			if utf8.RuneCountInString(p.Name) > component.MaxNameLen || utf8.RuneCountInString(p.Notes) > component.MaxNotesLen {
				t.Fatalf("part %d: name %d, notes %d characters", k+1, utf8.RuneCountInString(p.Name), utf8.RuneCountInString(p.Notes))
			}
			if key, ok := corrections.PartOf(p.Notes); !ok || key.Original != orig.ComponentID || key.Part != k+1 || key.Of != n {
				t.Fatalf("part %d's notes %q read as %+v", k+1, p.Notes, key)
			}
			if !strings.HasSuffix(p.Name, ", cicilan "+strconv.Itoa(k+1)+"/"+strconv.Itoa(n)) || p.NIS != orig.NIS || p.AccountCode != orig.AccountCode {
				t.Fatalf("part %d: %+v", k+1, p)
			}
		}
		if sum != orig.Amount || penalties != orig.Penalty || s.Total() != orig.Amount {
			t.Fatalf("%d parts of %d (penalty %d) add up to %d (penalty %d)", n, orig.Amount, orig.Penalty, sum, penalties)
		}
	}
}

// TestPlanSplitRules: what the form refuses, each on its field.
func TestPlanSplitRules(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 8, 10, 0, 0, 0, 0, time.UTC)
	orig := billing.Bill{ComponentID: "up", NIS: "2601", AccountCode: "SPP", Name: "Uang Pangkal", Amount: 6_000_000,
		Due: due, Expiry: due.AddDate(0, 1, 0), State: billing.StateProvisioned}
	paid := orig
	paid.State = billing.StatePaid
	part := orig
	part.Notes = corrections.PartKey("x", 1, 3)
	ok := corrections.SplitForm{Parts: "3", FirstDue: "10/08/2026", Reason: "permintaan orang tua"}
	for _, c := range []struct {
		name  string
		orig  billing.Bill
		form  func(f *corrections.SplitForm)
		field string
	}{
		{"one part", orig, func(f *corrections.SplitForm) { f.Parts = "1" }, corrections.FieldParts},
		{"thirteen", orig, func(f *corrections.SplitForm) { f.Parts = "13" }, corrections.FieldParts},
		{"not a number", orig, func(f *corrections.SplitForm) { f.Parts = "tiga" }, corrections.FieldParts},
		{"no first due", orig, func(f *corrections.SplitForm) { f.FirstDue = "" }, corrections.FieldFirstDue},
		{"bad first due", orig, func(f *corrections.SplitForm) { f.FirstDue = "31/02/2026" }, corrections.FieldFirstDue},
		{"no reason", orig, func(f *corrections.SplitForm) { f.Reason = " " }, corrections.FieldReason},
		{"dates not ascending", orig, func(f *corrections.SplitForm) { f.Dues = []string{"2026-08-10", "2026-08-10", "2026-10-10"} }, corrections.DueField(2)},
		{"a typed date missing", orig, func(f *corrections.SplitForm) { f.Dues = []string{"2026-08-10", "", "2026-10-10"} }, corrections.DueField(2)},
		{"paid", paid, func(*corrections.SplitForm) {}, corrections.FieldComponent},
		{"a part already", part, func(*corrections.SplitForm) {}, corrections.FieldComponent},
		{"changed since the preview", orig, func(f *corrections.SplitForm) { f.Amount = "5000000" }, corrections.FieldAmount},
	} {
		f := ok
		c.form(&f)
		if _, probs := corrections.PlanSplit(c.orig, f); !probs.Has(c.field) {
			t.Errorf("%s: problems %v, want one on %s", c.name, probs, c.field)
		}
	}
	small := orig
	small.Amount = 2
	if _, probs := corrections.PlanSplit(small, ok); !probs.Has(corrections.FieldParts) {
		t.Errorf("Rp 2 in 3 parts: %v", probs)
	}
	// Typed days are kept as typed; the preview's amount matching is fine.
	f := ok
	f.Dues, f.Amount = []string{"2026-08-10", "2026-09-01", "2026-12-24"}, "6000000"
	s, probs := corrections.PlanSplit(orig, f)
	if len(probs) > 0 || s.Parts[1].Due.Format(time.DateOnly) != "2026-09-01" || s.Parts[2].Expiry.Format(time.DateOnly) != "2027-01-24" {
		t.Errorf("typed days: %v %+v", probs, s.Parts)
	}
}

// TestInstalmentKeys: the keys read back, and the notes a page shows leave them out.
func TestInstalmentKeys(t *testing.T) {
	t.Parallel()
	notes := "TA 2026/2027 " + corrections.PartKey("0f3a-77", 2, 3)
	if p, ok := corrections.PartOf(notes); !ok || p.Original != "0f3a-77" || p.Part != 2 || p.Of != 3 || p.Restored {
		t.Errorf("part key: %+v %v", p, ok)
	}
	if p, ok := corrections.PartOf("x " + corrections.RestoredKey("0f3a-77")); !ok || !p.Restored || p.Original != "0f3a-77" {
		t.Errorf("restored key: %+v %v", p, ok)
	}
	if _, ok := corrections.PartOf("cicilan 2/3 dibayar tunai"); ok {
		t.Error("free text read as a key")
	}
	if got := corrections.PlainNotes(notes); got != "TA 2026/2027" {
		t.Errorf("plain notes: %q", got)
	}
	if got := corrections.OriginalName(corrections.PartName("Uang Pangkal", 2, 3), 2, 3); got != "Uang Pangkal" {
		t.Errorf("original name: %q", got)
	}
}
