package closing_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/closing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
)

func TestMain(m *testing.M) {
	storetest.SetParallel(4)
	m.Run()
}

var jakarta = i18n.Jakarta()

// eachEngine runs fn on SQLite and on PostgreSQL (skipped without
// PORTAL_TEST_POSTGRES_URL).
func eachEngine(t *testing.T, fn func(t *testing.T, db *store.DB)) {
	t.Parallel()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			if engine == "postgres" {
				fn(t, storetest.OpenPostgres(t))
				return
			}
			fn(t, storetest.OpenTest(t))
		})
	}
}

// till is a school with two cashiers at the counter and a clock the test moves.
type till struct {
	t   *testing.T
	db  *store.DB
	l   *ledger.Ledger
	svc *closing.Service
	mu  sync.Mutex
	now time.Time
	seq int
}

func (k *till) clock() time.Time {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.now
}

func (k *till) set(t time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.now = t
}

func newTill(t *testing.T, db *store.DB, now time.Time) *till {
	k := &till{t: t, db: db, now: now}
	clk := clock.New(k.clock, jakarta)
	var err error
	k.l, err = ledger.New(t.Context(), ledger.Config{DB: db, Clock: clk, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	k.svc = &closing.Service{DB: db, Ledger: k.l, Clock: clk, Log: slog.New(slog.DiscardHandler)}
	for _, u := range []store.User{{Username: "siti", DisplayName: "Siti Rahma", Role: "finance"},
		{Username: "budi", DisplayName: "Budi Hartono", Role: "finance"}, {Username: "admin", DisplayName: "Pak Admin", Role: "admin"}} {
		u.PasswordHash = "x"
		if err := db.CreateUser(t.Context(), &u); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.UpsertStudents(t.Context(), []store.Student{{NIS: "2024001", Name: "Ani", Description: "Kelas 7A", Source: store.SourceSync},
		{NIS: "2024002", Name: "Bayu", Description: "Kelas 8B", Source: store.SourceSync}}); err != nil {
		t.Fatal(err)
	}
	return k
}

// pay records a counter payment by cashier of components worth amounts, as the counter
// does: the cashier kept before, the service's records written, the payment recorded.
func (k *till) pay(cashier, nis, ref string, amounts ...int64) {
	k.t.Helper()
	ctx := k.t.Context()
	u, _ := k.db.UserByUsername(ctx, cashier)
	if err := k.l.CounterSending(ctx, nis, ref, cashier, u.DisplayName); err != nil {
		k.t.Fatal(err)
	}
	now := k.clock()
	var bills []billing.Bill
	for _, a := range amounts {
		k.seq++
		due := time.Date(2027, 3, 10, 0, 0, 0, 0, time.UTC)
		bills = append(bills, billing.Bill{ComponentID: fmt.Sprintf("c%04d", k.seq), NIS: nis, StudentName: "svc " + nis, AccountCode: "SPP",
			Name: fmt.Sprintf("SPP %d", k.seq), Amount: a, Due: due, Expiry: due.AddDate(0, 2, 0), State: billing.StatePaid,
			AmountPaid: a, PaidAt: now, RefNumber: ref, CreatedAt: now.Add(-48 * time.Hour), UpdatedAt: now})
	}
	if _, err := k.l.Upsert(ctx, bills); err != nil {
		k.t.Fatal(err)
	}
	if err := k.l.CounterRecorded(ctx, nis, ref); err != nil {
		k.t.Fatal(err)
	}
}

func hasProblem(err error, field string) bool {
	p, ok := problem.As(err)
	return ok && p.Has(field)
}

func actor(username string, role auth.Role) auth.Actor {
	return auth.Actor{Username: username, Role: role, IP: "192.0.2.1"}
}

// Two cashiers close the same day apart: each their own receipts, one with a difference
// that needs its reason; a locked day refuses a second closing and reads as locked for
// the counter; an admin (only) reopens it with a reason and the cashier closes again;
// every closing, refusal and reopening is audited with its figures.
func TestTwoCashiersCloseTheDay(t *testing.T) { eachEngine(t, testTwoCashiersCloseTheDay) }

func testTwoCashiersCloseTheDay(t *testing.T, db *store.DB) {
	ctx := context.Background()
	morning := time.Date(2027, 3, 15, 8, 0, 0, 0, jakarta)
	k := newTill(t, db, morning)
	today := time.Date(2027, 3, 15, 0, 0, 0, 0, time.UTC)
	k.pay("siti", "2024001", "KW/1", 250_000, 250_000)
	k.set(morning.Add(time.Hour))
	k.pay("budi", "2024002", "KW/2", 300_000)
	k.set(morning.Add(2 * time.Hour))
	k.pay("siti", "2024002", "KW/3", 175_000)
	// Yesterday's payment is yesterday's.
	k.set(morning.Add(-24 * time.Hour))
	k.pay("siti", "2024001", "KW/0", 99_000)
	k.set(morning.Add(8 * time.Hour)) // 16:00

	day, err := k.svc.Day(ctx, today)
	if err != nil {
		t.Fatal(err)
	}
	if !day.Today || len(day.Drawers) != 2 || day.Payments != 3 || day.Expected != 975_000 || day.Closed != 0 {
		t.Fatalf("the day %+v", day)
	}
	siti, budi := day.Drawer("siti"), day.Drawer("budi")
	if day.Drawers[0].Cashier != "budi" || siti.CashierName != "Siti Rahma" || siti.Payments != 2 || siti.Components != 3 ||
		siti.Expected != 675_000 || budi.Payments != 1 || budi.Expected != 300_000 || siti.Closing != nil {
		t.Fatalf("drawers %+v / %+v", siti, budi)
	}
	if r := siti.Receipts[0]; r.Ref != "KW/1" || r.Name != "Ani" || r.Class != "Kelas 7A" || r.Amount != 500_000 || r.Components != 2 ||
		!r.PaidAt.Equal(morning) {
		t.Errorf("Siti's first receipt %+v", r)
	}

	// Siti counts Rp 5.000 short: the reason is required, the cash is read as typed.
	form := closing.Form{Day: today, Counted: "Rp 670.000,-", Payments: siti.Payments, Expected: siti.Expected}
	_, err = k.svc.Close(ctx, actor("siti", auth.Finance), form)
	if probs, ok := problem.As(err); !ok || !probs.Has(closing.FieldReason) || probs.Has(closing.FieldCounted) {
		t.Fatalf("a difference without a reason: %v", err)
	}
	for typed, key := range map[string]string{"": "form.required", "lima ratus": "closing.err.counted_number",
		"670.000,50": "closing.err.counted_fraction", "-5.000": "closing.err.counted_negative"} {
		f := form
		f.Counted, f.Reason = typed, "x"
		_, err := k.svc.Close(ctx, actor("siti", auth.Finance), f)
		if p, ok := problem.As(err); !ok || len(p) != 1 || p[0].Key != key {
			t.Errorf("counted %q: %v", typed, err)
		}
	}
	// Figures the form did not show (a receipt came in since) are not signed.
	stale := form
	stale.Reason, stale.Expected = "uang kembalian kurang", 500_000
	var changed *closing.ChangedError
	if _, err := k.svc.Close(ctx, actor("siti", auth.Finance), stale); !errors.As(err, &changed) || changed.Drawer.Expected != 675_000 {
		t.Fatalf("stale figures: %v", err)
	}
	form.Reason = "  uang kembalian kurang  "
	sc, err := k.svc.Close(ctx, actor("siti", auth.Finance), form)
	if err != nil {
		t.Fatal(err)
	}
	if !sc.Locked || sc.Counted != 670_000 || sc.Expected != 675_000 || sc.Difference() != -5_000 || sc.Reason != "uang kembalian kurang" ||
		sc.CashierName != "Siti Rahma" || len(sc.Receipts) != 2 || !sc.SignedAt.Equal(morning.Add(8*time.Hour)) {
		t.Fatalf("Siti's closing %+v", sc)
	}
	// Locked: a second closing is refused (and audited as refused); the counter asks.
	var locked *closing.LockedError
	if _, err := k.svc.Close(ctx, actor("siti", auth.Finance), form); !errors.As(err, &locked) || locked.Closing.ID != sc.ID {
		t.Fatalf("a second closing: %v", err)
	}
	if on, err := k.svc.Locked(ctx, "siti"); err != nil || !on {
		t.Fatalf("Siti locked: %v %v", on, err)
	}
	if on, err := k.svc.Locked(ctx, "budi"); err != nil || on {
		t.Fatalf("Budi locked: %v %v", on, err)
	}
	// Budi counts exactly; no reason needed.
	bc, err := k.svc.Close(ctx, actor("budi", auth.Finance), closing.Form{Day: today, Counted: "300000", Payments: 1, Expected: 300_000})
	if err != nil || bc.Difference() != 0 || bc.Reason != "" {
		t.Fatalf("Budi's closing %+v %v", bc, err)
	}
	day, _ = k.svc.Day(ctx, today)
	if day.Closed != 2 || day.Counted != 970_000 || day.Drawer("siti").Closing == nil {
		t.Fatalf("the day closed %+v", day)
	}

	// A payment of Siti's day that reaches the ledger after her sign-off is not added to
	// the locked closing: it is shown beside it.
	k.pay("siti", "2024001", "KW/4", 40_000)
	day, _ = k.svc.Day(ctx, today)
	if s := day.Drawer("siti"); s.Closing.Expected != 675_000 || len(s.Late) != 1 || s.LateTotal != 40_000 || s.Late[0].Ref != "KW/4" {
		t.Fatalf("after the closing %+v", s)
	}

	// Only an admin reopens, with a reason.
	if _, err := k.svc.Reopen(ctx, actor("budi", auth.Finance), sc.ID, "salah hitung"); !errors.Is(err, closing.ErrNotAdmin) {
		t.Fatalf("reopened by finance: %v", err)
	}
	if _, err := k.svc.Reopen(ctx, actor("admin", auth.Admin), sc.ID, "  "); !hasProblem(err, closing.FieldReason) {
		t.Fatalf("reopened without a reason: %v", err)
	}
	k.set(morning.Add(9 * time.Hour))
	ro, err := k.svc.Reopen(ctx, actor("admin", auth.Admin), sc.ID, "uang ditemukan di laci")
	if err != nil || ro.Locked || ro.ReopenedBy != "admin" || ro.ReopenedName != "Pak Admin" || ro.ReopenReason != "uang ditemukan di laci" {
		t.Fatalf("reopened %+v %v", ro, err)
	}
	if _, err := k.svc.Reopen(ctx, actor("admin", auth.Admin), sc.ID, "lagi"); !errors.Is(err, closing.ErrNotLocked) {
		t.Fatalf("reopened twice: %v", err)
	}
	if on, _ := k.svc.Locked(ctx, "siti"); on {
		t.Fatal("locked after the reopening")
	}
	day, _ = k.svc.Day(ctx, today)
	s := day.Drawer("siti")
	if s.Closing != nil || len(s.Reopened) != 1 || s.Expected != 715_000 || s.Payments != 3 {
		t.Fatalf("reopened drawer %+v", s)
	}
	again, err := k.svc.Close(ctx, actor("siti", auth.Finance), closing.Form{Day: today, Counted: "715.000", Payments: 3, Expected: 715_000})
	if err != nil || len(again.Receipts) != 3 {
		t.Fatalf("closed again %+v %v", again, err)
	}
	if _, err := k.svc.Closing(ctx, "nope"); !errors.Is(err, closing.ErrNotFound) {
		t.Errorf("unknown closing: %v", err)
	}
	if _, err := k.svc.Day(ctx, today.AddDate(0, 0, 1)); !errors.Is(err, closing.ErrFuture) {
		t.Errorf("tomorrow: %v", err)
	}

	// Every closing and reopening audited, each entry as its action says, in words.
	entries, _, err := db.ListAudit(ctx, store.AuditFilter{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	p := i18n.NewPrinter(i18n.Indonesian, jakarta)
	var words []string
	for _, e := range entries {
		st := audit.Read(e)
		if err := st.Check(); err != nil {
			t.Errorf("%s: %v", e.Action, err)
		}
		count[e.Action+" "+e.Outcome]++
		if e.Action == closing.ActionClose && e.Outcome == "ok" && e.Args["user"] == "siti" && e.Args["reason"] != "" {
			words = append(words, audit.Word(p, st, nil).Figures...)
		}
	}
	want := map[string]int{"closing.close ok": 3, "closing.close denied": 1, "closing.reopen ok": 1, "closing.reopen denied": 1}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("%d entries %q, want %d (all: %v)", count[k], k, n, count)
		}
	}
	if got := strings.ReplaceAll(strings.Join(words, " | "), "\u00a0", " "); got != "kas 15 Mar 2027 | 2 kuitansi | dihitung Rp 670.000 dari Rp 675.000, kurang Rp 5.000 | alasan: uang kembalian kurang" {
		t.Errorf("Siti's closing in words: %s", got)
	}
}

// A payment of the cashier still on its way holds the closing; once its answer is lost
// for long it is only listed.
func TestClosingWaitsForAPaymentOnItsWay(t *testing.T) {
	eachEngine(t, testClosingWaitsForAPaymentOnItsWay)
}

func testClosingWaitsForAPaymentOnItsWay(t *testing.T, db *store.DB) {
	ctx := context.Background()
	now := time.Date(2027, 3, 15, 14, 0, 0, 0, jakarta)
	k := newTill(t, db, now)
	today := time.Date(2027, 3, 15, 0, 0, 0, 0, time.UTC)
	if err := k.l.CounterSending(ctx, "2024001", "KW/9", "siti", "Siti Rahma"); err != nil {
		t.Fatal(err)
	}
	k.set(now.Add(30 * time.Second))
	form := closing.Form{Day: today, Counted: "0"}
	var pending *closing.PendingError
	if _, err := k.svc.Close(ctx, actor("siti", auth.Finance), form); !errors.As(err, &pending) || len(pending.Payments) != 1 ||
		pending.Payments[0].Ref != "KW/9" || pending.Payments[0].Name != "Ani" {
		t.Fatalf("closed with a payment on its way: %v", err)
	}
	k.set(now.Add(10 * time.Minute))
	d, _ := k.svc.Day(ctx, today)
	if s := d.Drawer("siti"); len(s.Attempts) != 1 || s.Attempts[0].Waiting || s.Waiting() {
		t.Fatalf("a lost answer %+v", s)
	}
	c, err := k.svc.Close(ctx, actor("siti", auth.Finance), form)
	if err != nil || c.Expected != 0 || c.Payments != 0 {
		t.Fatalf("a closing with nothing taken %+v %v", c, err)
	}
}
