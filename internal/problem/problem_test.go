package problem_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
)

func TestList(t *testing.T) {
	t.Parallel()
	var l problem.List
	if l.Err() != nil {
		t.Fatal("an empty list is not an error")
	}
	l.Add("nis", "form.required")
	l.Add("name", "form.too_long", 150)
	l.Add("nis", "students.err.nis")
	if !l.Has("nis") || l.Has("email") {
		t.Fatalf("Has: %v", l)
	}
	if p, ok := l.Of("nis"); !ok || p.Key != "form.required" {
		t.Fatalf("Of(nis) = %+v, %v: the first problem of a field wins", p, ok)
	}
	if want := []string{"nis=form.required", "name=form.too_long", "nis=students.err.nis"}; !slices.Equal(l.Keys(), want) {
		t.Fatalf("Keys = %v", l.Keys())
	}
	err := fmt.Errorf("save: %w", l.Err())
	got, ok := problem.As(err)
	if !ok || len(got) != 3 {
		t.Fatalf("As(%v) = %v, %v", err, got, ok)
	}
	if _, ok := problem.As(fmt.Errorf("other")); ok {
		t.Fatal("As of another error")
	}
}

func TestMessageShowsDaysInEachLanguage(t *testing.T) {
	t.Parallel()
	p := problem.New("phone", "students.err.phone")
	id := i18n.NewPrinter(i18n.Indonesian, time.UTC)
	if got := p.Message(id); got != i18n.T(i18n.WithPrinter(t.Context(), id), "students.err.phone") {
		t.Fatalf("Message = %q", got)
	}
	due, expiry := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	withDays := problem.New("due", "components.err.due_after_expiry", due, expiry)
	if got := withDays.Message(id); got != "Jatuh tempo 22 Nov 2026 jatuh setelah tanggal kedaluwarsa 21 Nov 2026." {
		t.Fatalf("day arguments are shown as days: %q", got)
	}
	en := i18n.NewPrinter(i18n.English, time.UTC)
	if got := withDays.Message(en); got != "The due date 22 Nov 2026 is after the expiry date 21 Nov 2026." {
		t.Fatalf("in English: %q", got)
	}
	if p.In("row0_phone").Field != "row0_phone" || p.Field != "phone" {
		t.Fatal("In moves a copy")
	}
}
