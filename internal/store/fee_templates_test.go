package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/store"
)

func feeDay(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func smpTemplate() store.FeeTemplate {
	return store.FeeTemplate{Name: "Pendaftaran SMP 2027", Lines: []store.FeeTemplateLine{
		{Name: "Uang Pangkal", AccountCode: "SPP", Amount: 5_000_000, Penalty: 100_000,
			Due: store.DayRule{Offset: 14}, Expiry: store.DayRule{Offset: 60}, Description: "Sekali bayar"},
		{Name: "Seragam", AccountCode: "BCA", Amount: 750_000,
			Due: store.DayRule{Fixed: feeDay(2027, 7, 1)}, Expiry: store.DayRule{Fixed: feeDay(2027, 8, 31)}, Optional: true},
		{Name: "Buku", AccountCode: "MANDIRI", Amount: 400_000, Due: store.DayRule{Offset: 0}, Expiry: store.DayRule{Fixed: feeDay(2027, 12, 31)}},
	}}
}

func TestFeeTemplates(t *testing.T) {
	t.Parallel()
	eachDB(t, testFeeTemplates)
}

func testFeeTemplates(t *testing.T, db *store.DB) {
	ctx := context.Background()

	created, err := db.CreateFeeTemplate(ctx, smpTemplate())
	if err != nil {
		t.Fatal(err)
	}
	if created.ID == "" || created.CreatedAt.IsZero() || !created.UpdatedAt.Equal(created.CreatedAt) || len(created.Lines) != 3 {
		t.Fatalf("created = %+v", created)
	}
	want := smpTemplate()
	for i, l := range created.Lines {
		w := want.Lines[i]
		w.ID = l.ID
		if l.ID == "" || l != w {
			t.Errorf("line %d read back as %+v, want %+v", i, l, w)
		}
	}
	if got := created.Total(); got != 6_150_000 {
		t.Errorf("total = %d", got)
	}

	// Names are unique as a person reads them.
	dup := smpTemplate()
	dup.Name = "  pendaftaran  smp 2027 "
	if _, err := db.CreateFeeTemplate(ctx, dup); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("duplicate name: %v", err)
	}
	sma, err := db.CreateFeeTemplate(ctx, store.FeeTemplate{Name: "Daftar Ulang SMA", Lines: []store.FeeTemplateLine{
		{Name: "Daftar Ulang", AccountCode: "SPP", Amount: 1_000_000, Due: store.DayRule{Offset: 7}, Expiry: store.DayRule{Offset: 30}},
	}})
	if err != nil {
		t.Fatal(err)
	}

	// Update replaces the name and every line; the time moves on.
	time.Sleep(2 * time.Microsecond)
	upd := created
	upd.Name = "Pendaftaran SMP 2027/2028"
	upd.Lines = upd.Lines[:1]
	upd.Lines[0].Amount = 5_500_000
	got, err := db.UpdateFeeTemplate(ctx, upd)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != upd.Name || len(got.Lines) != 1 || got.Lines[0].Amount != 5_500_000 || !got.UpdatedAt.After(created.UpdatedAt) ||
		!got.CreatedAt.Equal(created.CreatedAt) {
		t.Fatalf("updated = %+v", got)
	}
	clash := got
	clash.Name = "DAFTAR ULANG SMA"
	if _, err := db.UpdateFeeTemplate(ctx, clash); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("rename onto another template: %v", err)
	}
	if _, err := db.UpdateFeeTemplate(ctx, store.FeeTemplate{ID: "nope", Name: "x"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("update unknown: %v", err)
	}

	list, err := db.ListFeeTemplates(ctx)
	if err != nil || len(list) != 2 || list[0].ID != sma.ID || list[1].ID != created.ID || len(list[1].Lines) != 1 || len(list[0].Lines) != 1 {
		t.Fatalf("list = %+v, %v", list, err)
	}

	if err := db.DeleteFeeTemplate(ctx, created.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.FeeTemplate(ctx, created.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
	if err := db.DeleteFeeTemplate(ctx, created.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("delete twice: %v", err)
	}
	var orphans int
	if err := db.SQL().QueryRowContext(ctx, `SELECT COUNT(*) FROM fee_template_lines WHERE template_id = $1`, created.ID).Scan(&orphans); err != nil || orphans != 0 {
		t.Fatalf("lines left after delete: %d %v", orphans, err)
	}
}

func TestRegistrationsAndAttempts(t *testing.T) {
	t.Parallel()
	eachDB(t, testRegistrationsAndAttempts)
}

func testRegistrationsAndAttempts(t *testing.T, db *store.DB) {
	ctx := context.Background()
	r := store.Registration{
		BillID: "bill-1", NIS: "2027001", StudentName: "Rina Wulandari", ContactName: "Budi", Phone: "0812", Email: "b@example.id",
		Description: "Kelas 7", TemplateID: "t1", TemplateName: "Pendaftaran SMP 2027", Source: store.SourceRegistration,
		Actor: "public", IP: "10.0.0.9", Total: 5_750_000,
		Components: []store.RegisteredComponent{
			{ID: "c1", Name: "Uang Pangkal", AccountCode: "SPP", Amount: 5_000_000, Penalty: 100_000, Due: feeDay(2026, 12, 6), Expiry: feeDay(2027, 1, 21)},
			{ID: "c2", Name: "Seragam", AccountCode: "BCA", Amount: 750_000, Due: feeDay(2027, 7, 1), Expiry: feeDay(2027, 8, 31), Description: "opsional"},
		},
	}
	if err := db.AddRegistration(ctx, r); err != nil {
		t.Fatal(err)
	}
	// The same bill again changes nothing.
	again := r
	again.StudentName = "Other"
	if err := db.AddRegistration(ctx, again); err != nil {
		t.Fatal(err)
	}
	got, err := db.RegistrationByBillID(ctx, "bill-1")
	if err != nil {
		t.Fatal(err)
	}
	if got.StudentName != r.StudentName || got.CreatedAt.IsZero() || len(got.Components) != 2 || got.Components[1] != r.Components[1] ||
		got.Total != r.Total || got.Source != store.SourceRegistration || got.ContactName != "Budi" {
		t.Fatalf("read back %+v", got)
	}
	if _, err := db.RegistrationByBillID(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown bill: %v", err)
	}

	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	for i := range 4 {
		if id, err := db.RecordRegistrationAttempt(ctx, "10.0.0.9", now.Add(time.Duration(i-2)*time.Hour)); err != nil || id == "" {
			t.Fatalf("record attempt: %q %v", id, err)
		}
	}
	if _, err := db.RecordRegistrationAttempt(ctx, "10.0.0.8", now); err != nil {
		t.Fatal(err)
	}
	extra, _ := db.RecordRegistrationAttempt(ctx, "10.0.0.9", now)
	if err := db.DeleteRegistrationAttempt(ctx, extra); err != nil {
		t.Fatal(err)
	}

	n, oldest, err := db.RegistrationAttemptsSince(ctx, "10.0.0.9", now.Add(-time.Hour))
	if err != nil || n != 3 || !oldest.Equal(now.Add(-time.Hour)) {
		t.Fatalf("attempts since = %d %v %v", n, oldest, err)
	}
	if err := db.PruneRegistrationAttempts(ctx, now); err != nil {
		t.Fatal(err)
	}
	if n, _, _ := db.RegistrationAttemptsSince(ctx, "10.0.0.9", time.Time{}); n != 2 {
		t.Fatalf("after prune = %d, want 2", n)
	}
	if n, oldest, _ := db.RegistrationAttemptsSince(ctx, "10.9.9.9", time.Time{}); n != 0 || !oldest.IsZero() {
		t.Fatalf("unknown addr = %d %v", n, oldest)
	}
}
