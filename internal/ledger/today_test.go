package ledger

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
)

// The ledger's SQL reading of a component today (today.go) is component.On: over random
// components (provisioned, late, expired by the day or by the service, paid, deleted, a
// state the portal does not know; due and expiry days around today, at any hour of the
// UTC day; penalties or none) and random instants (at any hour in Jakarta, the small
// hours when the UTC date is still yesterday included), each fragment gives what On
// gives: status, price, penalty and days late, per component and summed per group of the
// open totals; and the components the ledger's iterators yield read the same through On
// as the service's records do. PORTAL_TEST_SEED repeats a run.
func TestOnDayIsComponentOn(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	if s, err := strconv.ParseUint(os.Getenv("PORTAL_TEST_SEED"), 10, 64); err == nil {
		seed = s
	}
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			t.Logf("PORTAL_TEST_SEED=%d", seed)
			testOnDayIsComponentOn(t, engine, seed)
		})
	}
}

func testOnDayIsComponentOn(t *testing.T, engine string, seed uint64) {
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(seed, 25))
	loc := i18n.Jakarta()
	base := time.Date(2027, time.March, 15, 0, 0, 0, 0, time.UTC)
	var now atomic.Int64
	var db *store.DB
	if engine == "postgres" {
		db = storetest.OpenPostgres(t)
	} else {
		db = storetest.OpenTest(t)
	}
	l, err := New(ctx, Config{DB: db, Clock: clock.New(func() time.Time { return time.UnixMicro(now.Load()) }, loc)})
	if err != nil {
		t.Fatal(err)
	}
	days := func(n int) time.Duration { return time.Duration(n) * 24 * time.Hour }
	bills := map[string]billing.Bill{}
	var all []billing.Bill
	for i := range 600 {
		// A component's days are timestamps whose UTC date is the day: any hour of it.
		due := base.Add(days(rng.IntN(241) - 120)).Add(time.Duration(rng.IntN(24)) * time.Hour)
		b := billing.Bill{
			ComponentID: fmt.Sprintf("p%04d", i), NIS: fmt.Sprintf("%04d", rng.IntN(40)), StudentName: "Siswa",
			AccountCode: []string{"SPP", "BCA"}[rng.IntN(2)], Name: []string{"SPP", "Buku"}[rng.IntN(2)],
			Amount: 1 + rng.Int64N(2_000_000), Due: due, Expiry: due.Add(days(rng.IntN(151))), State: billing.StateProvisioned,
			CreatedAt: base.Add(-days(rng.IntN(400))),
		}
		if rng.IntN(4) > 0 {
			b.Penalty = 1 + rng.Int64N(100_000)
		}
		if rng.IntN(3) == 0 {
			b.Active = due.Add(-days(rng.IntN(60)))
		}
		switch rng.IntN(10) {
		case 0, 1:
			b.State, b.PaidAt, b.AmountPaid = billing.StatePaid, due.Add(days(rng.IntN(40)-20)), b.Amount+b.Penalty*rng.Int64N(2)
		case 2:
			b.State = billing.StateDeleted
		case 3:
			// Expired by the service: read after its expiry day, before any day asked about.
			b.Due = base.Add(-days(200 + rng.IntN(100)))
			b.Expiry = b.Due.Add(days(rng.IntN(30)))
			b.State, b.RawState = billing.StateExpired, "expired"
		case 4:
			b.State, b.RawState = "pending", "Pending" // a state the portal does not know: open
		}
		bills[b.ComponentID] = b
		all = append(all, b)
	}
	if _, err := l.Upsert(ctx, all); err != nil {
		t.Fatal(err)
	}

	for range 40 {
		at := base.Add(days(rng.IntN(301) - 150)).Add(time.Duration(rng.Int64N(int64(24 * time.Hour)))).In(loc)
		if rng.IntN(3) == 0 {
			// 00:00–06:59 in Jakarta: the UTC date is still the day before.
			y, m, d := at.Date()
			at = time.Date(y, m, d, rng.IntN(7), rng.IntN(60), 0, 0, loc)
		}
		now.Store(at.UnixMicro())
		day := dayNum(billing.DayIn(at, loc))
		checkComponents(t, l, at, day, bills)
		checkGroups(t, l, at, day, bills)
		checkIterated(t, l, at, bills)
	}
}

