package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/store"
)

func TestAudit(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		base := time.Date(2025, 3, 10, 9, 0, 0, 0, time.UTC)
		seed := []store.AuditEntry{
			{At: base, Actor: "admin", ActorRole: "admin", Action: "staff.create", Target: "siti", Outcome: "ok"},
			{At: base.Add(time.Hour), Actor: "siti", ActorRole: "finance", Action: "auth.signin", Outcome: "ok", IP: "10.0.0.7"},
			{At: base.Add(2 * time.Hour), Actor: "siti", ActorRole: "finance", Action: "bill.pay", Target: "NIS 1001", Outcome: "failed",
				UpstreamStatus: 409, UpstreamDesc: "already paid", Detail: "component SPP-07"},
			{At: base.Add(24 * time.Hour), Actor: "budi", Action: "auth.signin", Outcome: "failed"},
		}
		for _, e := range seed {
			if err := db.AppendAudit(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		// At and ID are filled when empty.
		if err := db.AppendAudit(ctx, store.AuditEntry{Actor: "system", Action: "portal.start", Outcome: "ok"}); err != nil {
			t.Fatal(err)
		}

		all, total, err := db.ListAudit(ctx, store.AuditFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if total != 5 || len(all) != 5 {
			t.Fatalf("ListAudit all: %d entries, total %d", len(all), total)
		}
		if all[0].Action != "portal.start" || all[0].ID == "" || time.Since(all[0].At) > time.Hour {
			t.Errorf("newest entry = %+v, want the one stamped now", all[0])
		}
		for i := 1; i < len(all); i++ {
			if all[i].At.After(all[i-1].At) {
				t.Errorf("not newest first at %d: %v after %v", i, all[i].At, all[i-1].At)
			}
		}
		pay := all[2]
		if pay.Action != "bill.pay" || pay.UpstreamStatus != 409 || pay.UpstreamDesc != "already paid" ||
			pay.Detail != "component SPP-07" || pay.Target != "NIS 1001" || !pay.At.Equal(base.Add(2*time.Hour)) || pay.At.Location() != time.UTC {
			t.Errorf("round trip lost fields: %+v", pay)
		}

		tests := []struct {
			name      string
			filter    store.AuditFilter
			wantTotal int
			wantActs  []string
		}{
			{"actor", store.AuditFilter{Actor: "siti"}, 2, []string{"bill.pay", "auth.signin"}},
			{"action", store.AuditFilter{Action: "auth.signin"}, 2, []string{"auth.signin", "auth.signin"}},
			{"outcome", store.AuditFilter{Outcome: "failed"}, 2, []string{"auth.signin", "bill.pay"}},
			{"from inclusive", store.AuditFilter{From: base.Add(time.Hour), To: base.Add(48 * time.Hour)}, 3, []string{"auth.signin", "bill.pay", "auth.signin"}},
			{"to exclusive", store.AuditFilter{From: base, To: base.Add(time.Hour)}, 1, []string{"staff.create"}},
			{"zone does not matter", store.AuditFilter{From: base.In(time.FixedZone("WIB", 7*3600)), To: base.Add(time.Minute)}, 1, []string{"staff.create"}},
			{"combined", store.AuditFilter{Actor: "siti", Outcome: "ok"}, 1, []string{"auth.signin"}},
			{"page", store.AuditFilter{Offset: 1, Limit: 2}, 5, []string{"auth.signin", "bill.pay"}},
			{"past the end", store.AuditFilter{Offset: 10}, 5, nil},
			{"no match", store.AuditFilter{Actor: "nobody"}, 0, nil},
			{"any of", store.AuditFilter{Actors: []string{"budi", "admin"}}, 2, []string{"auth.signin", "staff.create"}},
			{"any of and one", store.AuditFilter{Actors: []string{"budi", "siti"}, Actor: "siti", Outcome: "failed"}, 1, []string{"bill.pay"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, total, err := db.ListAudit(ctx, tt.filter)
				if err != nil {
					t.Fatal(err)
				}
				var acts []string
				for _, e := range got {
					acts = append(acts, e.Action)
				}
				if total != tt.wantTotal || !slices.Equal(acts, tt.wantActs) {
					t.Errorf("got %v (total %d), want %v (total %d)", acts, total, tt.wantActs, tt.wantTotal)
				}
			})
		}

		actors, err := db.AuditActors(ctx)
		if err != nil || !slices.Equal(actors, []string{"admin", "budi", "siti", "system"}) {
			t.Errorf("AuditActors = %v, %v", actors, err)
		}
	})
}

func TestAuditLimitIsCapped(t *testing.T) {
	t.Parallel()
	db := openSQLite(t)
	ctx := t.Context()
	for range store.DefaultAuditLimit + 5 {
		if err := db.AppendAudit(ctx, store.AuditEntry{Action: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	got, total, err := db.ListAudit(ctx, store.AuditFilter{})
	if err != nil || len(got) != store.DefaultAuditLimit || total != store.DefaultAuditLimit+5 {
		t.Errorf("default page: %d entries, total %d, %v", len(got), total, err)
	}
	got, _, _ = db.ListAudit(ctx, store.AuditFilter{Limit: store.MaxAuditLimit * 10})
	if len(got) != store.DefaultAuditLimit+5 {
		t.Errorf("large limit: %d entries", len(got))
	}
}
