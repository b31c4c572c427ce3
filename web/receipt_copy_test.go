package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestReceiptReprintIsACopy: the receipt shown right after a payment at the counter is
// the original; any other showing of it (a reload, from the student's page where every
// paid item now links to its receipt, by another member of staff, after "perpanjang lalu
// terima") reads SALINAN, in English COPY.
func TestReceiptReprintIsACopy(t *testing.T) {
	t.Parallel()
	p, s := startCounter(t)
	c := p.SignedIn(t, "finance")
	shown := func(step, path string, want string) {
		t.Helper()
		res := c.Get(path)
		if res.StatusCode != http.StatusOK || res.Doc.Find(`[data-testid="receipt"]`).Length() != 1 {
			t.Fatalf("%s: %d, no receipt", step, res.StatusCode)
		}
		if got := billsText(res.Doc.Find(`[data-testid="receipt-copy"] .receipt-copy-mark`)); got != want {
			t.Errorf("%s: the receipt's copy mark reads %q, want %q", step, got, want)
		}
	}
	res := c.Post("/payments", url.Values{"nis": {"2024001"}, "ref": {"KW-1"}, "component": {s.id("SPP Oktober")}, "total": {"275000"}})
	receipt := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(receipt, "/payments/receipt") {
		t.Fatalf("pay: %d to %q", res.StatusCode, receipt)
	}
	shown("right after the payment", receipt, "")
	shown("reloaded", receipt, "SALINAN")

	// From the student's page: the paid item links to its receipt, a copy.
	page := c.Get("/students/2024001")
	link := page.Doc.Find(`[data-testid="bill-receipt"]`)
	if link.Length() != 1 || !strings.Contains(link.Text(), "KW-1") || !strings.Contains(link.Text(), "Cetak ulang kuitansi") {
		t.Fatalf("the student's page offers %d receipt links: %q", link.Length(), link.Text())
	}
	shown("from the student's page", link.AttrOr("href", ""), "SALINAN")
	if other := p.SignedIn(t, "principal").Get(receipt); billsText(other.Doc.Find(`[data-testid="receipt-copy"] .receipt-copy-mark`)) != "SALINAN" {
		t.Error("another person's view of the receipt is not marked a copy")
	}

	// A second payment: its first showing is the original again, not the first's.
	res = c.Post("/payments", url.Values{"nis": {"2024001"}, "ref": {"KW-2"}, "component": {s.id("SPP Desember")}, "total": {"260000"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("second payment: %d", res.StatusCode)
	}
	shown("the first payment's, after a second", receipt, "SALINAN")
	shown("the second payment's, right after it", res.Header.Get("Location"), "")

	// Extended then paid: the same.
	res = c.Post("/payments/extend", url.Values{"nis": {"2024002"}, "component": {s.id("Seragam")}, "until": {"2026-12-31"}, "ref": {"KW-3"}, "total": {"300000"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("extend and pay: %d %s", res.StatusCode, billsText(res.Doc.Find("main")))
	}
	shown("extended and paid, right after", res.Header.Get("Location"), "")
	shown("extended and paid, again", res.Header.Get("Location"), "SALINAN")

	// In English.
	c.Post("/lang", url.Values{"lang": {"en"}})
	shown("in English", receipt, "COPY")
}
