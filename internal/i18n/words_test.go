package i18n

import (
	"math"
	"testing"
)

func TestTerbilang(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "nol"},
		{1, "satu"},
		{7, "tujuh"},
		{10, "sepuluh"},
		{11, "sebelas"},
		{12, "dua belas"},
		{19, "sembilan belas"},
		{20, "dua puluh"},
		{21, "dua puluh satu"},
		{99, "sembilan puluh sembilan"},
		{100, "seratus"},
		{101, "seratus satu"},
		{111, "seratus sebelas"},
		{200, "dua ratus"},
		{999, "sembilan ratus sembilan puluh sembilan"},
		{1_000, "seribu"},
		{1_001, "seribu satu"},
		{1_100, "seribu seratus"},
		{1_111, "seribu seratus sebelas"},
		{2_000, "dua ribu"},
		{10_000, "sepuluh ribu"},
		{11_000, "sebelas ribu"},
		{100_000, "seratus ribu"},
		{101_000, "seratus satu ribu"},
		{111_000, "seratus sebelas ribu"},
		{250_000, "dua ratus lima puluh ribu"},
		{1_000_000, "satu juta"},
		{1_001_000, "satu juta seribu"},
		{1_250_000, "satu juta dua ratus lima puluh ribu"},
		{1_350_000, "satu juta tiga ratus lima puluh ribu"},
		{2_011_115, "dua juta sebelas ribu seratus lima belas"},
		{10_000_000, "sepuluh juta"},
		{100_000_000, "seratus juta"},
		{1_000_000_000, "satu miliar"},
		{1_000_001_000, "satu miliar seribu"},
		{1_000_000_000_000, "satu triliun"},
		{999_999_999_999, "sembilan ratus sembilan puluh sembilan miliar sembilan ratus sembilan puluh sembilan juta sembilan ratus sembilan puluh sembilan ribu sembilan ratus sembilan puluh sembilan"},
		{-5_000, "minus lima ribu"},
		{math.MaxInt64, "sembilan kuintiliun dua ratus dua puluh tiga kuadriliun tiga ratus tujuh puluh dua triliun tiga puluh enam miliar delapan ratus lima puluh empat juta tujuh ratus tujuh puluh lima ribu delapan ratus tujuh"},
	}
	for _, tt := range tests {
		if got := Terbilang(tt.in); got != tt.want {
			t.Errorf("Terbilang(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNumberInEnglish(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "zero"},
		{1, "one"},
		{11, "eleven"},
		{15, "fifteen"},
		{20, "twenty"},
		{21, "twenty-one"},
		{100, "one hundred"},
		{115, "one hundred fifteen"},
		{1_000, "one thousand"},
		{1_001, "one thousand one"},
		{11_000, "eleven thousand"},
		{250_000, "two hundred fifty thousand"},
		{1_000_000, "one million"},
		{1_250_000, "one million two hundred fifty thousand"},
		{2_011_115, "two million eleven thousand one hundred fifteen"},
		{1_000_000_000, "one billion"},
		{1_000_000_000_000, "one trillion"},
		{-75, "minus seventy-five"},
		{math.MinInt64, "minus nine quintillion two hundred twenty-three quadrillion three hundred seventy-two trillion thirty-six billion eight hundred fifty-four million seven hundred seventy-five thousand eight hundred eight"},
	}
	for _, tt := range tests {
		if got := NumberInEnglish(tt.in); got != tt.want {
			t.Errorf("NumberInEnglish(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestAmountInWords(t *testing.T) {
	if got := NewPrinter(Indonesian, nil).AmountInWords(1_250_000); got != "satu juta dua ratus lima puluh ribu rupiah" {
		t.Errorf("id: %q", got)
	}
	if got := NewPrinter(English, nil).AmountInWords(1_250_000); got != "one million two hundred fifty thousand rupiah" {
		t.Errorf("en: %q", got)
	}
}
