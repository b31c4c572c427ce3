package store_test

import (
	"bytes"
	"errors"
	"sync"
	"testing"

	"github.com/sekolah/portal/internal/store"
)

func TestSchoolProfileAndLogo(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		if p, err := db.SchoolProfile(ctx); err != nil || p != (store.SchoolProfile{}) {
			t.Fatalf("fresh profile = %+v, %v", p, err)
		}
		want := store.SchoolProfile{Name: "SMP Nusantara", Address: "Jl. Merdeka 1\nBandung", NPSN: "20212345", Phone: "022-1234567",
			ReceiptFooter: "Simpan kuitansi ini.", ReceiptPattern: "KW/{YYYY}/{MM}/{seq}", LetterNote: "Bayar di BCA."}
		for range 2 { // the second save updates the one row
			if err := db.SaveSchoolProfile(ctx, want); err != nil {
				t.Fatal(err)
			}
		}
		got, err := db.SchoolProfile(ctx)
		if err != nil || got.UpdatedAt.IsZero() {
			t.Fatalf("profile = %+v, %v", got, err)
		}
		got.UpdatedAt = want.UpdatedAt
		if got != want {
			t.Fatalf("profile = %+v, want %+v", got, want)
		}

		if _, err := db.SchoolLogo(ctx); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("no logo yet: %v", err)
		}
		png := []byte("\x89PNG\r\n\x1a\n\x00\x01binary\xff")
		set, err := db.SetSchoolLogo(ctx, "image/png", png)
		if err != nil || len(set.SHA256) != 64 {
			t.Fatalf("set logo: %+v %v", set, err)
		}
		l, err := db.SchoolLogo(ctx)
		if err != nil || !bytes.Equal(l.Data, png) || l.ContentType != "image/png" || l.SHA256 != set.SHA256 {
			t.Fatalf("logo = %+v, %v", l, err)
		}
		if v, err := db.SchoolLogoVersion(ctx); err != nil || v != set.SHA256 {
			t.Fatalf("version %q %v", v, err)
		}
		if err := db.RemoveSchoolLogo(ctx); err != nil {
			t.Fatal(err)
		}
		if v, err := db.SchoolLogoVersion(ctx); err != nil || v != "" {
			t.Fatalf("version after removal %q %v", v, err)
		}
	})
}

func TestReceiptSequence(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		if n, err := db.NextReceiptNumber(ctx, "KW/2026/11/"); err != nil || n != 1 {
			t.Fatalf("new scope: %d %v", n, err)
		}
		// Instances record numbers concurrently and out of order: the sequence ends past
		// the highest and never goes back.
		var wg sync.WaitGroup
		for _, n := range []int64{3, 1, 7, 2, 5} {
			wg.Go(func() {
				if err := db.UseReceiptNumber(ctx, "KW/2026/11/", n); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if err := db.UseReceiptNumber(ctx, "KW/2026/11/", 4); err != nil {
			t.Fatal(err)
		}
		if n, err := db.NextReceiptNumber(ctx, "KW/2026/11/"); err != nil || n != 8 {
			t.Fatalf("next = %d %v, want 8", n, err)
		}
		if n, _ := db.NextReceiptNumber(ctx, "KW/2026/12/"); n != 1 {
			t.Fatalf("a new month starts at %d", n)
		}
	})
}

func TestAuditArgsRoundTrip(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		args := store.AuditArgs{"nis": "24250081", "name": "Budi Santoso", "count": "2", "total": "1350000", "ref": "KW/1"}
		for _, e := range []store.AuditEntry{
			{Actor: "siti", Action: "upstream.pay", Target: "24250081", Outcome: "ok", Args: args},
			{Actor: "siti", Action: "upstream.pay", Target: "24250081", Outcome: "failed"},
			{Actor: "siti", Action: "upstream.pay", Target: "999", Outcome: "ok"},
		} {
			if err := db.AppendAudit(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		got, err := db.LatestAudit(ctx, "upstream.pay", "24250081", "ok", 5)
		if err != nil || len(got) != 1 || len(got[0].Args) != len(args) || got[0].Args["name"] != "Budi Santoso" {
			t.Fatalf("LatestAudit = %+v, %v", got, err)
		}
		all, _, err := db.ListAudit(ctx, store.AuditFilter{})
		if err != nil || len(all) != 3 {
			t.Fatal(err)
		}
		for _, e := range all {
			if e.Outcome == "failed" && e.Args != nil {
				t.Errorf("an entry without args reads %v", e.Args)
			}
		}
	})
}
