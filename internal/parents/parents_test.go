package parents_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/followups"
	"github.com/sekolah/portal/internal/parents"
	"github.com/sekolah/portal/internal/store"
)

func TestRecipientsHonourOptOuts(t *testing.T) {
	t.Parallel()
	st := store.Student{NIS: "1", Phone: "0812-3456-7890", Email: "siswa@example.id"}
	tests := []struct {
		name        string
		c           parents.Contacts
		st          store.Student
		wa, email   string
		waErr, mErr error
		fromStudent bool
	}{
		{"the student's phone and e-mail by default", parents.Contacts{}, st, "6281234567890", "siswa@example.id", nil, nil, true},
		{"the parents' own", parents.Contacts{WhatsApp: "+6281311112222", Email: "ibu@example.id"}, st, "6281311112222", "ibu@example.id", nil, nil, false},
		{"opted out of WhatsApp", parents.Contacts{WhatsAppOptOut: true}, st, "", "siswa@example.id", parents.ErrOptedOut, nil, true},
		{"opted out of e-mail", parents.Contacts{Email: "ibu@example.id", EmailOptOut: true}, st, "6281234567890", "", nil, parents.ErrOptedOut, true},
		{"a landline", parents.Contacts{}, store.Student{Phone: "022-7654321"}, "", "", followups.ErrNotMobile, parents.ErrNoAddress, true},
		{"nothing", parents.Contacts{}, store.Student{}, "", "", followups.ErrNoPhone, parents.ErrNoAddress, true},
	}
	for _, tt := range tests {
		r := parents.RecipientsOf(tt.st, tt.c)
		if r.WhatsApp.Address != tt.wa || !errors.Is(r.WhatsApp.Err, tt.waErr) || r.WhatsApp.FromStudent != tt.fromStudent ||
			r.Email.Address != tt.email || !errors.Is(r.Email.Err, tt.mErr) {
			t.Errorf("%s: %+v", tt.name, r)
		}
	}
}

func TestCheckContacts(t *testing.T) {
	t.Parallel()
	c, l := parents.Check("1", parents.Input{Name: " Ibu  Sri ", WhatsApp: "0813 1111 2222", Email: " ibu@example.id "})
	if len(l) > 0 || c.Name != "Ibu Sri" || c.WhatsApp != "081311112222" || c.Email != "ibu@example.id" {
		t.Fatalf("%+v %v", c, l.Keys())
	}
	_, l = parents.Check("1", parents.Input{WhatsApp: "022-7654321", Email: "ibu at example"})
	if !slices.Contains(l.Keys(), "whatsapp=parents.err.not_mobile") || !slices.Contains(l.Keys(), "email=form.invalid_email") {
		t.Fatalf("problems %v", l.Keys())
	}
	if _, l := parents.Check("1", parents.Input{WhatsApp: "halo"}); !slices.Contains(l.Keys(), "whatsapp=students.err.phone") {
		t.Fatalf("problems %v", l.Keys())
	}
}

func TestLimiter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)
	l := parents.NewLimiter(clock.New(func() time.Time { return now }, time.UTC), 5, 2, 10*time.Minute)
	for i := range 5 {
		if ok, _ := l.Allow("10.0.0.1"); !ok {
			t.Fatalf("page %d refused", i+1)
		}
	}
	if ok, wait := l.Allow("10.0.0.1"); ok || wait != 10*time.Minute {
		t.Fatalf("sixth page allowed (%v)", wait)
	}
	if ok, _ := l.Allow("10.0.0.2"); !ok {
		t.Fatal("another address limited")
	}
	l.Miss("10.0.0.2")
	l.Miss("10.0.0.2")
	if ok, _ := l.Allow("10.0.0.2"); ok {
		t.Fatal("two wrong links and still allowed")
	}
	now = now.Add(10 * time.Minute)
	if ok, _ := l.Allow("10.0.0.1"); !ok {
		t.Fatal("a new window is still limited")
	}
}
