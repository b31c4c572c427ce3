package ledger_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/store"
)

// component reads one component from the ledger.
func (e *env) component(id string) billing.Bill {
	e.t.Helper()
	for b, err := range e.l.All(context.Background(), billing.Query{}) {
		if err != nil {
			e.t.Fatal(err)
		}
		if b.ComponentID == id {
			return b
		}
	}
	e.t.Fatalf("component %s not in the ledger", id)
	return billing.Bill{}
}

// callbackOf is the stored callback of nis's payment.
func (e *env) callbackOf(nis string) ledger.StoredCallback {
	e.t.Helper()
	var found []ledger.StoredCallback
	for _, c := range e.callbacks() {
		if c.NIS == nis {
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		e.t.Fatalf("%d callbacks stored for %s, want 1", len(found), nis)
	}
	return found[0]
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

// sandboxCallback is the last callback the sandbox sent (or tried to).
func (e *env) sandboxCallback() (signature string, body []byte) {
	e.t.Helper()
	cbs := e.sb.Callbacks()
	if len(cbs) == 0 {
		e.t.Fatal("the sandbox sent no callback")
	}
	cb := cbs[len(cbs)-1]
	return cb.Signature, cb.Body
}

// TestCallbacks: a bank payment's callback marks the component paid at once, is stored
// once whatever the service does (resends after a lost answer, retries after a 500),
// is audited once, and a callback with a bad signature stores nothing.
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
		e.recv.mu.Lock()
		e.recv.drop = true
		e.recv.mu.Unlock()
		e.bankPay(b.NIS, b.ComponentID)
		e.waitCallbacks()
		e.recv.mu.Lock()
		e.recv.drop = false
		e.recv.mu.Unlock()
		sig, body := e.sandboxCallback()
		// The signature with its first byte changed (a real one starts with 00 once in 256).
		other := "00" + sig[2:]
		if other == sig {
			other = "ff" + sig[2:]
		}
		for _, bad := range []string{"", other, "not hex"} {
			_, err := e.l.ReceiveCallback(ctx, bad, body)
			if !errors.Is(err, ledger.ErrCallbackRefused) || !errors.Is(err, billing.ErrBadSignature) {
				t.Errorf("signature %q: %v", bad, err)
			}
		}
		tampered := []byte(string(body[:len(body)-2]) + " }")
		if _, err := e.l.ReceiveCallback(ctx, sig, []byte(`{"ref_number": "OTHER"}`)); !errors.Is(err, ledger.ErrCallbackRefused) {
			t.Errorf("another ref under this signature: %v", err)
		}
		_ = tampered
		if n := len(e.callbacks()); n != 0 {
			t.Errorf("%d callbacks stored", n)
		}
		if n := len(e.audit(ledger.ActionCallback)); n != 0 {
			t.Errorf("%d callback audit entries", n)
		}
		if got := e.component(b.ComponentID); got.State == billing.StatePaid {
			t.Error("a refused callback paid the component")
		}
		// The real one, delivered late (by hand here): stored, applied.
		res, err := e.l.ReceiveCallback(ctx, sig, body)
		if err != nil || res.Applied != 1 || res.Duplicate {
			t.Fatalf("late delivery: %+v %v", res, err)
		}
	})

	t.Run("paid at once", func(t *testing.T) {
		b := payable(st[1].NIS)
		seq, _ := e.l.ChangeSeq(ctx)
		e.bankPay(b.NIS, b.ComponentID)
		e.waitCallbacks()
		got := e.component(b.ComponentID)
		if got.State != billing.StatePaid || got.AmountPaid < b.Amount || got.RefNumber == "" || got.PaidAt.IsZero() {
			t.Fatalf("after the callback: %+v", got)
		}
		if now, _ := e.l.ChangeSeq(ctx); now == seq {
			t.Error("the change sequence did not move")
		}
		d, err := e.l.Dashboard(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if d.CollectedToday.Count != 2 || d.CollectedToday.Amount < 2*b.Amount-100_000 {
			t.Errorf("collected today = %+v", d.CollectedToday)
		}
	})

	t.Run("resent after a lost answer: stored once", func(t *testing.T) {
		b := payable(st[2].NIS)
		e.recv.mu.Lock()
		e.recv.lose = 1
		e.recv.mu.Unlock()
		e.bankPay(b.NIS, b.ComponentID)
		e.waitCallbacks()
		if cb := e.callbackOf(b.NIS); cb.Deliveries != 2 || cb.Applied != 1 {
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
		e.recv.mu.Lock()
		e.recv.drop = true
		e.recv.mu.Unlock()
		e.bankPay(b.NIS, b.ComponentID)
		e.waitCallbacks()
		e.recv.mu.Lock()
		e.recv.drop = false
		e.recv.mu.Unlock()
		sig, body := e.sandboxCallback()
		before := len(e.callbacks())
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := e.l.ReceiveCallback(cancelled, sig, body); err == nil {
			t.Fatal("stored on a cancelled request")
		}
		if n := len(e.callbacks()); n != before {
			t.Fatalf("a failed store left %d callbacks, want %d", n, before)
		}
		if got := e.component(b.ComponentID); got.State == billing.StatePaid {
			t.Fatal("a failed store paid the component")
		}
		for range 2 {
			if _, err := e.l.ReceiveCallback(ctx, sig, body); err != nil {
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
		// The service's own record afterwards replaces the callback's view.
		e.sync()
		e.sameAsService()
	})

	t.Run("a component the ledger has not seen yet", func(t *testing.T) {
		fresh := e.components([]billing.Student{{NIS: "C0006"}}, 4, "Wisata")[3] // due this month
		e.bankPay(fresh.NIS, fresh.ComponentID)
		e.waitCallbacks()
		var cb ledger.StoredCallback
		for _, c := range e.callbacks() {
			if c.Body != "" && c.Pending > 0 {
				cb = c
			}
		}
		if cb.Pending != 1 || cb.Applied != 0 {
			t.Fatalf("no callback waiting for its component: %+v", e.callbacks())
		}
		e.sync()
		if got := e.component(fresh.ComponentID); got.State != billing.StatePaid {
			t.Errorf("after the sync: %s", got.State)
		}
		for _, c := range e.callbacks() {
			if c.Pending != 0 {
				t.Errorf("still pending after the sync: %+v", c)
			}
		}
		e.sameAsService()
	})
}
