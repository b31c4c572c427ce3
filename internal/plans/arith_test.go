package plans

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
)

// roundHalfUp is price × bp / 10000 rounded to the nearest whole, half up, computed
// exactly with rationals: the rule Off is held to.
func roundHalfUp(price, bp int64) int64 {
	r := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(price), big.NewInt(bp)), big.NewInt(Whole))
	r.Add(r, big.NewRat(1, 2))
	return new(big.Int).Quo(r.Num(), r.Denom()).Int64() // floor of a non-negative
}

// randomPrice draws a price the way schools have them: mostly round thousands, sometimes
// odd rupiah, now and then at the limit.
func randomPrice(rng *rand.Rand) int64 {
	switch rng.IntN(4) {
	case 0:
		return rng.Int64N(i18n.MaxRupiah) + 1
	case 1:
		return rng.Int64N(1000) + 1
	}
	return (rng.Int64N(20_000) + 1) * 1000
}

// TestDiscountArithmetic holds the discount's arithmetic to its properties over 200.000
// random prices and discounts: never negative, never above the price, the discount and
// what is charged add up to the price, a percentage rounded to the nearest rupiah (half
// up), larger discounts never take less, and 100% (or an amount at least the price)
// leaves nothing to charge.
func TestDiscountArithmetic(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 2026))
	for i := range 200_000 {
		price := randomPrice(rng)
		var d Discount
		if rng.IntN(2) == 0 {
			d = Discount{Kind: Percent, Value: rng.Int64N(Whole) + 1}
		} else {
			d = Discount{Kind: Amount, Value: rng.Int64N(2*price) + 1}
		}
		off, charged := d.Off(price), d.Charge(price)
		switch {
		case off < 0 || charged < 0:
			t.Fatalf("case %d: %+v of %d: off %d, charged %d: negative", i, d, price, off, charged)
		case off > price:
			t.Fatalf("case %d: %+v of %d: off %d above the price", i, d, price, off)
		case off+charged != price:
			t.Fatalf("case %d: %+v of %d: off %d + charged %d ≠ price", i, d, price, off, charged)
		}
		if d.Kind == Percent {
			if want := roundHalfUp(price, d.Value); off != want {
				t.Fatalf("case %d: %d%% of %d: off %d, want %d", i, d.Value, price, off, want)
			}
			more := Discount{Kind: Percent, Value: min(d.Value+rng.Int64N(100)+1, Whole)}
			if more.Off(price) < off {
				t.Fatalf("case %d: %d bp takes %d off %d, %d bp takes %d", i, d.Value, off, price, more.Value, more.Off(price))
			}
		} else if want := min(d.Value, price); off != want {
			t.Fatalf("case %d: Rp %d off %d: %d", i, d.Value, price, off)
		}
		if (Discount{Kind: Percent, Value: Whole}).Charge(price) != 0 || (Discount{Kind: Amount, Value: price}).Charge(price) != 0 {
			t.Fatalf("case %d: a full discount of %d leaves something to charge", i, price)
		}
	}
}

// TestDiscountRounding: the cases a bursar checks by hand.
func TestDiscountRounding(t *testing.T) {
	for _, c := range []struct {
		kind         DiscountKind
		value, price int64
		off          int64
	}{
		{Percent, 1000, 350_005, 35_001},  // 35.000,5: the half goes to the discount
		{Percent, 1000, 350_004, 35_000},  // 35.000,4
		{Percent, 3333, 100_000, 33_330},  // 33,33%
		{Percent, 1250, 350_001, 43_750},  // 43.750,125
		{Percent, 5000, 375_000, 187_500}, // half of grade 8's SPP
		{Percent, 5000, 1, 1},             // half a rupiah, up
		{Percent, 1, 49, 0},               // 0,0049: nothing
		{Percent, Whole, 6_000_000, 6_000_000},
		{Amount, 100_000, 350_000, 100_000},
		{Amount, 500_000, 350_000, 350_000},
	} {
		d := Discount{Kind: c.kind, Value: c.value}
		if got := d.Off(c.price); got != c.off {
			t.Errorf("%s %d of %d: off %d, want %d", c.kind, c.value, c.price, got, c.off)
		}
	}
}

