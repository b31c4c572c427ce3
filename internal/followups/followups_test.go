package followups

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
)

func TestWhatsAppNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		phone, want string
		err         error
	}{
		{"0812-3456-7890", "6281234567890", nil},
		{"081234567890", "6281234567890", nil},
		{"+62 812 3456 7890", "6281234567890", nil},
		{"62 812 3456 7890", "6281234567890", nil},
		{"(0812) 3456.7890", "6281234567890", nil},
		{"", "", ErrNoPhone},
		{"   ", "", ErrNoPhone},
		{"(021) 555.1234", "", ErrNotMobile},
		{"+62 21 5551234", "", ErrNotMobile},
		{"0812-ABCD", "", ErrNotMobile},
	}
	for _, tt := range tests {
		got, err := WhatsAppNumber(tt.phone)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("WhatsAppNumber(%q) = %q, %v; want %q, %v", tt.phone, got, err, tt.want, tt.err)
		}
	}
}

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func TestOverdueOfAndMessage(t *testing.T) {
	t.Parallel()
	jakarta := i18n.Jakarta()
	today := time.Date(2026, 11, 23, 9, 0, 0, 0, jakarta)
	bills := []billing.Bill{
		{Name: "SPP Oktober", Amount: 350_000, Penalty: 25_000, Due: day(2026, 10, 10), Expiry: day(2027, 6, 30), State: billing.StateProvisioned},
		{Name: "Buku paket", Amount: 950_000, Penalty: 25_000, Due: day(2026, 11, 1), Expiry: day(2027, 6, 30), State: billing.StateProvisioned},
		{Name: "SPP Desember", Amount: 350_000, Penalty: 25_000, Due: day(2026, 12, 10), Expiry: day(2027, 6, 30), State: billing.StateProvisioned},
		{Name: "Seragam", Amount: 500_000, Due: day(2026, 7, 1), Expiry: day(2026, 8, 1), State: billing.StateProvisioned},
		{Name: "SPP Juli", Amount: 350_000, Due: day(2026, 7, 10), Expiry: day(2027, 6, 30), State: billing.StatePaid},
	}
	o := OverdueOf(store.Student{NIS: "24250081", Name: "Budi Santoso", Phone: "0812-3456-7890"}, bills, today)
	if len(o.Items) != 2 || o.Total != 1_350_000 || o.Penalty != 50_000 {
		t.Fatalf("overdue = %+v", o)
	}
	if o.Items[0].DaysLate != 44 || o.Items[0].Price != 375_000 {
		t.Errorf("first item = %+v", o.Items[0])
	}
	msg := Message(o, "SMP Nusantara")
	for _, want := range []string{
		"Yth. Bapak/Ibu orang tua/wali Budi Santoso,",
		"kami dari SMP Nusantara",
		"Budi Santoso (NIS 24250081)",
		"- SPP Oktober (jatuh tempo 10 Okt 2026, terlambat 44 hari): Rp\u00a0375.000",
		"- Buku paket (jatuh tempo 1 Nov 2026, terlambat 22 hari): Rp\u00a0975.000",
		"Total: Rp\u00a01.350.000 (termasuk denda Rp\u00a050.000)",
		"NIS 24250081",
		"Bagian Keuangan SMP Nusantara",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	for _, not := range []string{"Seragam", "SPP Desember", "SPP Juli"} {
		if strings.Contains(msg, not) {
			t.Errorf("message names %q, which is not overdue:\n%s", not, msg)
		}
	}
	link := WhatsAppURL("6281234567890", msg)
	u, err := url.Parse(link)
	if err != nil || u.Host != "wa.me" || u.Path != "/6281234567890" || u.Query().Get("text") != msg {
		t.Errorf("link %q does not carry the number and the text", link)
	}
}

func TestMessageNamesAFewItems(t *testing.T) {
	t.Parallel()
	o := Overdue{NIS: "1", Name: "Ani", Total: 800_000}
	for range 8 {
		o.Items = append(o.Items, Item{Name: "SPP", Due: day(2026, 9, 10), DaysLate: 3, Price: 100_000})
	}
	msg := Message(o, "")
	if strings.Count(msg, "- SPP") != maxItems || !strings.Contains(msg, "- dan 2 tagihan lainnya") || !strings.Contains(msg, "Total: Rp\u00a0800.000\n") {
		t.Errorf("message:\n%s", msg)
	}
}
