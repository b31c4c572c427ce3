package students_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/students"
)

// The pages' roster: a student from the roster or, when it lacks them, from the service
// (then in the roster); pages of the roster class by class in the natural order; whether
// the service knows a NIS.
func TestService(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	c, db := setup(t, now)
	svc := &students.Service{DB: db, Billing: c, Clock: clock.Fixed(now, jakarta)}
	if _, err := c.CreateStudents(ctx, []billing.Student{{NIS: "9", Name: "Ina", Description: "Kelas 10A"}}); err != nil {
		t.Fatal(err)
	}
	if err := db.UpsertStudents(ctx, []store.Student{
		{NIS: "1", Name: "Ani", Description: "Kelas 10A", Source: students.SourcePortal},
		{NIS: "2", Name: "Budi", Description: "Kelas 9C", Source: students.SourcePortal},
		{NIS: "3", Name: "Citra", Description: "Kelas 7A", Source: students.SourcePortal},
	}); err != nil {
		t.Fatal(err)
	}

	if s, err := svc.Get(ctx, "2"); err != nil || s.Name != "Budi" {
		t.Errorf("Get from the roster: %+v, %v", s, err)
	}
	if _, err := svc.InRoster(ctx, "9"); !errors.Is(err, students.ErrNotFound) {
		t.Errorf("InRoster of a student only the service knows: %v", err)
	}
	if s, err := svc.Get(ctx, "9"); err != nil || s.Name != "Ina" || s.Source != students.SourceSync || !s.SyncedAt.Equal(now) {
		t.Errorf("Get from the service: %+v, %v", s, err)
	}
	if _, err := svc.InRoster(ctx, "9"); err != nil {
		t.Errorf("the student fetched is not in the roster: %v", err)
	}
	if _, err := svc.Get(ctx, "404"); !errors.Is(err, students.ErrNotFound) {
		t.Errorf("Get of a NIS nobody knows: %v", err)
	}

	page, err := svc.List(ctx, students.Query{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, s := range page.Rows {
		order = append(order, s.NIS)
	}
	if !slices.Equal(page.Classes, []string{"Kelas 7A", "Kelas 9C", "Kelas 10A"}) || !slices.Equal(order, []string{"3", "2", "1", "9"}) || page.Total != 4 {
		t.Errorf("List: classes %v, rows %v, total %d", page.Classes, order, page.Total)
	}
	if page, err := svc.List(ctx, students.Query{Search: "bud", Limit: 10}); err != nil || page.Total != 1 || page.Rows[0].NIS != "2" {
		t.Errorf("List by name: %+v, %v", page, err)
	}
	got, err := svc.ByNIS(ctx, []string{"1", "3", "404"})
	if err != nil || len(got) != 2 || got["3"].Name != "Citra" {
		t.Errorf("ByNIS: %v, %v", got, err)
	}

	for nis, want := range map[string]bool{"9": true, "1": false} {
		if known, err := svc.AtService(ctx, nis); err != nil || known != want {
			t.Errorf("AtService(%s) = %v, %v", nis, known, err)
		}
	}
	if has, err := svc.HasPayments(ctx, "9"); err != nil || has {
		t.Errorf("HasPayments of a student without: %v, %v", has, err)
	}
}
