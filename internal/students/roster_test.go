package students_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
	"github.com/sekolah/portal/internal/students"
)

var jakarta = i18n.Jakarta()

// setup is a sandbox at now over real HTTP, the billing client and a roster.
func setup(t *testing.T, now time.Time) (*billing.Client, *store.DB) {
	t.Helper()
	sb, err := sandbox.New(sandbox.Options{Username: "u", Password: "p", Now: now, Location: jakarta, HangLimit: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sb)
	t.Cleanup(func() { srv.Close(); sb.Close() })
	c, err := billing.New(billing.Config{BaseURL: srv.URL, Username: "u", Password: "p", Now: sb.Now, Location: jakarta,
		Timeout: 5 * time.Second, RetryBase: time.Millisecond, RetryMax: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c, storetest.OpenTest(t)
}

// The roster mirrors the service: a student read one by one (Fetch) or with the whole
// list (MirrorList) enters it the same way, marked as synced.
func TestRosterFromTheService(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	c, db := setup(t, now)
	if _, err := c.CreateStudents(ctx, []billing.Student{
		{NIS: "1", Name: "Ani", Phone: "081234567890", Description: "Kelas 7A"},
		{NIS: "2", Name: "Budi", Description: "Kelas 8B"},
	}); err != nil {
		t.Fatal(err)
	}

	s, err := students.Fetch(ctx, c, db, "1", now)
	if err != nil || s.Name != "Ani" || s.Source != store.SourceSync || s.KeyName != billing.DefaultKeyName || !s.SyncedAt.Equal(now) {
		t.Fatalf("Fetch: %+v, %v", s, err)
	}
	if _, err := students.Fetch(ctx, c, db, "9", now); !errors.Is(err, billing.ErrNotFound) {
		t.Fatalf("Fetch of an unknown NIS: %v", err)
	}

	n, err := students.MirrorList(ctx, c, db, now)
	if err != nil || n != 2 {
		t.Fatalf("MirrorList: %d, %v", n, err)
	}
	b, err := db.StudentByNIS(ctx, "2")
	if err != nil || b.Name != "Budi" || b.Description != "Kelas 8B" || b.Source != store.SourceSync {
		t.Fatalf("roster entry of 2: %+v, %v", b, err)
	}
	if _, total, _ := db.ListStudents(ctx, store.StudentFilter{Limit: 10}); total != 2 {
		t.Fatalf("roster holds %d students, want 2", total)
	}
}
