package ledger_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
)

// component reads one component from the ledger.
func (e *env) component(id string) billing.Bill {
	e.t.Helper()
	b, err := e.l.Component(context.Background(), id)
	if err != nil {
		e.t.Fatalf("component %s in the ledger: %v", id, err)
	}
	return b
}

// callbackOf is the stored callback of nis's payment.
func (e *env) callbackOf(nis string) ledger.StoredCallback {
	e.t.Helper()
	var found []ledger.StoredCallback
	for _, c := range e.callbacks() {
		if c.Callback.NIS == nis {
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		e.t.Fatalf("%d callbacks stored for %s, want 1", len(found), nis)
	}
	return found[0]
}

// callback is the stored callback of reference ref.
func (e *env) callback(ref string) ledger.StoredCallback {
	e.t.Helper()
	for _, c := range e.callbacks() {
		if c.RefNumber == ref {
			return c
		}
	}
	e.t.Fatalf("no callback stored for %s", ref)
	return ledger.StoredCallback{}
}

func (e *env) callbacks() []ledger.StoredCallback {
	e.t.Helper()
	cbs, err := e.l.Callbacks(context.Background(), 100)
	if err != nil {
		e.t.Fatal(err)
	}
	return cbs
}

func (e *env) audit(action string) []store.AuditEntry {
	e.t.Helper()
	es, _, err := e.db.ListAudit(context.Background(), store.AuditFilter{Action: action, Limit: 500})
	if err != nil {
		e.t.Fatal(err)
	}
	return es
}

// undelivered pays ids of nis at a bank while the portal receives nothing, and returns
// the callback the service signed for it (for the test to deliver, or to forge from).
func (e *env) undelivered(nis string, ids ...string) (ref, signature string, body []byte) {
	e.t.Helper()
	e.recv.mu.Lock()
	e.recv.drop = true
	e.recv.mu.Unlock()
	defer func() {
		e.recv.mu.Lock()
		e.recv.drop = false
		e.recv.mu.Unlock()
	}()
	e.bankPay(nis, ids...)
	e.waitCallbacks()
	cbs := e.sb.Callbacks()
	cb := cbs[len(cbs)-1]
	return cb.RefNumber, cb.Signature, cb.Body
}

// edited is a callback body changed by edit (what an attacker sends under its signature).
func edited(t testing.TB, body []byte, edit func(map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// await waits, however long it takes, until cond holds (a test that only waits for work
// in the background; the test's own timeout is the bound).
func await(cond func() bool) {
	for !cond() {
		time.Sleep(5 * time.Millisecond)
	}
}

// TestCallbacks: a bank payment's callback is confirmed with the service and its
// payment is in the ledger at once (no sync), stored once whatever the service does
// (resends after a lost answer, retries after a 500), audited once; a callback with a bad
// signature stores nothing.
func TestCallbacks(t *testing.T) { eachEngine(t, testCallbacks) }

func testCallbacks(t *testing.T, engine string) {
	e := newEnvOn(t, engine, syncNow)
	ctx := context.Background()
	st := e.students("C", 6)
	bills := e.components(st, 12, "SPP")
	e.sync()
	byNIS := map[string][]billing.Bill{}
	for _, b := range bills {
		byNIS[b.NIS] = append(byNIS[b.NIS], b)
	}
	payable := func(nis string) billing.Bill {
		for _, b := range byNIS[nis] {
			if e.component(b.ComponentID).State == billing.StateProvisioned {
				return b
			}
		}
		t.Fatalf("nothing payable for %s", nis)
		return billing.Bill{}
	}

	t.Run("bad signature stores nothing", func(t *testing.T) {
		b := payable(st[0].NIS)
		_, sig, body := e.undelivered(b.NIS, b.ComponentID)
		// The signature with its first byte changed (a real one starts with 00 once in 256).
		other := "00" + sig[2:]
		if other == sig {
			other = "ff" + sig[2:]
		}
		for _, bad := range []string{"", other, "not hex"} {
			_, err := e.cf.Receive(ctx, bad, body)
			if !errors.Is(err, ledger.ErrCallbackRefused) || !errors.Is(err, billing.ErrBadSignature) {
				t.Errorf("signature %q: %v", bad, err)
			}
		}
		if _, err := e.cf.Receive(ctx, sig, []byte(`{"ref_number": "OTHER"}`)); !errors.Is(err, ledger.ErrCallbackRefused) {
			t.Errorf("another ref under this signature: %v", err)
		}
		if n := len(e.callbacks()); n != 0 {
			t.Errorf("%d callbacks stored", n)
		}
		if n := len(e.audit(ledger.ActionCallback)); n != 0 {
			t.Errorf("%d callback audit entries", n)
		}
		if got := e.component(b.ComponentID); got.State == billing.StatePaid {
			t.Error("a refused callback paid the component")
		}
		// The real one, delivered late (by hand here): stored, confirmed, recorded.
		res, err := e.cf.Receive(ctx, sig, body)
		if err != nil || res.Status != ledger.CallbackConfirmed || res.Applied != 1 || res.Duplicate || len(res.Disagreements) != 0 {
			t.Fatalf("late delivery: %+v %v", res, err)
		}
	})

	t.Run("paid at once", func(t *testing.T) {
		b := payable(st[1].NIS)
		seq, _ := e.l.ChangeSeq(ctx)
		runs, _ := e.l.Runs(ctx, "", 100)
		e.bankPay(b.NIS, b.ComponentID)
		e.waitCallbacks()
		got := e.component(b.ComponentID)
		want, err := e.c.GetComponent(ctx, b.ComponentID)
		if err != nil {
			t.Fatal(err)
		}
		if got.State != billing.StatePaid || got.AmountPaid != want.AmountPaid || got.RefNumber != want.RefNumber ||
			!got.PaidAt.Equal(want.PaidAt) || !got.UpdatedAt.Equal(want.UpdatedAt) {
			t.Fatalf("after the callback the ledger has %+v, the service %+v", got, want)
		}
		if now, _ := e.l.ChangeSeq(ctx); now == seq {
			t.Error("the change sequence did not move")
		}
		if after, _ := e.l.Runs(ctx, "", 100); len(after) != len(runs) {
			t.Error("a sync ran")
		}
		d, err := e.l.Dashboard(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if d.CollectedToday.Count != 2 || d.CollectedToday.Amount < 2*b.Amount-100_000 {
			t.Errorf("collected today = %+v", d.CollectedToday)
		}
		if cb := e.callbackOf(b.NIS); cb.Status != ledger.CallbackConfirmed || cb.Service.NIS != b.NIS || cb.Service.Total != want.AmountPaid ||
			cb.Service.Components != 1 || cb.Attempts != 1 || cb.ConfirmedAt.IsZero() {
			t.Errorf("stored callback %+v", cb)
		}
		if u, _ := e.l.UnconfirmedPayments(ctx); u.Count != 0 {
			t.Errorf("unconfirmed %+v", u)
		}
	})

	t.Run("resent after a lost answer: stored once", func(t *testing.T) {
		b := payable(st[2].NIS)
		e.recv.mu.Lock()
		e.recv.lose = 1
		e.recv.mu.Unlock()
		e.bankPay(b.NIS, b.ComponentID)
		e.waitCallbacks()
		if cb := e.callbackOf(b.NIS); cb.Deliveries != 2 || cb.Applied != 1 || cb.Status != ledger.CallbackConfirmed || cb.OtherBodies != 0 {
			t.Fatalf("callback %+v, want it delivered twice", cb)
		}
		n := 0
		for _, a := range e.audit(ledger.ActionCallback) {
			if a.Target == b.NIS {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d audit entries for one payment", n)
		}
	})

	t.Run("retried after a 500: stored once", func(t *testing.T) {
		b := payable(st[3].NIS)
		e.recv.mu.Lock()
		e.recv.fail = 1
		e.recv.mu.Unlock()
		e.bankPay(b.NIS, b.ComponentID)
		e.waitCallbacks()
		if cb := e.callbackOf(b.NIS); cb.Deliveries != 1 || cb.Applied != 1 {
			t.Fatalf("callback %+v", cb)
		}
		if got := e.component(b.ComponentID); got.State != billing.StatePaid {
			t.Errorf("after the retry: %s", got.State)
		}
	})

	t.Run("a failed store keeps nothing, the retry stores once", func(t *testing.T) {
		b := payable(st[4].NIS)
		_, sig, body := e.undelivered(b.NIS, b.ComponentID)
		before := len(e.callbacks())
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := e.cf.Receive(cancelled, sig, body); err == nil {
			t.Fatal("stored on a cancelled request")
		}
		if n := len(e.callbacks()); n != before {
			t.Fatalf("a failed store left %d callbacks, want %d", n, before)
		}
		if got := e.component(b.ComponentID); got.State == billing.StatePaid {
			t.Fatal("a failed store paid the component")
		}
		for range 2 {
			if _, err := e.cf.Receive(ctx, sig, body); err != nil {
				t.Fatal(err)
			}
		}
		if n := len(e.callbacks()); n != before+1 {
			t.Errorf("%d callbacks, want %d", n, before+1)
		}
	})

	t.Run("a page read before the payment does not undo it", func(t *testing.T) {
		b := payable(st[5].NIS)
		stale := e.component(b.ComponentID) // as a sync read it before the payment
		e.bankPay(b.NIS, b.ComponentID)
		e.waitCallbacks()
		res, err := e.l.Upsert(ctx, []billing.Bill{stale})
		if err != nil {
			t.Fatal(err)
		}
		if got := e.component(b.ComponentID); got.State != billing.StatePaid || res.Stale != 1 {
			t.Fatalf("a stale record moved the component back: %s (%+v)", got.State, res)
		}
		e.sync()
		e.sameAsService()
	})

	t.Run("a component the ledger has not seen yet", func(t *testing.T) {
		fresh := e.components([]billing.Student{{NIS: "C0006"}}, 4, "Wisata")[3] // due this month
		e.bankPay(fresh.NIS, fresh.ComponentID)
		e.waitCallbacks()
		// The service's answer carries the whole record: no sync needed to have it.
		if got := e.component(fresh.ComponentID); got.State != billing.StatePaid || got.Name != fresh.Name {
			t.Errorf("before any sync: %+v", got)
		}
		cbs := e.sb.Callbacks()
		if cb := e.callback(cbs[len(cbs)-1].RefNumber); cb.Status != ledger.CallbackConfirmed || cb.Applied != 1 {
			t.Errorf("callback %+v", cb)
		}
		e.sync()
		e.sameAsService()
	})
}

// TestCallbackBodiesAreNotBelieved: one valid signature, any body. Whatever a body
// under it says (another student, another component, Rp 1, an expired bill, a date in
// 2099), the ledger records only what the service holds of the reference; the callback is
// kept, marked disputed with what disagreed, and audited.
func TestCallbackBodiesAreNotBelieved(t *testing.T) { eachEngine(t, testCallbackBodiesAreNotBelieved) }

func testCallbackBodiesAreNotBelieved(t *testing.T, engine string) {
	e := newEnvOn(t, engine, syncNow)
	ctx := context.Background()
	st := e.students("F", 3)
	bills := e.components(st, 9, "SPP") // the first ones expired already
	e.sync()
	var open, expired []billing.Bill
	for _, b := range bills {
		switch e.component(b.ComponentID).State {
		case billing.StateProvisioned:
			open = append(open, b)
		case billing.StateExpired:
			expired = append(expired, b)
		}
	}
	if len(open) < 4 || len(expired) == 0 {
		t.Fatalf("%d open, %d expired components to work with", len(open), len(expired))
	}
	paid, target := open[0], open[1]
	ref, sig, body := e.undelivered(paid.NIS, paid.ComponentID)
	forged := edited(t, body, func(m map[string]any) {
		m["bill_key"], m["total_bill_amount"], m["paid_date"] = "99999999", 1, "2099-01-01T00:00:00Z"
		m["bill_component_list"] = []any{
			map[string]any{"bill_component_id": target.ComponentID, "amount_paid": 1, "state": "paid", "ref_number": ref},
			map[string]any{"bill_component_id": expired[0].ComponentID, "amount_paid": 1, "state": "paid", "ref_number": ref},
		}
	})
	res, err := e.cf.Receive(ctx, sig, forged)
	if err != nil || res.Status != ledger.CallbackDisputed {
		t.Fatalf("forged first delivery: %+v %v", res, err)
	}
	for _, b := range []billing.Bill{target, expired[0]} {
		if got := e.component(b.ComponentID); got.State == billing.StatePaid {
			t.Errorf("%s paid by a forged body", b.Name)
		}
	}
	// The reference's real payment is what the ledger holds, as the service has it.
	want, _ := e.c.GetComponent(ctx, paid.ComponentID)
	if got := e.component(paid.ComponentID); got.State != billing.StatePaid || got.AmountPaid != want.AmountPaid || !got.PaidAt.Equal(want.PaidAt) {
		t.Errorf("the real payment: %+v", got)
	}
	kinds := map[ledger.DisagreementKind]int{}
	for _, d := range res.Disagreements {
		kinds[d.Kind]++
	}
	if kinds[ledger.DisagreeStudent] != 1 || kinds[ledger.DisagreeComponent] != 2 || kinds[ledger.DisagreeOmitted] != 1 ||
		kinds[ledger.DisagreeTotal] != 1 || kinds[ledger.DisagreeDate] != 1 {
		t.Errorf("disagreements %+v", res.Disagreements)
	}
	cb := e.callback(ref)
	if cb.Status != ledger.CallbackDisputed || cb.Callback.NIS != "99999999" || cb.Service.NIS != paid.NIS ||
		cb.Service.Total != want.AmountPaid || cb.Callback.Total != 1 || len(cb.Disagreements) != len(res.Disagreements) {
		t.Errorf("stored %+v", cb)
	}
	if a := e.audit(ledger.ActionCallbackDisputed); len(a) != 1 || a[0].Outcome != ledger.OutcomeDenied || a[0].Target != paid.NIS ||
		!strings.Contains(a[0].Detail, "student 99999999") {
		t.Errorf("audit %+v", a)
	}
	flagged, err := e.l.FlaggedCallbacks(ctx, 0)
	if err != nil || len(flagged) != 1 || flagged[0].RefNumber != ref {
		t.Fatalf("flagged %+v %v", flagged, err)
	}
	for _, d := range flagged[0].Disagreements {
		if d.Component != "" && d.ComponentName == "" {
			t.Errorf("a disagreement names no component: %+v", d)
		}
	}

	// The genuine body arrives after: counted, kept aside, nothing applied again.
	res, err = e.cf.Receive(ctx, sig, body)
	if err != nil || !res.Duplicate || !res.OtherBody || res.Status != ledger.CallbackDisputed {
		t.Fatalf("the genuine body after a forged one: %+v %v", res, err)
	}
	if cb := e.callback(ref); cb.Deliveries != 2 || cb.OtherBodies != 1 || cb.OtherBody == nil || cb.OtherBody.NIS != paid.NIS ||
		cb.Callback.NIS != "99999999" {
		t.Errorf("after the resend %+v", cb)
	}
	if a := e.audit(ledger.ActionCallbackResent); len(a) != 1 {
		t.Errorf("%d resend audit entries", len(a))
	}
	// A second one with another body again is counted, not audited again.
	if _, err := e.cf.Receive(ctx, sig, edited(t, body, func(m map[string]any) { m["merchant_name"] = "Elsewhere" })); err != nil {
		t.Fatal(err)
	}
	if cb := e.callback(ref); cb.OtherBodies != 2 || len(e.audit(ledger.ActionCallbackResent)) != 1 {
		t.Errorf("the second resend with another body: %d, %d audited", cb.OtherBodies, len(e.audit(ledger.ActionCallbackResent)))
	}

	// An amount that is not what the service has, on the right component: the service's amount.
	paid2 := open[2]
	ref2, sig2, body2 := e.undelivered(paid2.NIS, paid2.ComponentID)
	res, err = e.cf.Receive(ctx, sig2, edited(t, body2, func(m map[string]any) {
		m["total_bill_amount"] = 1
		m["bill_component_list"] = []any{map[string]any{"bill_component_id": paid2.ComponentID, "amount_paid": 1, "state": "paid", "ref_number": ref2}}
	}))
	if err != nil || res.Status != ledger.CallbackDisputed || len(res.Disagreements) != 2 || res.Disagreements[0].Kind != ledger.DisagreeAmount ||
		res.Disagreements[0].CallbackAmount != 1 {
		t.Fatalf("amount_paid 1: %+v %v", res, err)
	}
	if got, want := e.component(paid2.ComponentID), e.walkOne(paid2.ComponentID); got.AmountPaid != want.AmountPaid {
		t.Errorf("amount paid %d, the service says %d", got.AmountPaid, want.AmountPaid)
	}
	for range 5 {
		e.sync()
	}
	e.sameAsService()
}

// walkOne is the service's record of component id.
func (e *env) walkOne(id string) billing.Bill {
	e.t.Helper()
	b, err := e.c.GetComponent(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return b
}

// TestCallbackWaitsForTheService: while the service does not answer, a callback is
// stored and waits, counted as announced but unconfirmed, its payment in no figure; the
// worker asks again with a back-off and confirms it once the service answers.
func TestCallbackWaitsForTheService(t *testing.T) { eachEngine(t, testCallbackWaitsForTheService) }

func testCallbackWaitsForTheService(t *testing.T, engine string) {
	e := newEnvOn(t, engine, syncNow)
	ctx := context.Background()
	st := e.students("W", 1)
	bills := e.components(st, 6, "SPP")
	e.sync()
	var b billing.Bill
	for _, c := range bills {
		if e.component(c.ComponentID).State == billing.StateProvisioned {
			b = c
		}
	}
	before, err := e.l.Dashboard(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e.sb.SetFaults(sandbox.Faults{ErrorRate: 1, Status: 503})
	e.bankPay(b.NIS, b.ComponentID)
	e.waitCallbacks()
	cbs := e.sb.Callbacks()
	if last := cbs[len(cbs)-1]; !last.Delivered {
		t.Fatalf("the route did not answer 2xx once it stored the notice: %+v", last.Attempts)
	}
	if got := e.component(b.ComponentID); got.State == billing.StatePaid {
		t.Fatal("paid in the ledger before the service confirmed it")
	}
	u, err := e.l.UnconfirmedPayments(ctx)
	if err != nil || u.Count != 1 || u.Total < b.Amount || u.Since.IsZero() {
		t.Fatalf("unconfirmed %+v %v", u, err)
	}
	if d, _ := e.l.Dashboard(ctx); d.CollectedToday != before.CollectedToday {
		t.Errorf("collected today %+v before the service confirmed, %+v before the payment", d.CollectedToday, before.CollectedToday)
	}
	stats, err := e.l.CallbackStats(ctx, e.sb.Now().AddDate(0, 0, -7))
	if err != nil || stats.Waiting != 1 || stats.LastProblem != ledger.ProblemUnavailable || stats.LastAttempt.IsZero() {
		t.Fatalf("stats %+v %v", stats, err)
	}

	// The worker asks again while the service is down...
	if err := e.cf.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.cf.Stop(context.Background()) })
	cb := e.callbackOf(b.NIS)
	await(func() bool { return e.callbackOf(b.NIS).Attempts >= cb.Attempts+2 })
	if cb := e.callbackOf(b.NIS); cb.Status != ledger.CallbackUnconfirmed {
		t.Fatalf("confirmed while the service is down: %+v", cb)
	}
	// ...and confirms it once it answers.
	e.sb.SetFaults(sandbox.Faults{})
	await(func() bool { return e.callbackOf(b.NIS).Status != ledger.CallbackUnconfirmed })
	if cb := e.callbackOf(b.NIS); cb.Status != ledger.CallbackConfirmed || cb.Applied != 1 {
		t.Fatalf("after the service came back: %+v", cb)
	}
	if got := e.component(b.ComponentID); got.State != billing.StatePaid {
		t.Errorf("after the confirmation: %s", got.State)
	}
	if u, _ := e.l.UnconfirmedPayments(ctx); u.Count != 0 {
		t.Errorf("still unconfirmed: %+v", u)
	}
	if a := e.audit(ledger.ActionCallback); len(a) != 1 {
		t.Errorf("%d audit entries", len(a))
	}
}

// TestCallbackConfirmedAfterARestart: the process stores a callback and stops before
// asking the service; a resend with another body arrives meanwhile. After the restart
// the worker confirms it from the stored first body alone.
func TestCallbackConfirmedAfterARestart(t *testing.T) {
	eachEngine(t, testCallbackConfirmedAfterARestart)
}

func testCallbackConfirmedAfterARestart(t *testing.T, engine string) {
	e := newEnvOn(t, engine, syncNow)
	ctx := context.Background()
	st := e.students("R", 2)
	bills := e.components(st, 8, "SPP")
	e.sync()
	var open []billing.Bill
	for _, c := range bills {
		if e.component(c.ComponentID).State == billing.StateProvisioned {
			open = append(open, c)
		}
	}
	b, other := open[0], open[1]
	ref, sig, body := e.undelivered(b.NIS, b.ComponentID)
	res, err := e.l.ReceiveCallback(ctx, sig, body) // stored; the process stops here
	if err != nil || res.Status != ledger.CallbackUnconfirmed {
		t.Fatalf("stored: %+v %v", res, err)
	}
	forged := edited(t, body, func(m map[string]any) {
		m["bill_key"] = other.NIS
		m["bill_component_list"] = []any{map[string]any{"bill_component_id": other.ComponentID, "amount_paid": other.Amount, "state": "paid"}}
	})
	if res, err := e.l.ReceiveCallback(ctx, sig, forged); err != nil || !res.OtherBody {
		t.Fatalf("the resend with another body: %+v %v", res, err)
	}
	if got := e.component(b.ComponentID); got.State == billing.StatePaid {
		t.Fatal("paid before the service was asked")
	}

	// The restart: a new ledger and confirmer over the same database.
	l2, err := ledger.New(ctx, ledger.Config{DB: e.db, Clock: clock.New(e.sb.Now, jakarta), Verify: e.c.VerifyCallback,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	cf2, err := ledger.NewConfirmer(ledger.ConfirmConfig{Ledger: l2, Client: e.c, Clock: clock.New(e.sb.Now, jakarta),
		Poll: time.Hour, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := cf2.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cf2.Stop(context.Background()) })
	await(func() bool { return e.callback(ref).Status != ledger.CallbackUnconfirmed })
	cb := e.callback(ref)
	if cb.Status != ledger.CallbackConfirmed || cb.Callback.NIS != b.NIS || cb.OtherBodies != 1 || cb.Deliveries != 2 {
		t.Fatalf("after the restart: %+v", cb)
	}
	if got := e.component(b.ComponentID); got.State != billing.StatePaid {
		t.Errorf("the payment: %s", got.State)
	}
	if got := e.component(other.ComponentID); got.State == billing.StatePaid {
		t.Error("the resend's body was applied")
	}
}

// TestCallbackTheServiceDoesNotKnow: a reference the service lists no component with is
// asked about a few times (the service's records may lag its callbacks by a moment),
// then the callback is disputed and nothing of it recorded.
func TestCallbackTheServiceDoesNotKnow(t *testing.T) {
	t.Parallel()
	e := newEnv(t, syncNow)
	ctx := context.Background()
	st := e.students("U", 1)
	b := e.components(st, 6, "SPP")[5]
	e.sync()
	body, _ := json.Marshal(map[string]any{"biller_code": sbUser, "bill_key": b.NIS, "ref_number": "NOPE-1", "total_bill_amount": b.Amount,
		"paid_date":           e.sb.Now().Format(time.RFC3339),
		"bill_component_list": []any{map[string]any{"bill_component_id": b.ComponentID, "amount_paid": b.Amount, "state": "paid"}}})
	sig := billing.CallbackSignature(sbPass, sbUser, "NOPE-1")
	res, err := e.cf.Receive(ctx, sig, body)
	if err != nil || res.Status != ledger.CallbackUnconfirmed {
		t.Fatalf("first: %+v %v", res, err)
	}
	if cb := e.callback("NOPE-1"); cb.LastProblem != ledger.ProblemUnknownRef || cb.Attempts != 1 {
		t.Fatalf("stored %+v", cb)
	}
	for i := 0; e.callback("NOPE-1").Status == ledger.CallbackUnconfirmed; i++ {
		if i > 10 {
			t.Fatal("never disputed")
		}
		if _, err := e.cf.Confirm(ctx, "NOPE-1"); err != nil {
			t.Fatal(err)
		}
	}
	cb := e.callback("NOPE-1")
	if cb.Status != ledger.CallbackDisputed || cb.Attempts != 5 || len(cb.Disagreements) != 1 || cb.Disagreements[0].Kind != ledger.DisagreeUnknown ||
		cb.Service.Components != 0 {
		t.Errorf("disputed %+v", cb)
	}
	if got := e.component(b.ComponentID); got.State == billing.StatePaid {
		t.Error("paid by a reference the service does not know")
	}
}

// TestOldCallbackRowsAreCorrected: rows an old callback marked paid as it came (no
// record of the service behind them: no updated_at) are asked about by the next
// incremental sync and corrected from the service, audited; a reconcile corrects them
// too. Before callbacks were confirmed, such rows survived every sync.
func TestOldCallbackRowsAreCorrected(t *testing.T) { eachEngine(t, testOldCallbackRowsAreCorrected) }

func testOldCallbackRowsAreCorrected(t *testing.T, engine string) {
	e := newEnvOn(t, engine, syncNow)
	ctx := context.Background()
	st := e.students("O", 2)
	bills := e.components(st, 10, "SPP")
	e.sync()
	var open []billing.Bill
	for _, b := range bills {
		if e.component(b.ComponentID).State == billing.StateProvisioned {
			open = append(open, b)
		}
	}
	if len(open) < 4 {
		t.Fatalf("%d open components", len(open))
	}
	// One really paid at the counter (the ledger will read it), with the old receiver's
	// view of a forged callback over it.
	if _, err := e.c.Pay(ctx, billing.Payment{NIS: open[2].NIS, RefNumber: "K-1", ComponentIDs: []string{open[2].ComponentID}}); err != nil {
		t.Fatal(err)
	}
	e.sync()
	forged := func(b billing.Bill) billing.Bill {
		f := e.component(b.ComponentID)
		f.State, f.RawState, f.AmountPaid, f.PaidAt, f.RefNumber = billing.StatePaid, "paid", 1, time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC), "FORGED"
		f.UpdatedAt = time.Time{} // what the old receiver left: no record of the service behind it
		return f
	}
	if _, err := e.l.Upsert(ctx, []billing.Bill{forged(open[0]), forged(open[2])}); err != nil {
		t.Fatal(err)
	}
	if got := e.component(open[0].ComponentID); got.State != billing.StatePaid {
		t.Fatal("the old rows were not written")
	}
	r, err := e.s.RunIncremental(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Callbacks != 2 {
		t.Errorf("the sync corrected %d callback payments (%s)", r.Callbacks, r.Summary())
	}
	for range 4 {
		e.sync()
	}
	e.sameAsService()
	if n := len(e.audit(ledger.ActionReconcileComponent)); n != 2 {
		t.Errorf("%d corrections audited", n)
	}
	// The reconcile corrects such a row too, as it meets it.
	if _, err := e.l.Upsert(ctx, []billing.Bill{forged(open[1])}); err != nil {
		t.Fatal(err)
	}
	e.reconcile()
	e.sameAsService()
}

// TestCallbackWorkerOnOneInstance: two instances' workers over one database ask the
// service about the waiting callbacks once between them (the lease), and each callback
// is confirmed and audited once.
func TestCallbackWorkerOnOneInstance(t *testing.T) { eachEngine(t, testCallbackWorkerOnOneInstance) }

func testCallbackWorkerOnOneInstance(t *testing.T, engine string) {
	e := newEnvOn(t, engine, syncNow)
	ctx := context.Background()
	st := e.students("L", 4)
	bills := e.components(st, 24, "SPP")
	e.sync()
	var refs []string
	for _, b := range bills {
		if e.component(b.ComponentID).State != billing.StateProvisioned {
			continue
		}
		ref := "L-" + b.ComponentID
		paid, err := e.c.Pay(ctx, billing.Payment{NIS: b.NIS, RefNumber: ref, ComponentIDs: []string{b.ComponentID}})
		if err != nil {
			t.Fatal(err)
		}
		body, _ := json.Marshal(map[string]any{"biller_code": sbUser, "bill_key": b.NIS, "ref_number": ref,
			"bill_component_list": []any{map[string]any{"bill_component_id": b.ComponentID, "amount_paid": paid[0].AmountPaid, "state": "paid"}}})
		if _, err := e.l.ReceiveCallback(ctx, billing.CallbackSignature(sbPass, sbUser, ref), body); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, ref)
	}
	if len(refs) < 5 {
		t.Fatalf("%d callbacks", len(refs))
	}
	e.quiet()
	before := e.calls.Load()
	var workers []*ledger.Confirmer
	for i := range 2 {
		l, err := ledger.New(ctx, ledger.Config{DB: e.db, Clock: clock.New(e.sb.Now, jakarta), Verify: e.c.VerifyCallback,
			Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		cf, err := ledger.NewConfirmer(ledger.ConfirmConfig{Ledger: l, Client: e.c, Clock: clock.New(e.sb.Now, jakarta),
			Owner: fmt.Sprint("instance-", i), Poll: 10 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		workers = append(workers, cf)
	}
	for _, cf := range workers {
		if err := cf.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cf.Stop(context.Background()) })
	}
	await(func() bool {
		u, err := e.l.UnconfirmedPayments(ctx)
		return err == nil && u.Count == 0
	})
	if calls := e.calls.Load() - before; calls != int64(len(refs)) {
		t.Errorf("%d calls to the service for %d callbacks", calls, len(refs))
	}
	if n := len(e.audit(ledger.ActionCallback)); n != len(refs) {
		t.Errorf("%d audit entries for %d callbacks", n, len(refs))
	}
	for _, ref := range refs {
		if cb := e.callback(ref); cb.Status != ledger.CallbackConfirmed || cb.Attempts != 1 {
			t.Errorf("%s: %+v", ref, cb)
		}
	}
}