// TestInstalmentsSplit: a one-time fee's parts add up to it exactly (in thousands when it
// is whole thousands, the remainder on the last: internal/corrections' rule), with or
// without a discount, which is taken off the whole before it is split, and no part is
// charged more than its full share; a 100% discount leaves every part at zero.
func TestInstalmentsSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	for i := range 20_000 {
		n := rng.IntN(MaxInstalments) + 1
		price := randomPrice(rng)
		p := Plan{ID: "p", ItemName: "Uang Pangkal", Frequency: Once, From: MonthOf(2026, 7), Instalments: n, DueDay: 10, Amount: price}
		p.To = p.From.Add(n - 1)
		var ds []Discount
		switch rng.IntN(3) {
		case 0:
			ds = []Discount{{Kind: Percent, Value: rng.Int64N(Whole) + 1}}
		case 1:
			ds = []Discount{{Kind: Amount, Value: rng.Int64N(price) + 1}}
		}
		periods := p.Periods()
		if len(periods) != n {
			t.Fatalf("case %d: %d parts of %d", i, len(periods), n)
		}
		var full, charged int64
		for _, pe := range periods {
			f, c, _ := p.charge("Kelas 7A", pe, ds)
			if f < 0 || c < 0 || c > f {
				t.Fatalf("case %d: part %d/%d of %d: full %d, charged %d", i, pe.Part, n, price, f, c)
			}
			full, charged = full+f, charged+c
		}
		want := price
		if len(ds) > 0 {
			want = ds[0].Charge(price)
		}
		if full != price || charged != want {
			t.Fatalf("case %d: %d parts of %d (discount %v): full %d, charged %d (want %d)", i, n, price, ds, full, charged, want)
		}
	}
	p := Plan{ID: "up", ItemName: "Uang Pangkal", Frequency: Once, From: MonthOf(2026, 7), To: MonthOf(2026, 9), Instalments: 3,
		DueDay: 15, ExpiryDays: 30, Amount: 6_000_000}
	pe := p.Periods()
	if pe[0].Name != "Uang Pangkal, cicilan 1/3" || pe[2].Name != "Uang Pangkal, cicilan 3/3" {
		t.Fatalf("names %q %q", pe[0].Name, pe[2].Name)
	}
	odd := Plan{ID: "up", ItemName: "Uang Pangkal", Frequency: Once, From: MonthOf(2026, 7), To: MonthOf(2026, 9), Instalments: 3, Amount: 1_000_000}
	var parts []int64
	for _, x := range odd.Periods() {
		f, _, _ := odd.charge("", x, nil)
		parts = append(parts, f)
	}
	if parts[0] != 333_000 || parts[1] != 333_000 || parts[2] != 334_000 {
		t.Fatalf("Rp 1.000.000 in three: %v", parts)
	}
	if _, c, d := p.charge("", pe[1], []Discount{{ID: "s", Kind: Percent, Value: Whole}}); c != 0 || d == nil {
		t.Fatalf("a 100%% scholarship charges %d", c)
	}
}

// TestBest: the largest discount applies, a plan's own wins a tie, and one outside its
// months or for another plan does not apply.
func TestBest(t *testing.T) {
	jul, dec := MonthOf(2026, 7), MonthOf(2026, 12)
	all10 := Discount{ID: "a", Kind: Percent, Value: 1000}
	own10 := Discount{ID: "b", PlanID: "spp", Kind: Percent, Value: 1000}
	big := Discount{ID: "c", PlanID: "spp", Kind: Amount, Value: 100_000, From: MonthOf(2026, 8)}
	other := Discount{ID: "d", PlanID: "gedung", Kind: Percent, Value: Whole}
	ds := []Discount{all10, own10, big, other}
	if d, ok := Best(ds, "spp", jul, 350_000); !ok || d.ID != "b" {
		t.Fatalf("July: %+v %v", d, ok)
	}
	if d, ok := Best(ds, "spp", dec, 350_000); !ok || d.ID != "c" {
		t.Fatalf("December: %+v %v", d, ok)
	}
	if d, ok := Best(ds, "pangkal", dec, 350_000); !ok || d.ID != "a" {
		t.Fatalf("another plan: %+v %v", d, ok)
	}
	if _, ok := Best([]Discount{big}, "spp", jul, 350_000); ok {
		t.Fatal("a discount from August applies in July")
	}
}

func TestParsePercent(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"50", 5000, true}, {"12,5", 1250, true}, {"12.5 %", 1250, true}, {"100", Whole, true}, {"0,01", 1, true},
		{"33,33", 3333, true}, {"0", 0, false}, {"100,01", 0, false}, {"12,345", 0, false}, {"-5", 0, false},
		{"lima", 0, false}, {"", 0, false}, {",5", 0, false},
	} {
		var l problem.List
		got := parsePercent(&l, c.in)
		if (len(l) == 0) != c.ok || got != c.want {
			t.Errorf("%q: %d %v", c.in, got, l)
		}
	}
}
