package registration_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
)

var admin = auth.Actor{ID: "u1", Username: "admin", Role: auth.Admin, IP: "10.0.0.1"}

func actions(t *testing.T, db *store.DB) []string {
	t.Helper()
	entries, _, err := db.ListAudit(context.Background(), store.AuditFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Action+" "+e.Target)
	}
	slices.Reverse(out) // oldest first
	return out
}

func TestServiceTemplatesAndPublicSettings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.OpenTest(t)
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	s := &registration.Service{DB: db, Accounts: accounts, Clock: clock.New(func() time.Time { return now }, time.UTC)}

	in := registration.TemplateInput{Name: "Pendaftaran SMP 2027", Lines: []registration.LineInput{goodLine()}}
	tpl, err := s.CreateTemplate(ctx, admin, in)
	if err != nil {
		t.Fatal(err)
	}
	var ps problem.List
	if _, err := s.CreateTemplate(ctx, admin, in); !errors.As(err, &ps) || !ps.Has("name") {
		t.Fatalf("duplicate name: %v", err)
	}
	bad := in
	bad.Lines = []registration.LineInput{{Name: "x", AccountCode: "SPP"}}
	if _, err := s.CreateTemplate(ctx, admin, bad); !errors.As(err, &ps) || !ps.Has("line0_amount") {
		t.Fatalf("invalid line: %v", err)
	}
	in.Name = "Pendaftaran SMP 2027/2028"
	if tpl, err = s.UpdateTemplate(ctx, admin, tpl.ID, in); err != nil || tpl.Name != in.Name {
		t.Fatalf("update: %+v %v", tpl, err)
	}
	if _, err := s.UpdateTemplate(ctx, admin, "nope", in); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("update unknown: %v", err)
	}

	// The public form is off until an admin turns it on with a template.
	if p, err := s.PublicSettings(ctx); err != nil || p.Enabled {
		t.Fatalf("default public settings: %+v %v", p, err)
	}
	if err := s.SetPublicSettings(ctx, admin, registration.PublicInput{Enabled: true}); !errors.As(err, &ps) || !ps.Has("template") {
		t.Fatalf("enable without template: %v", err)
	}
	if err := s.SetPublicSettings(ctx, admin, registration.PublicInput{Enabled: true, TemplateID: "nope"}); !errors.As(err, &ps) || !ps.Has("template") {
		t.Fatalf("enable with unknown template: %v", err)
	}
	if err := s.SetPublicSettings(ctx, admin, registration.PublicInput{Enabled: true, TemplateID: tpl.ID, Class: " Calon  Siswa "}); err != nil {
		t.Fatal(err)
	}
	if p, _ := s.PublicSettings(ctx); !p.Enabled || p.TemplateID != tpl.ID || p.Class != "Calon Siswa" {
		t.Fatalf("public settings = %+v", p)
	}
	// Its template cannot be deleted while it is on.
	if err := s.DeleteTemplate(ctx, admin, tpl); !errors.Is(err, registration.ErrTemplateInUse) {
		t.Fatalf("delete the public form's template: %v", err)
	}
	if err := s.SetPublicSettings(ctx, admin, registration.PublicInput{TemplateID: tpl.ID}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteTemplate(ctx, admin, tpl); err != nil {
		t.Fatal(err)
	}

	want := []string{
		"settings.fee_template.create Pendaftaran SMP 2027",
		"settings.fee_template.update Pendaftaran SMP 2027/2028",
		"settings.registration.update public registration form",
		"settings.registration.update public registration form",
		"settings.fee_template.delete Pendaftaran SMP 2027/2028",
	}
	if got := actions(t, db); !slices.Equal(got, want) {
		t.Fatalf("audit = %q\nwant    %q", got, want)
	}
}

func TestAllowPublic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.OpenTest(t)
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	s := &registration.Service{DB: db, Clock: clock.New(func() time.Time { return now }, time.UTC), PublicLimit: 3, PublicWindow: time.Hour}
	for i := range 3 {
		if err := s.AllowPublic(ctx, "10.0.0.9"); err != nil {
			t.Fatalf("submission %d: %v", i+1, err)
		}
		now = now.Add(10 * time.Minute)
	}
	var rl *registration.RateLimited
	for range 2 { // refused retries do not push the wait further out
		if err := s.AllowPublic(ctx, "10.0.0.9"); !errors.As(err, &rl) || !rl.Until.Equal(time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC)) {
			t.Fatalf("4th submission: %v", err)
		}
	}
	if err := s.AllowPublic(ctx, "10.0.0.10"); err != nil {
		t.Fatalf("another address: %v", err)
	}
	now = time.Date(2026, 11, 22, 4, 0, 1, 0, time.UTC)
	if err := s.AllowPublic(ctx, "10.0.0.9"); err != nil {
		t.Fatalf("after the first one left the window: %v", err)
	}
}

func TestEnsureDemoTemplateOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.OpenTest(t)
	s := &registration.Service{DB: db, Accounts: []string{"SPP", "BCA", "MANDIRI"}, Clock: clock.System(time.UTC)}
	created, err := s.EnsureDemoTemplate(ctx)
	if err != nil || !created {
		t.Fatalf("first: %v %v", created, err)
	}
	list, _ := db.ListFeeTemplates(ctx)
	if len(list) != 1 || list[0].Total() != 6_200_000 || !list[0].Lines[1].Optional {
		t.Fatalf("template: %+v", list)
	}
	// Deleted by the admin: not offered again.
	if err := db.DeleteFeeTemplate(ctx, list[0].ID); err != nil {
		t.Fatal(err)
	}
	if created, err := s.EnsureDemoTemplate(ctx); err != nil || created {
		t.Fatalf("second: %v %v", created, err)
	}
}

// TestPublicHourlyCap: the form's cap is 30 unless set, a whole number from 0 to 1000;
// anything else is a problem of its field and nothing is stored.
func TestPublicHourlyCap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.OpenTest(t)
	s := &registration.Service{DB: db, Accounts: accounts}
	tpl, err := s.CreateTemplate(ctx, admin, registration.TemplateInput{Name: "SMP", Lines: []registration.LineInput{goodLine()}})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := s.PublicSettings(ctx); err != nil || p.HourlyCap != registration.DefaultHourlyCap {
		t.Fatalf("default: %+v %v", p, err)
	}
	for _, tc := range []struct {
		in   string
		want int
		key  string
	}{{"", 30, ""}, {" 0 ", 0, ""}, {"1000", 1000, ""}, {"12", 12, ""}, {"-1", 0, "registration.settings.err.cap"},
		{"1,5", 0, "registration.settings.err.cap"}, {"1001", 0, "registration.settings.err.cap_max"}} {
		err := s.SetPublicSettings(ctx, admin, registration.PublicInput{Enabled: true, TemplateID: tpl.ID, HourlyCap: tc.in})
		ps, _ := problem.As(err)
		if tc.key != "" {
			if len(ps) != 1 || ps[0].Field != "hourly_cap" || ps[0].Key != tc.key {
				t.Errorf("%q: %v, want %s", tc.in, err, tc.key)
			}
			continue
		}
		if p, _ := s.PublicSettings(ctx); err != nil || p.HourlyCap != tc.want {
			t.Errorf("%q: cap %d %v, want %d", tc.in, p.HourlyCap, err, tc.want)
		}
	}
}
