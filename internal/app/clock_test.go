package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/config"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/counter"
	"github.com/sekolah/portal/internal/followups"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/internal/school"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
	"github.com/sekolah/portal/internal/uploads"
)

// Every service and worker reads the one clock app.New builds, in the school's zone: at
// 01:30 WIB on 28 Nov (18:30 UTC on the 27th) each one's today is the 28th.
func TestEveryServiceHasTheOneClock(t *testing.T) {
	t.Parallel()
	night := time.Date(2026, 11, 27, 18, 30, 0, 0, time.UTC)
	cfg, err := config.Load(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	db := storetest.OpenTest(t)
	client, err := billing.New(billing.Config{BaseURL: "http://127.0.0.1:9", Username: "u", Password: "p", Now: func() time.Time { return night }})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(t.Context(), Options{Config: cfg, DB: db, Billing: client, Now: func() time.Time { return night }})
	if err != nil {
		t.Fatal(err)
	}
	school28 := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	for name, today := range map[string]time.Time{
		"the app":          a.Clock.Day(),
		"the counter":      a.Counter.Clock.DayOf(a.Counter.Today()),
		"the follow-ups":   a.FollowUps.Clock.Day(),
		"the school":       a.School.Clock.Day(),
		"the registration": a.Registration.Today(),
		"the ledger":       a.Ledger.Today(),
		"the reports":      a.Reports.Today(),
		"the writer":       a.Writer.Clock.Day(),
		"auth":             a.Auth.Clock.Day(),
	} {
		if !today.Equal(school28) {
			t.Errorf("%s: today is %s, want 2026-11-28", name, today.Format(time.DateOnly))
		}
	}
	if y, m, d := a.Counter.Today().Date(); y != 2026 || m != 11 || d != 28 {
		t.Errorf("the counter's today reads %d-%d-%d", y, m, d)
	}
	if a.Uploads.Config().Clock.Now() != night {
		t.Error("the uploads runner has another clock")
	}
}

// A service or worker given no clock fails loudly, never guessing the time or the zone.
func TestNoClockIsRefused(t *testing.T) {
	t.Parallel()
	db := storetest.OpenTest(t)
	panics := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s read the time without a clock", name)
			}
		}()
		f()
	}
	panics("the counter", func() { (&counter.Service{}).Today() })
	panics("the follow-ups", func() { _, _ = (&followups.Service{}).Overdue(context.Background(), store.Student{NIS: "1"}) })
	panics("the registration", func() { (&registration.Service{}).Today() })
	if err := db.SaveSchoolProfile(context.Background(), store.SchoolProfile{Name: "SMP", ReceiptPattern: "KW/{YYYY}/{MM}/{seq}"}); err != nil {
		t.Fatal(err)
	}
	panics("the school", func() { _, _ = (&school.Service{DB: db}).SuggestReceipt(context.Background()) })
	panics("the uploads runner", func() { uploads.NewRunner(uploads.Config{}, db, nil, nil, nil) })
	panics("the corrections runner", func() { corrections.NewRunner(corrections.Config{}, db, nil, nil) })
	if _, err := ledger.New(context.Background(), ledger.Config{DB: db}); err == nil || !strings.Contains(err.Error(), "clock") {
		t.Errorf("a ledger without a clock: %v", err)
	}
	if _, err := store.Open(context.Background(), "sqlite:"+t.TempDir()+"/x.db", nil); err == nil {
		t.Error("a store without a clock opened")
	}
	cfg := config.Config{}
	if _, err := New(context.Background(), Options{Config: cfg, DB: db}); err == nil || !strings.Contains(err.Error(), "PORTAL_TZ") {
		t.Errorf("an app without a zone: %v", err)
	}
	_ = clock.Clock{} // the zero Clock itself panics when read: internal/clock's test
}
