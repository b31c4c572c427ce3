package counter_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/counter"
	"github.com/sekolah/portal/internal/school"
	"github.com/sekolah/portal/internal/store"
)

// counterWithSchool is counterOn with the roster, the audit log and a school numbering its
// receipts KW/{YYYY}/{MM}/{seq}; a second student, Budi Santika, owes one component.
func counterWithSchool(t *testing.T) (*counter.Service, *store.DB, map[string]string) {
	t.Helper()
	svc, db, ids := counterOn(t)
	ctx := context.Background()
	svc.DB = db
	svc.School = &school.Service{DB: db, Clock: svc.Clock}
	if _, err := svc.School.Save(ctx, auth.Actor{Username: "admin"}, school.Input{Name: "SMP 1", ReceiptPattern: "KW/{YYYY}/{MM}/{seq}"}); err != nil {
		t.Fatal(err)
	}
	if err := db.UpsertStudents(ctx, []store.Student{
		{NIS: "2601", Name: "Budi Santoso", Description: "Kelas 10A", Source: store.SourceSync},
		{NIS: "2602", Name: "Budi Santika", Description: "Kelas 9B", Source: store.SourceSync},
		{NIS: "3001", Name: "Siti Aminah", Description: "Kelas 7A", Source: store.SourceSync},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Billing.CreateStudents(ctx, []billing.Student{{NIS: "2602", Name: "Budi Santika"}, {NIS: "4001", Name: "Rina Wulan"}}); err != nil {
		t.Fatal(err)
	}
	d := func(m time.Month, day int) time.Time { return time.Date(2026, m, day, 0, 0, 0, 0, time.UTC) }
	bs, err := svc.Billing.CreateComponents(ctx, []billing.ComponentInput{
		{NIS: "2602", AccountCode: "SPP", Name: "SPP Desember B", Due: d(12, 10), Expiry: d(12, 31), Amount: 300_000},
	})
	if err != nil {
		t.Fatal(err)
	}
	ids["B"] = bs[0].ComponentID
	return svc, db, ids
}

func TestSearchAtTheCounter(t *testing.T) {
	svc, db, _ := counterWithSchool(t)
	ctx := context.Background()

	m, err := svc.Search(ctx, "  budi  ")
	if err != nil || len(m.List) != 2 || m.Exact != nil || m.NISNotFound {
		t.Fatalf("by name: %+v %v", m, err)
	}
	// Natural class order: 9B before 10A.
	if m.List[0].NIS != "2602" || m.List[1].Class != "Kelas 10A" {
		t.Errorf("order: %+v", m.List)
	}
	if m, _ := svc.Search(ctx, "2601"); m.Exact == nil || m.Exact.Name != "Budi Santoso" {
		t.Errorf("a whole NIS opens the student: %+v", m)
	}
	if m, _ := svc.Search(ctx, "zzz"); len(m.List) != 0 || m.NISNotFound {
		t.Errorf("no name: %+v", m)
	}
	if m, _ := svc.Search(ctx, "99999"); len(m.List) != 0 || !m.NISNotFound {
		t.Errorf("an unknown NIS says so: %+v", m)
	}
	// A student at the service but not yet in the roster is found by NIS, and noted.
	m, err = svc.Search(ctx, "4001")
	if err != nil || m.Exact == nil || m.Exact.Name != "Rina Wulan" {
		t.Fatalf("from the service: %+v %v", m, err)
	}
	if _, err := db.StudentByNIS(ctx, "4001"); err != nil {
		t.Errorf("not added to the roster: %v", err)
	}
	if m, _ := svc.Search(ctx, ""); len(m.List) != 0 {
		t.Error("an empty search finds something")
	}
}

func TestReceiptNumberUsedElsewhere(t *testing.T) {
	svc, db, ids := counterWithSchool(t)
	ctx := context.Background()

	ref := svc.SuggestRef(ctx)
	if ref != "KW/2026/11/0001" {
		t.Fatalf("suggested %q", ref)
	}
	first := counter.Request{NIS: "2601", Ref: ref, IDs: []string{ids["SPP November"]}}
	if _, err := svc.Pay(ctx, cashier, first, 475_000); err != nil {
		t.Fatal(err)
	}
	if got := svc.SuggestRef(ctx); got != "KW/2026/11/0002" {
		t.Errorf("after a payment the suggestion is %q", got)
	}

	// Another student under the same number: the confirmation warns, paying needs a yes.
	second := counter.Request{NIS: "2602", Ref: ref, IDs: []string{ids["B"]}}
	p, err := svc.Check(ctx, second)
	if err != nil || p.RefTaken == nil || p.RefTaken.NIS != "2601" || p.RefTaken.Name != "Budi Santoso" || p.RefTaken.Total != 475_000 {
		t.Fatalf("check: %+v %v", p.RefTaken, err)
	}
	var taken *counter.RefTakenError
	if _, err := svc.Pay(ctx, cashier, second, 300_000); !errors.As(err, &taken) {
		t.Fatalf("paid under a used number without a yes: %v", err)
	}
	if got, _ := svc.Billing.GetComponent(ctx, ids["B"]); got.State != billing.StateProvisioned {
		t.Fatal("the refused payment was sent")
	}
	second.ReuseRef = true
	if _, err := svc.Pay(ctx, cashier, second, 300_000); err != nil {
		t.Fatalf("with a yes: %v", err)
	}

	// The receipt names the cashier from the audit log and the class from the roster.
	rec, err := svc.Receipt(ctx, "2601", ref)
	if err != nil || rec.Class != "Kelas 10A" || rec.CashierUsername != "siti" || rec.Cashier != "siti" {
		t.Fatalf("receipt: %+v %v", rec, err)
	}
	if err := db.CreateUser(ctx, &store.User{Username: "siti", DisplayName: "Siti Rahma", Role: "finance", PasswordHash: "x"}); err != nil {
		t.Fatal(err)
	}
	if rec, _ := svc.Receipt(ctx, "2601", ref); rec.Cashier != "Siti Rahma" {
		t.Errorf("cashier by name: %q", rec.Cashier)
	}
	// A payment the portal did not record (at a bank) has no cashier.
	if _, err := svc.Billing.Pay(ctx, billing.Payment{NIS: "2601", RefNumber: "BANK-9", ComponentIDs: []string{ids["SPP Desember"]}}); err != nil {
		t.Fatal(err)
	}
	if rec, err := svc.Receipt(ctx, "2601", "BANK-9"); err != nil || rec.Cashier != "" {
		t.Errorf("bank receipt: %+v %v", rec, err)
	}
}