// checkComponents compares each fragment over every stored component with On.
func checkComponents(t *testing.T, l *Ledger, at time.Time, day int64, bills map[string]billing.Bill) {
	t.Helper()
	d := componentsOn("c", "$1")
	rows, err := l.sql.QueryContext(t.Context(), `SELECT c.id, `+d.status()+`, `+d.price()+`, `+d.penalty()+`, `+d.daysLate()+`,
		CASE WHEN `+d.payable()+` THEN 1 ELSE 0 END, CASE WHEN `+d.late()+` THEN 1 ELSE 0 END,
		CASE WHEN `+d.notDue()+` THEN 1 ELSE 0 END, CASE WHEN `+d.expired()+` THEN 1 ELSE 0 END,
		CASE WHEN `+d.arrears()+` THEN 1 ELSE 0 END, `+d.owed()+`
		FROM ledger_components c`, day)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id, status string
		var price, penalty, late int64
		var payable, overdue, notDue, expired, arrears bool
		var owed int64
		if err := rows.Scan(&id, &status, &price, &penalty, &late, &payable, &overdue, &notDue, &expired, &arrears, &owed); err != nil {
			t.Fatal(err)
		}
		n++
		b := bills[id]
		on := component.On(b, at)
		type reading struct {
			Status         component.Status
			Price, Penalty int64
			DaysLate       int
		}
		got := reading{component.Status(status), price, penalty, int(late)}
		want := reading{on.Status, on.Price, on.Penalty, on.DaysLate}
		if got != want {
			t.Errorf("at %s, %s (%s, due %s, expiry %s, amount %d, penalty %d): SQL %+v, component.On %+v", at.Format(time.RFC3339), id,
				b.State, b.Due.Format(time.RFC3339), b.Expiry.Format(time.RFC3339), b.Amount, b.Penalty, got, want)
		}
		open := b.State != billing.StatePaid && b.State != billing.StateDeleted
		if payable != (want.Status == component.StatusProvisioned || want.Status == component.StatusOverdue) ||
			overdue != (want.Status == component.StatusOverdue) || notDue != (want.Status == component.StatusProvisioned) ||
			expired != (open && want.Status == component.StatusExpired) {
			t.Errorf("at %s, %s: payable %v, late %v, not due %v, expired %v; component.On says %s", at.Format(time.RFC3339), id,
				payable, overdue, notDue, expired, want.Status)
		}
		// Arrears are the overdue and the expired ones; an expired one is owed at its amount.
		wantOwed := on.Price
		if open && want.Status == component.StatusExpired {
			wantOwed = b.Amount
		}
		if arrears != (want.Status == component.StatusOverdue || open && want.Status == component.StatusExpired) || owed != wantOwed {
			t.Errorf("at %s, %s: arrears %v, owed %d; component.On says %s, so owed %d", at.Format(time.RFC3339), id,
				arrears, owed, want.Status, wantOwed)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(bills) {
		t.Fatalf("read %d components, stored %d", n, len(bills))
	}
}

// checkGroups compares the fragments over the open totals' groups with On summed over
// the open components of each group.
func checkGroups(t *testing.T, l *Ledger, at time.Time, day int64, bills map[string]billing.Bill) {
	t.Helper()
	type key struct {
		due, expiry   int64
		account, name string
	}
	type sums struct{ price, penalty, n int64 }
	want := map[key]sums{}
	status := map[key]component.Status{}
	for _, b := range bills {
		if b.State == billing.StatePaid || b.State == billing.StateDeleted {
			continue
		}
		k := key{utcDayOfUS(b.Due.UnixMicro()), utcDayOfUS(b.Expiry.UnixMicro()), b.AccountCode, b.Name}
		on := component.On(b, at)
		s := want[k]
		s.price, s.penalty, s.n = s.price+on.Price, s.penalty+on.Penalty, s.n+1
		want[k] = s
		status[k] = on.Status
	}
	g := groupsOn("$1")
	rows, err := l.sql.QueryContext(t.Context(), `SELECT due_day, expiry_day, account_code, name, components, `+g.status()+`,
		`+g.price()+`, `+g.penalty()+` FROM ledger_open_totals WHERE components <> 0`, day)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := 0
	for rows.Next() {
		var k key
		var n, price, penalty int64
		var st string
		if err := rows.Scan(&k.due, &k.expiry, &k.account, &k.name, &n, &st, &price, &penalty); err != nil {
			t.Fatal(err)
		}
		seen++
		if w := want[k]; w != (sums{price, penalty, n}) || component.Status(st) != status[k] {
			t.Errorf("at %s, the group %+v: SQL %s, price %d, penalty %d of %d; component.On %s, %d, %d of %d",
				at.Format(time.RFC3339), k, st, price, penalty, n, status[k], w.price, w.penalty, w.n)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if seen != len(want) {
		t.Errorf("%d open groups, want %d", seen, len(want))
	}
}

// checkIterated compares On over what All yields (the ledger's reading of its rows as
// the billing client's records, on the ledger's today) with On over the service's.
func checkIterated(t *testing.T, l *Ledger, at time.Time, bills map[string]billing.Bill) {
	t.Helper()
	n := 0
	for _, q := range []billing.Query{{}, {State: billing.StateDeleted}} {
		for got, err := range l.All(context.Background(), q) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			if g, w := component.On(got, at), component.On(bills[got.ComponentID], at); g != w {
				t.Errorf("at %s, %s as the ledger yields it (%s, raw %q): %+v; as the service sent it (%s): %+v",
					at.Format(time.RFC3339), got.ComponentID, got.State, got.RawState, g, bills[got.ComponentID].State, w)
			}
		}
	}
	if n != len(bills) {
		t.Errorf("All yielded %d components, stored %d", n, len(bills))
	}
}
