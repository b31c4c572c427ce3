package i18n

import "strings"

// Amounts in words, as a receipt writes them under the figure so nobody can add a digit:
// "satu juta dua ratus lima puluh ribu rupiah" (terbilang) and "one million two hundred
// fifty thousand rupiah". Both are lower case; a page capitalises the first letter where
// a sentence starts.

var (
	idDigits = [10]string{"nol", "satu", "dua", "tiga", "empat", "lima", "enam", "tujuh", "delapan", "sembilan"}
	// idScales are the names of 1000^i; Indonesian says "miliar" where English says billion.
	idScales = [...]string{"", "ribu", "juta", "miliar", "triliun", "kuadriliun", "kuintiliun"}

	enOnes = [20]string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"}
	enTens   = [10]string{"", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}
	enScales = [...]string{"", "thousand", "million", "billion", "trillion", "quadrillion", "quintillion"}
)

// Terbilang says a whole number in Indonesian words: 0 "nol", 11 "sebelas", 100
// "seratus", 1000 "seribu" (the se- forms for one ten, hundred and thousand), 1.000.000
// "satu juta", 2.011.115 "dua juta sebelas ribu seratus lima belas".
func Terbilang(v int64) string {
	if v == 0 {
		return idDigits[0]
	}
	var words []string
	if v < 0 {
		words = append(words, "minus")
	}
	groups := thousands(absU(v))
	for i := len(groups) - 1; i >= 0; i-- {
		g := groups[i]
		switch {
		case g == 0:
			continue
		case g == 1 && i == 1:
			words = append(words, "seribu") // one thousand is "seribu", never "satu ribu"
			continue
		}
		words = append(words, idHundreds(g)...)
		if idScales[i] != "" {
			words = append(words, idScales[i])
		}
	}
	return strings.Join(words, " ")
}

// idHundreds says 1..999.
func idHundreds(n int) []string {
	var w []string
	switch h := n / 100; {
	case h == 1:
		w = append(w, "seratus")
	case h > 1:
		w = append(w, idDigits[h], "ratus")
	}
	switch r := n % 100; {
	case r == 0:
	case r < 10:
		w = append(w, idDigits[r])
	case r == 10:
		w = append(w, "sepuluh")
	case r == 11:
		w = append(w, "sebelas")
	case r < 20:
		w = append(w, idDigits[r-10], "belas")
	default:
		w = append(w, idDigits[r/10], "puluh")
		if r%10 != 0 {
			w = append(w, idDigits[r%10])
		}
	}
	return w
}

// NumberInEnglish says a whole number in English words, without "and" (the way amounts
// are written on Indonesian receipts in English): 2.011.115 "two million eleven thousand
// one hundred fifteen".
func NumberInEnglish(v int64) string {
	if v == 0 {
		return enOnes[0]
	}
	var words []string
	if v < 0 {
		words = append(words, "minus")
	}
	groups := thousands(absU(v))
	for i := len(groups) - 1; i >= 0; i-- {
		g := groups[i]
		if g == 0 {
			continue
		}
		if h := g / 100; h > 0 {
			words = append(words, enOnes[h], "hundred")
		}
		switch r := g % 100; {
		case r == 0:
		case r < 20:
			words = append(words, enOnes[r])
		case r%10 == 0:
			words = append(words, enTens[r/10])
		default:
			words = append(words, enTens[r/10]+"-"+enOnes[r%10])
		}
		if enScales[i] != "" {
			words = append(words, enScales[i])
		}
	}
	return strings.Join(words, " ")
}

// AmountInWords says an amount of rupiah in p's language, ending in "rupiah":
// "satu juta dua ratus lima puluh ribu rupiah", "one million two hundred fifty thousand
// rupiah".
func (p Printer) AmountInWords(v int64) string {
	if p.Lang == English {
		return NumberInEnglish(v) + " rupiah"
	}
	return Terbilang(v) + " rupiah"
}

// absU is |v| as an unsigned number, math.MinInt64 included.
func absU(v int64) uint64 {
	if v < 0 {
		return negAbs(v)
	}
	return uint64(v)
}

// thousands splits n into groups of three digits, least significant first.
func thousands(n uint64) []int {
	var g []int
	for n > 0 {
		g = append(g, int(n%1000))
		n /= 1000
	}
	return g
}
