package web_test

import (
	"net/http"
	"strings"
	"testing"
)

func TestBillLetter(t *testing.T) {
	t.Parallel()
	p, _ := startCounter(t)
	c := p.SignedIn(t, "finance")

	res := c.Get("/students/2024001/letter")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("letter: %d", res.StatusCode)
	}
	doc := res.Doc
	if got := billsText(doc.Find(`[data-testid="school-name"]`)); got != "SMP Nusantara" {
		t.Errorf("letterhead %q", got)
	}
	if got := billsText(doc.Find(`[data-testid="letter-to"]`)); got != "Orang tua / wali dari Siti Aminah" {
		t.Errorf("to %q", got)
	}
	rules := doc.Find(`[data-testid="letter-rule"]`)
	if rules.Length() != 2 {
		t.Fatalf("%d lines", rules.Length())
	}
	// SPP Oktober: due 10 Nov, 25.000 late fee, already late; SPP Desember: due 24 Nov.
	if got := billsText(rules.Eq(0)); !strings.Contains(got, "denda Rp 25.000 setelah 10 Nov 2026") || !strings.Contains(got, "batas bayar 31 Des 2026") ||
		!strings.Contains(got, "sudah lewat jatuh tempo") {
		t.Errorf("first rule %q", got)
	}
	if got := billsText(rules.Eq(1)); !strings.Contains(got, "denda Rp 26.000 setelah 24 Nov 2026") || strings.Contains(got, "sudah lewat") {
		t.Errorf("second rule %q", got)
	}
	if got := billsText(doc.Find(`[data-testid="letter-total"]`)); got != "Jumlah bila dibayar hari ini Rp 535.000" {
		t.Errorf("total %q", got)
	}
	if got := billsText(doc.Find(`[data-testid="letter-pay-nis"]`)); got != "2024001" {
		t.Errorf("NIS to pay with %q", got)
	}
	if doc.Find(`[data-print]`).Length() != 1 {
		t.Error("no print button")
	}

	// Expired bills are not asked for; the letter says to contact the school.
	doc = c.Get("/students/2024002/letter").Doc
	if n := doc.Find(`[data-testid="letter-line"]`).Length(); n != 1 || !strings.Contains(billsText(doc.Find(`[data-testid="letter-expired"]`)), "1 tagihan sudah kedaluwarsa") {
		t.Errorf("expired: %d lines, %q", n, billsText(doc.Find(`[data-testid="letter-expired"]`)))
	}
	// Everyone who reads bills may print it; the student page links to it.
	if res := p.SignedIn(t, "principal").Get("/students/2024001/letter"); res.StatusCode != http.StatusOK {
		t.Errorf("principal: %d", res.StatusCode)
	}
	if href := c.Get("/students/2024001").Doc.Find(`[data-testid="student-letter"]`).AttrOr("href", ""); href != "/students/2024001/letter" {
		t.Errorf("student page links to %q", href)
	}
}
