package pages_test

import (
	"testing"

	"github.com/sekolah/portal/views/pages"
)

// The data page's callbacks that disagreed: each with its figures beside the service's,
// a third column only when the reference came again with another body, the differences
// as a list; none listed, a sentence saying so; the waiting callbacks' line with its why.
func TestFlaggedCallbacks(t *testing.T) {
	t.Parallel()
	disputed := pages.FlaggedCallback{Ref: "BNI1", Status: "Tidak sesuai", Disputed: true, Received: "Diterima 22 Nov 2026 10.00",
		Callback:    pages.PaymentSide{Student: "NIS 99999999", Total: "Rp 1", PaidAt: "1 Jan 2099 07.00", Items: "1 tagihan"},
		Service:     pages.PaymentSide{Student: "Budi Santoso (NIS 2024002)", Total: "Rp 40.000", PaidAt: "22 Nov 2026 10.00", Items: "1 tagihan"},
		Differences: []string{"Siswa: notifikasi menyebut NIS 99999999, layanan NIS 2024002.", "Jumlah: notifikasi Rp 1, layanan Rp 40.000."},
		Recorded:    "Yang dicatat portal: data layanan pembayaran."}
	resent := pages.FlaggedCallback{Ref: "BNI2", Status: "Sesuai", Received: "Diterima 22 Nov 2026 10.05",
		Callback:   pages.PaymentSide{Student: "Budi Santoso (NIS 2024002)", Total: "Rp 75.000", PaidAt: "22 Nov 2026 10.05", Items: "1 tagihan"},
		Service:    pages.PaymentSide{Student: "Budi Santoso (NIS 2024002)", Total: "Rp 75.000", PaidAt: "22 Nov 2026 10.05", Items: "1 tagihan"},
		Resent:     &pages.PaymentSide{Student: "Siti Aminah (NIS 2024001)", Total: "Rp 275.000", PaidAt: "22 Nov 2026 10.05", Items: "1 tagihan"},
		ResentNote: "Nomor referensi ini dikirim ulang 1 kali dengan isi lain.", Recorded: "Yang dicatat portal: data layanan pembayaran."}
	doc := render(t, "/settings/data", pages.DataSettingsLive(pages.DataSettingsView{Flagged: []pages.FlaggedCallback{disputed, resent},
		CallbacksFlagged: "1 notifikasi tidak sesuai", CallbacksWaiting: "1 notifikasi menunggu", CallbacksWaitingProblem: "Terakhir ditanyakan 10.01: layanan tidak menjawab."}))
	one := doc.Find(`[data-testid="flagged-callback"][data-ref="BNI1"]`)
	if n := one.Find(`thead th`).Length(); n != 3 {
		t.Errorf("disputed only: %d columns", n)
	}
	if got := billsText(one.Find(`[data-testid="flagged-student"] [data-testid="callback"]`)); got != "NIS 99999999" {
		t.Errorf("the callback's student %q", got)
	}
	if got := billsText(one.Find(`[data-testid="flagged-total"] [data-testid="service"]`)); got != "Rp 40.000" {
		t.Errorf("the service's total %q", got)
	}
	if n := one.Find(`[data-testid="flagged-differences"] li`).Length(); n != 2 {
		t.Errorf("%d differences", n)
	}
	if !one.Find(`[data-testid="flagged-status"]`).HasClass("badge--overdue") || one.Find(`[data-testid="flagged-resent"]`).Length() != 0 {
		t.Error("a disputed callback's badge, or a resend note without a resend")
	}
	two := doc.Find(`[data-testid="flagged-callback"][data-ref="BNI2"]`)
	if n := two.Find(`thead th`).Length(); n != 4 {
		t.Errorf("with a resend: %d columns", n)
	}
	if got := billsText(two.Find(`[data-testid="flagged-student"] [data-testid="resent"]`)); got != "Siti Aminah (NIS 2024001)" {
		t.Errorf("the resend's student %q", got)
	}
	if !two.Find(`[data-testid="flagged-status"]`).HasClass("badge--warning") || two.Find(`[data-testid="flagged-differences"]`).Length() != 0 {
		t.Error("a callback that only came again: its badge, or differences listed")
	}
	if got := billsText(doc.Find(`[data-testid="callbacks-waiting"]`)); got != "1 notifikasi menunggu Terakhir ditanyakan 10.01: layanan tidak menjawab." {
		t.Errorf("waiting %q", got)
	}

	none := render(t, "/settings/data", pages.DataSettingsLive(pages.DataSettingsView{}))
	if none.Find(`[data-testid="callbacks-flagged-none"]`).Length() != 1 || none.Find(`[data-testid="flagged-callback"]`).Length() != 0 ||
		none.Find(`[data-testid="callbacks-waiting"]`).Length() != 0 {
		t.Error("nothing flagged, nothing waiting: the page says otherwise")
	}
}
