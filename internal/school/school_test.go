package school_test

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/school"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
)

func TestCheckProfile(t *testing.T) {
	t.Parallel()
	good := school.Input{Name: "  SMP   Nusantara ", Address: " Jl. Merdeka 1 \r\n\r\n  Bandung  ", NPSN: "2021 2345", Phone: "(022) 123-4567",
		ReceiptFooter: "Terima kasih.", ReceiptPattern: " KW/{YYYY}/{MM}/{seq} "}
	p, l := school.Check(good)
	if len(l) > 0 {
		t.Fatalf("good profile: %v", l.Keys())
	}
	if p.Name != "SMP Nusantara" || p.Address != "Jl. Merdeka 1\nBandung" || p.NPSN != "20212345" || p.ReceiptPattern != "KW/{YYYY}/{MM}/{seq}" {
		t.Fatalf("cleaned = %+v", p)
	}
	tests := []struct {
		name string
		edit func(*school.Input)
		want string
	}{
		{"no name", func(in *school.Input) { in.Name = " " }, "name=form.required"},
		{"long name", func(in *school.Input) { in.Name = strings.Repeat("a", school.MaxName+1) }, "name=form.too_long"},
		{"npsn letters", func(in *school.Input) { in.NPSN = "2021234A" }, "npsn=school.err.npsn"},
		{"npsn short", func(in *school.Input) { in.NPSN = "1234567" }, "npsn=school.err.npsn"},
		{"phone letters", func(in *school.Input) { in.Phone = "call us" }, "phone=school.err.phone"},
		{"phone short", func(in *school.Input) { in.Phone = "123" }, "phone=school.err.phone"},
		{"pattern without seq", func(in *school.Input) { in.ReceiptPattern = "KW/{YYYY}" }, "receipt_pattern=school.err.pattern_seq"},
		{"pattern two seq", func(in *school.Input) { in.ReceiptPattern = "{seq}-{seq}" }, "receipt_pattern=school.err.pattern_seq"},
		{"pattern unknown token", func(in *school.Input) { in.ReceiptPattern = "KW/{YEAR}/{seq}" }, "receipt_pattern=school.err.pattern_token"},
		{"pattern space", func(in *school.Input) { in.ReceiptPattern = "KW {seq}" }, "receipt_pattern=school.err.pattern_chars"},
		{"pattern leading slash", func(in *school.Input) { in.ReceiptPattern = "/{seq}" }, "receipt_pattern=school.err.pattern_chars"},
		{"pattern too long", func(in *school.Input) { in.ReceiptPattern = strings.Repeat("K", 36) + "{seq}" }, "receipt_pattern=school.err.pattern_long"},
	}
	for _, tt := range tests {
		in := good
		tt.edit(&in)
		if _, l := school.Check(in); !slices.Contains(l.Keys(), tt.want) {
			t.Errorf("%s: problems %v, want %s", tt.name, l.Keys(), tt.want)
		}
	}
	if _, l := school.Check(school.Input{Name: "SD 1"}); len(l) > 0 {
		t.Errorf("a name alone is a profile: %v", l.Keys())
	}
}

func TestPattern(t *testing.T) {
	t.Parallel()
	p, err := school.ParsePattern("KW/{YYYY}/{MM}/{seq}")
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 5, 0, 0, 0, 0, time.UTC)
	if got := p.Render(day, 7); got != "KW/2026/11/0007" {
		t.Errorf("render = %q", got)
	}
	if got := p.Render(day, 12345); got != "KW/2026/11/12345" {
		t.Errorf("render past 9999 = %q", got)
	}
	if got := p.Scope(day); got != "KW/2026/11/{seq}" {
		t.Errorf("scope = %q", got)
	}
	for ref, want := range map[string]int64{"KW/2026/11/0042": 42, "kw/2026/11/42": 42, "KW/2026/12/0042": 0, "KW/2026/11/": 0, "KW/2026/11/0000": 0, "X-KW/2026/11/0001": 0} {
		if n, ok := p.Match(ref, day); n != want || ok != (want > 0) {
			t.Errorf("Match(%q) = %d %v, want %d", ref, n, ok, want)
		}
	}
	short, _ := school.ParsePattern("{YY}{MM}{DD}-{seq}")
	if got := short.Render(day, 3); got != "261105-0003" {
		t.Errorf("short = %q", got)
	}
}

