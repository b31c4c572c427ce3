package counter_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/counter"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
)

var cashier = auth.Actor{ID: "u1", Username: "siti", Role: auth.Finance, IP: "10.1.2.3"}

// counterOn is the counter against a real sandbox at 22 Nov 2026 10:00 WIB, with one
// student owing a late component (450.000 + 25.000), one due next month and a paid one.
func counterOn(t *testing.T) (*counter.Service, *store.DB, map[string]string) {
	t.Helper()
	jakarta := time.FixedZone("WIB", 7*60*60)
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, jakarta)
	sb, err := sandbox.New(sandbox.Options{Username: "u", Password: "p", Now: now, Location: jakarta})
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
	db := storetest.OpenTest(t)
	w := &changes.Writer{Client: c, DB: db, Clock: clock.System(time.UTC)}
	ctx := context.Background()
	if _, err := c.CreateStudents(ctx, []billing.Student{{NIS: "2601", Name: "Budi Santoso"}}); err != nil {
		t.Fatal(err)
	}
	d := func(m time.Month, day int) time.Time { return time.Date(2026, m, day, 0, 0, 0, 0, time.UTC) }
	bs, err := c.CreateComponents(ctx, []billing.ComponentInput{
		{NIS: "2601", AccountCode: "SPP", Name: "SPP November", Due: d(11, 10), Expiry: d(12, 31), Amount: 450_000, Penalty: 25_000},
		{NIS: "2601", AccountCode: "SPP", Name: "SPP Desember", Due: d(12, 10), Expiry: d(12, 31), Amount: 450_000, Penalty: 25_000},
		{NIS: "2601", AccountCode: "BCA", Name: "Buku", Due: d(11, 1), Expiry: d(12, 31), Amount: 100_000},
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, b := range bs {
		ids[b.Name] = b.ComponentID
	}
	if _, err := c.Pay(ctx, billing.Payment{NIS: "2601", RefNumber: "KW-1", ComponentIDs: []string{ids["Buku"]}}); err != nil {
		t.Fatal(err)
	}
	return &counter.Service{Billing: c, Writer: w, Clock: clock.New(func() time.Time { return now }, jakarta)}, db, ids
}

func TestCheckAndPay(t *testing.T) {
	t.Parallel()
	svc, db, ids := counterOn(t)
	ctx := context.Background()

	st, err := svc.Student(ctx, "2601")
	if err != nil || st.Name != "Budi Santoso" || len(st.Lines) != 2 || st.PayableTotal != 925_000 {
		t.Fatalf("student at the counter: %+v, %v", st, err)
	}
	if _, err := svc.Student(ctx, "9999"); !errors.Is(err, billing.ErrNotFound) {
		t.Fatalf("unknown student: %v", err)
	}
	if _, err := svc.Student(ctx, "26 01"); !problemOf(err, counter.FieldNIS) {
		t.Fatalf("invalid NIS: %v", err)
	}

	// Every mistake at once, each on its field; the student as read comes back with them.
	p, err := svc.Check(ctx, counter.Request{NIS: "2601", Ref: "KW-1", IDs: []string{ids["Buku"], "nope"}})
	probs, _ := problem.As(err)
	if want := []string{"ref=payments.err.ref_used", "component=payments.err.paid", "component=payments.err.gone"}; !slices.Equal(probs.Keys(), want) {
		t.Fatalf("check problems = %v, want %v", probs.Keys(), want)
	}
	if !p.Found() || len(p.Lines) != 2 {
		t.Fatalf("the fresh list is lost: %+v", p)
	}

	req := counter.Request{NIS: " 2601 ", Ref: " KW-2 ", IDs: []string{ids["SPP November"]}}
	p, err = svc.Check(ctx, req)
	if err != nil || p.Chosen.Total != 475_000 || p.Chosen.Penalty != 25_000 || p.Ref != "KW-2" {
		t.Fatalf("check: %+v, %v", p.Chosen, err)
	}
	// A total other than today's (a confirmation from yesterday) pays nothing.
	var changed *counter.TotalChanged
	if _, err := svc.Pay(ctx, cashier, req, 450_000); !errors.As(err, &changed) || changed.Total != 475_000 {
		t.Fatalf("pay at another total: %v", err)
	}
	p, err = svc.Pay(ctx, cashier, req, 475_000)
	if err != nil || p.Paid != 475_000 {
		t.Fatalf("pay: %+v, %v", p, err)
	}
	entries, _, _ := db.ListAudit(ctx, store.AuditFilter{Action: changes.ActionPay, Limit: 5})
	if len(entries) != 1 || entries[0].Actor != "siti" || entries[0].Target != "2601" {
		t.Fatalf("the payment is not audited: %+v", entries)
	}
	// The same page sent again is refused before any call: the component is paid now.
	if _, err := svc.Pay(ctx, cashier, counter.Request{NIS: "2601", Ref: "KW-3", IDs: req.IDs}, 475_000); !problemOf(err, counter.FieldComponent) {
		t.Fatalf("paying twice: %v", err)
	}

	rec, err := svc.Receipt(ctx, "2601", " KW-2 ")
	if err != nil || rec.Total != 475_000 || rec.Penalty != 25_000 || len(rec.Lines) != 1 {
		t.Fatalf("receipt: %+v, %v", rec, err)
	}
	for _, bad := range [][2]string{{"2601", "KW-404"}, {"9999", "KW-2"}, {"26 01", "KW-2"}, {"2601", ""}} {
		if _, err := svc.Receipt(ctx, bad[0], bad[1]); !errors.Is(err, counter.ErrNoReceipt) {
			t.Errorf("receipt %v: %v", bad, err)
		}
	}
}

func problemOf(err error, field string) bool {
	probs, ok := problem.As(err)
	return ok && probs.Has(field)
}
