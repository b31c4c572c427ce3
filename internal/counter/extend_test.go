package counter_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/counter"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
)

// extendOn is the counter against a real sandbox at 22 Nov 2026 10:00 WIB, behind a
// proxy that can refuse the payment call (503) while every other call goes through,
// with the ledger the writer records into: one student owing an expired component
// (SPP Agustus, 400.000 + 40.000 late fee, expired 30 Sep) and a payable one.
func extendOn(t *testing.T) (*counter.Service, *store.DB, *ledger.Ledger, *atomic.Bool, map[string]string) {
	t.Helper()
	jakarta := time.FixedZone("WIB", 7*60*60)
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, jakarta)
	sb, err := sandbox.New(sandbox.Options{Username: "u", Password: "p", Now: now, Location: jakarta})
	if err != nil {
		t.Fatal(err)
	}
	var failPay atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if failPay.Load() && r.URL.Path == "/bill_component/pay" {
			http.Error(w, `{"status":"error","status_desc":"service unavailable"}`, http.StatusServiceUnavailable)
			return
		}
		sb.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { srv.Close(); sb.Close() })
	c, err := billing.New(billing.Config{BaseURL: srv.URL, Username: "u", Password: "p", Now: sb.Now, Location: jakarta,
		Timeout: 5 * time.Second, RetryBase: time.Millisecond, RetryMax: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	db := storetest.OpenTest(t)
	clk := clock.New(func() time.Time { return now }, jakarta)
	l, err := ledger.New(context.Background(), ledger.Config{DB: db, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	w := &changes.Writer{Client: c, DB: db, Ledger: l, Clock: clk}
	ctx := context.Background()
	if _, err := c.CreateStudents(ctx, []billing.Student{{NIS: "2601", Name: "Budi Santoso"}}); err != nil {
		t.Fatal(err)
	}
	d := func(m time.Month, day int) time.Time { return time.Date(2026, m, day, 0, 0, 0, 0, time.UTC) }
	bs, err := c.CreateComponents(ctx, []billing.ComponentInput{
		{NIS: "2601", AccountCode: "SPP", Name: "SPP Agustus", Due: d(8, 10), Expiry: d(9, 30), Amount: 400_000, Penalty: 40_000},
		{NIS: "2601", AccountCode: "SPP", Name: "SPP Desember", Due: d(12, 10), Expiry: d(12, 31), Amount: 450_000, Penalty: 25_000},
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, b := range bs {
		ids[b.Name] = b.ComponentID
	}
	if _, err := l.Upsert(ctx, bs); err != nil {
		t.Fatal(err)
	}
	svc := &counter.Service{Billing: c, Writer: w, Steps: &corrections.Steps{Writer: w, Clock: clk}, DB: db, Clock: clk}
	return svc, db, l, &failPay, ids
}

func TestExtendThenPay(t *testing.T) {
	t.Parallel()
	svc, db, l, _, ids := extendOn(t)
	ctx := context.Background()

	// The expired one is offered for extension, at its amount and late fee once payable.
	x, err := svc.CheckExtension(ctx, counter.ExtendRequest{NIS: "2601", Ref: "KW-7", ID: ids["SPP Agustus"]})
	if err != nil || x.Total != 440_000 || x.Penalty != 40_000 || !x.Until.Equal(time.Date(2026, 12, 22, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("check: total %d penalty %d until %s, %v", x.Total, x.Penalty, x.Until, err)
	}
	// A payable one needs no extension; a day in the past is refused; both on their field.
	if _, err := svc.CheckExtension(ctx, counter.ExtendRequest{NIS: "2601", Ref: "KW-7", ID: ids["SPP Desember"], Until: "2026-11-01"}); !problemOf(err, counter.FieldComponent) || !problemOf(err, counter.FieldUntil) {
		t.Fatalf("a payable one extended into the past: %v", err)
	}
	// Confirmed at another total: nothing is sent.
	var changed *counter.TotalChanged
	req := counter.ExtendRequest{NIS: "2601", Ref: "KW-7", ID: ids["SPP Agustus"], Until: "2026-12-15"}
	if _, err := svc.ExtendAndPay(ctx, cashier, req, 400_000); !errors.As(err, &changed) {
		t.Fatalf("another total: %v", err)
	}
	x, err = svc.ExtendAndPay(ctx, cashier, req, 440_000)
	if err != nil || x.Paid != 440_000 {
		t.Fatalf("extend and pay: %+v, %v", x, err)
	}
	b, err := l.Component(ctx, ids["SPP Agustus"])
	if err != nil || b.State != billing.StatePaid || b.AmountPaid != 440_000 || !b.Expiry.Equal(time.Date(2026, 12, 15, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("the ledger holds %+v, %v", b, err)
	}
	entries, _, _ := db.ListAudit(ctx, store.AuditFilter{Action: counter.ActionExtendPay, Limit: 5})
	if len(entries) != 1 || entries[0].Outcome != string(audit.OK) || entries[0].Actor != "siti" {
		t.Fatalf("the step is not audited once: %+v", entries)
	}
	if err := audit.Read(entries[0]).Check(); err != nil {
		t.Errorf("the entry: %v", err)
	}
}

func TestExtendedButNotPaid(t *testing.T) {
	t.Parallel()
	svc, db, l, failPay, ids := extendOn(t)
	ctx := context.Background()
	failPay.Store(true)
	req := counter.ExtendRequest{NIS: "2601", Ref: "KW-8", ID: ids["SPP Agustus"], Until: "2026-12-15"}
	_, err := svc.ExtendAndPay(ctx, cashier, req, 440_000)
	var unpaid *counter.ExtendedNotPaid
	if !errors.As(err, &unpaid) || !unpaid.Until.Equal(time.Date(2026, 12, 15, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("want extended-not-paid, got %v", err)
	}
	// The extension is recorded, the payment is not: nothing half-recorded.
	b, err := l.Component(ctx, ids["SPP Agustus"])
	if err != nil || b.State == billing.StatePaid || b.AmountPaid != 0 || !b.Expiry.Equal(time.Date(2026, 12, 15, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("the ledger holds %+v, %v", b, err)
	}
	entries, _, _ := db.ListAudit(ctx, store.AuditFilter{Action: counter.ActionExtendPay, Limit: 5})
	if len(entries) != 1 || entries[0].Outcome != string(audit.Failed) {
		t.Fatalf("the failed step is not audited: %+v", entries)
	}
	// Now payable as it is: the counter's ordinary payment takes it.
	failPay.Store(false)
	p, err := svc.Pay(ctx, cashier, counter.Request{NIS: "2601", Ref: "KW-8", IDs: []string{ids["SPP Agustus"]}}, 440_000)
	if err != nil || p.Paid != 440_000 {
		t.Fatalf("pay after: %+v, %v", p, err)
	}
}