func TestReceiptSuggestions(t *testing.T) {
	t.Parallel()
	db := storetest.OpenTest(t)
	now := time.Date(2026, 11, 30, 16, 30, 0, 0, time.UTC) // 23:30 in Jakarta, still November
	s := &school.Service{DB: db, Clock: clock.New(func() time.Time { return now }, i18n.Jakarta())}
	ctx := t.Context()
	if got, err := s.SuggestReceipt(ctx); err != nil || got != "" {
		t.Fatalf("no pattern: %q %v", got, err)
	}
	if _, err := s.Save(ctx, auth.Actor{Username: "admin", Role: auth.Admin}, school.Input{Name: "SMP 1", ReceiptPattern: "KW/{YYYY}/{MM}/{seq}"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.SuggestReceipt(ctx); got != "KW/2026/11/0001" {
		t.Fatalf("first = %q", got)
	}
	// Looking does not use a number; paying does, also with a number typed by hand.
	if got, _ := s.SuggestReceipt(ctx); got != "KW/2026/11/0001" {
		t.Fatalf("second look = %q", got)
	}
	for _, ref := range []string{"KW/2026/11/0001", "KW/2026/11/0005", "KW/2026/11/0003", "BANK-77"} {
		if err := s.ReceiptUsed(ctx, ref); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := s.SuggestReceipt(ctx); got != "KW/2026/11/0006" {
		t.Fatalf("after payments = %q", got)
	}
	now = now.Add(time.Hour) // 00:30 on 1 December in Jakarta: a new month starts at 1
	if got, _ := s.SuggestReceipt(ctx); got != "KW/2026/12/0001" {
		t.Fatalf("new month = %q", got)
	}
	es, _, _ := db.ListAudit(ctx, store.AuditFilter{Action: school.ActionProfile})
	if len(es) != 1 || es[0].Args["name"] != "SMP 1" {
		t.Fatalf("profile change audited as %+v", es)
	}
}

func TestCheckLogo(t *testing.T) {
	t.Parallel()
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	img.Set(1, 1, color.RGBA{200, 10, 10, 255})
	var pngBuf, jpgBuf bytes.Buffer
	if err := png.Encode(&pngBuf, img); err != nil {
		t.Fatal(err)
	}
	if err := jpeg.Encode(&jpgBuf, img, nil); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		data []byte
		ct   string
		key  string
	}{
		{"png", pngBuf.Bytes(), "image/png", ""},
		{"jpeg", jpgBuf.Bytes(), "image/jpeg", ""},
		{"empty", nil, "", "school.err.logo_empty"},
		{"gif", []byte("GIF89a\x01\x00\x01\x00"), "", "school.err.logo_type"},
		{"svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`), "", "school.err.logo_type"},
		{"png header only", []byte("\x89PNG\r\n\x1a\nnot really"), "", "school.err.logo_broken"},
		{"too big", append(bytes.Clone(pngBuf.Bytes()), make([]byte, school.MaxLogoBytes)...), "", "school.err.logo_size"},
	} {
		ct, p := school.CheckLogo(tt.data)
		key := ""
		if p != nil {
			key = p.Key
		}
		if ct != tt.ct || key != tt.key {
			t.Errorf("%s: %q %q, want %q %q", tt.name, ct, key, tt.ct, tt.key)
		}
	}
}

func TestDemoProfileOnce(t *testing.T) {
	t.Parallel()
	db := storetest.OpenTest(t)
	s := &school.Service{DB: db, Clock: clock.System(i18n.Jakarta())}
	ctx := t.Context()
	if made, err := s.EnsureDemoProfile(ctx); err != nil || !made {
		t.Fatalf("first: %v %v", made, err)
	}
	p, _ := db.SchoolProfile(ctx)
	if p.Name == "" || p.ReceiptPattern == "" {
		t.Fatalf("demo profile = %+v", p)
	}
	// The admin clears it: it stays cleared.
	if _, err := s.Save(ctx, auth.Actor{Username: "admin"}, school.Input{Name: "SD Kita"}); err != nil {
		t.Fatal(err)
	}
	if made, err := s.EnsureDemoProfile(ctx); err != nil || made {
		t.Fatalf("second: %v %v", made, err)
	}
	if p, _ := db.SchoolProfile(ctx); p.Name != "SD Kita" {
		t.Fatalf("the demo overwrote the school's profile: %+v", p)
	}
}

func TestCheckLetterFields(t *testing.T) {
	t.Parallel()
	good := school.Input{Name: "SMP 1", City: "  Bandung ", BursarName: " Siti  Aminah, S.E. ", BursarNIP: "19870315 201001 2 008",
		PrincipalName: "Drs. H. Ahmad Fauzi, M.Pd.", PrincipalNIP: "196805121994031004", LetterPattern: "{seq}/KEU/{MMR}/{YYYY}"}
	p, l := school.Check(good)
	if len(l) > 0 {
		t.Fatalf("good letter fields: %v", l.Keys())
	}
	if p.City != "Bandung" || p.BursarName != "Siti Aminah, S.E." || p.BursarNIP != "198703152010012008" || p.LetterPattern != "{seq}/KEU/{MMR}/{YYYY}" {
		t.Fatalf("cleaned = %+v", p)
	}
	for _, tt := range []struct {
		name string
		edit func(*school.Input)
		want string
	}{
		{"nip letters", func(in *school.Input) { in.BursarNIP = "NIP 1987" }, "bursar_nip=school.err.nip"},
		{"nip short", func(in *school.Input) { in.PrincipalNIP = "1234567" }, "principal_nip=school.err.nip"},
		{"nip without a name", func(in *school.Input) { in.PrincipalName = "" }, "principal_nip=school.err.nip_without_name"},
		{"long name", func(in *school.Input) { in.BursarName = strings.Repeat("a", school.MaxPerson+1) }, "bursar_name=form.too_long"},
		{"long city", func(in *school.Input) { in.City = strings.Repeat("a", school.MaxCity+1) }, "city=form.too_long"},
		{"letter pattern", func(in *school.Input) { in.LetterPattern = "{seq}/{BULAN}" }, "letter_pattern=school.err.pattern_token"},
	} {
		in := good
		tt.edit(&in)
		if _, l := school.Check(in); !slices.Contains(l.Keys(), tt.want) {
			t.Errorf("%s: problems %v, want %s", tt.name, l.Keys(), tt.want)
		}
	}
}

// Letter numbers: consecutive per set, the same set printed again keeps its numbers, the
// month in Roman numerals and by the school's date.
func TestLetterNumbers(t *testing.T) {
	t.Parallel()
	db := storetest.OpenTest(t)
	now := time.Date(2026, 11, 30, 18, 30, 0, 0, time.UTC) // 01:30 on 1 December in Jakarta
	s := &school.Service{DB: db, Clock: clock.New(func() time.Time { return now }, i18n.Jakarta())}
	ctx := t.Context()
	got, err := s.LetterNumbers(ctx, "bill", []string{"1001", "1002", "1003"})
	if err != nil || !slices.Equal(got, []string{"0001/KEU/XII/2026", "0002/KEU/XII/2026", "0003/KEU/XII/2026"}) {
		t.Fatalf("default pattern: %v %v", got, err)
	}
	if again, _ := s.LetterNumbers(ctx, "bill", []string{"1001", "1002", "1003"}); !slices.Equal(again, got) {
		t.Fatalf("printed again: %v", again)
	}
	if other, _ := s.LetterNumbers(ctx, "reminder", []string{"1001"}); !slices.Equal(other, []string{"0004/KEU/XII/2026"}) {
		t.Fatalf("another set: %v", other)
	}
	if _, err := s.Save(ctx, auth.Actor{Username: "admin", Role: auth.Admin}, school.Input{Name: "SMP 1", LetterPattern: "421/{seq}/SMP/{MMR}/{YYYY}"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.LetterNumbers(ctx, "bill", []string{"1001"}); !slices.Equal(got, []string{"421/0001/SMP/XII/2026"}) {
		t.Fatalf("the school's pattern: %v", got)
	}
}
