package web_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/portaltest"
)

// The counter as a bursar uses it, on a laptop and on a phone: a parent gives a name; the
// bursar types it, picks the student, ticks two of three items and sees their total, pays,
// and prints a receipt with the school's header, the class, the cashier and the amount in
// words.
func TestBrowserCounterByName(t *testing.T) {
	t.Parallel()
	p, _ := startCounter(t)
	ctx := t.Context()
	if _, err := p.Billing.CreateComponents(ctx, []billing.ComponentInput{
		{NIS: "2024001", AccountCode: "BCA", Name: "Buku paket", Due: billDay("2026-12-20"), Expiry: billDay("2027-01-31"), Amount: 150_000},
		{NIS: "2024003", AccountCode: "SPP", Name: "SPP Desember", Due: billDay("2026-12-10"), Expiry: billDay("2027-01-31"), Amount: 260_000},
		{NIS: "2024003", AccountCode: "BCA", Name: "Buku paket", Due: billDay("2026-12-20"), Expiry: billDay("2027-01-31"), Amount: 150_000},
	}); err != nil {
		t.Fatal(err)
	}
	b := p.NewBrowser(t)
	b.SignIn("finance", portaltest.Password)

	for _, tc := range []struct {
		size       [2]int64
		typed, nis string
		class      string
		tick       [2]string // data-component names to tick
		total      string
		words      string
	}{
		{[2]int64{1366, 768}, "aminah", "2024001", "Kelas 7A", [2]string{"SPP Oktober", "Buku paket"}, "Rp\u00a0425.000",
			"Terbilang: Empat ratus dua puluh lima ribu rupiah"},
		{[2]int64{390, 844}, "dewi", "2024003", "Kelas 9C", [2]string{"SPP Desember", "Buku paket"}, "Rp\u00a0410.000",
			"Terbilang: Empat ratus sepuluh ribu rupiah"},
	} {
		name := "w" + strconv.FormatInt(tc.size[0], 10)
		b.Do(chromedp.EmulateViewport(tc.size[0], tc.size[1]))
		b.Visit("/payments/new")
		b.Type(`#f-q`, tc.typed)
		// The matches arrive as the person types, without pressing anything.
		b.Click(`[data-testid="payment-match"][data-nis="` + tc.nis + `"]`)
		b.WaitVisible(`[data-testid="payment-form"]`)
		if got := b.Text(`[data-testid="payment-class"]`); got != tc.class {
			t.Errorf("%s: class %q", name, got)
		}
		if got := b.Text(`[data-testid="selected-total"]`); got != "Rp\u00a00" {
			t.Errorf("%s: total before ticking %q", name, got)
		}
		for _, item := range tc.tick {
			b.Click(rowBox(b, tc.nis, item))
		}
		b.WaitText(`[data-testid="selected-total"]`, tc.total)
		b.WaitText(`[data-testid="selected-count"]`, "2 tagihan dipilih")
		b.Screenshot("counter-selection-" + name)
		if ref := portaltest.Get(b, chromedp.Value(chromedp.CSS(`#f-ref`))); !strings.HasPrefix(ref, "KW/2026/11/") {
			t.Errorf("%s: suggested receipt number %q", name, ref)
		}
		b.Click(`[data-testid="payment-continue"]`)
		if got := b.Text(`[data-testid="confirm-total"]`); got != tc.total {
			t.Fatalf("%s: the confirmation asks %q, the counter showed %s", name, got, tc.total)
		}
		b.Click(`[data-testid="pay-submit"]`)
		b.WaitVisible(`[data-testid="receipt"]`)
		for sel, want := range map[string]string{
			`[data-testid="school-name"]`:     "SMP Nusantara",
			`[data-testid="receipt-class"]`:   tc.class,
			`[data-testid="receipt-cashier"]`: "Finance Staf",
			`[data-testid="receipt-words"]`:   tc.words,
			`[data-testid="receipt-total"]`:   "Total\n" + tc.total,
		} {
			if got := b.Text(sel); got != want && strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(want), " ") {
				t.Errorf("%s: receipt %s = %q, want %q", name, sel, got, want)
			}
		}
		b.Screenshot("counter-receipt-" + name)
	}
}

// rowBox is the selector of the tick box of the student's component named item.
func rowBox(b *portaltest.Browser, nis, item string) string {
	id := portaltest.Get(b, chromedp.Evaluate[string](`[...document.querySelectorAll('[data-testid="payment-line"]')].find(r => r.querySelector("label").textContent.trim() === `+"`"+item+"`"+`).dataset.component`))
	return `input[name="component"][value="` + id + `"]`
}
