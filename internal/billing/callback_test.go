package billing

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/sandbox"
)

// The vector, computed here without the package's code: key
// hex(sha256("secret")), message "10014:REF123".
func TestCallbackSignatureVector(t *testing.T) {
	t.Parallel()
	inner := sha256.Sum256([]byte("secret"))
	m := hmac.New(sha256.New, []byte(hex.EncodeToString(inner[:])))
	m.Write([]byte("10014:REF123"))
	want := hex.EncodeToString(m.Sum(nil))
	// Also fixed as text (from `openssl dgst -sha256 -hmac`), so a wrong key above cannot hide.
	if want != "21f09292cced33be20696406bf177dcf826063dc4b833bc6f058b9e7ec814fed" {
		t.Fatalf("independent signature %s", want)
	}
	if got := CallbackSignature("secret", "10014", "REF123"); got != want {
		t.Errorf("CallbackSignature = %s, want %s", got, want)
	}
	if got := sandbox.CallbackSignature("secret", "10014", "REF123"); got != want {
		t.Errorf("the sandbox signs %s, want %s", got, want)
	}
	body := []byte(`{"biller_code": "10014", "ref_number": "REF123", "bill_key": "1001",
		"bill_component_list": [{"bill_component_id": "c1", "amount_paid": 1000, "state": "paid"}]}`)
	if _, err := VerifyCallback("secret", "10014", want, body, nil); err != nil {
		t.Errorf("the vector's callback: %v", err)
	}
}

func TestVerifyCallback(t *testing.T) {
	t.Parallel()
	jakarta := mustZone(t, "Asia/Jakarta")
	const issued, biller, ref = "issued-pw", "10014", "BCA2601051234ABCD"
	sig := CallbackSignature(issued, biller, ref)
	body := func(mod func(map[string]any)) []byte {
		b := map[string]any{
			"merchant_name": "BCA", "biller_name": "SMP Harapan", "biller_code": biller, "bill_name": "Ani",
			"bill_key": "1001", "total_bill_amount": 925000, "bill_quantity": 2, "admin_fee": 0,
			"ref_number": ref, "merchant_ref_number": "M-1", "paid_date": "2026-01-05T03:04:05Z",
			"bill_component_list": []any{
				map[string]any{"bill_component_id": "c1", "amount_paid": 475000, "amount_currency": "IDR", "notes": "n", "state": "paid", "ref_number": ref},
				map[string]any{"bill_component_id": "c2", "amount_paid": 450000, "amount_currency": "IDR", "state": "reconciled"},
			},
		}
		if mod != nil {
			mod(b)
		}
		raw, _ := json.Marshal(b)
		return raw
	}
	component := func(i int, k string, v any) func(map[string]any) {
		return func(b map[string]any) { b["bill_component_list"].([]any)[i].(map[string]any)[k] = v }
	}
	paidAt := time.Date(2026, 1, 5, 3, 4, 5, 0, time.UTC)
	ok := []struct {
		name   string
		header string
		body   []byte
		zone   *time.Location
		paidAt time.Time
	}{
		{"numbers", sig, body(nil), nil, paidAt},
		{"upper-case signature, spaces", " " + strings.ToUpper(sig) + " ", body(nil), nil, paidAt},
		{"numeric strings", sig, body(func(b map[string]any) {
			b["total_bill_amount"], b["bill_quantity"], b["admin_fee"] = "925000.00", "2", ""
			component(0, "amount_paid", "475000.00")(b)
			component(1, "amount_paid", "450000")(b)
		}), nil, paidAt},
		{"fractional seconds", sig, body(func(b map[string]any) { b["paid_date"] = "2026-01-05T03:04:05.000Z" }), nil, paidAt},
		{"zoneless paid_date is service time (Jakarta)", sig, body(func(b map[string]any) { b["paid_date"] = "2026-01-05T10:04:05" }), jakarta, paidAt},
		{"zoneless paid_date is service time (UTC)", sig, body(func(b map[string]any) { b["paid_date"] = "2026-01-05T03:04:05.000000" }), time.UTC, paidAt},
		{"zoneless, no zone given: Jakarta", sig, body(func(b map[string]any) { b["paid_date"] = "2026-01-05 10:04:05" }), nil, paidAt},
		{"unknown fields", sig, body(func(b map[string]any) { b["va_number"] = map[string]any{"x": 1} }), nil, paidAt},
		{"no biller_code in the body", sig, body(func(b map[string]any) { delete(b, "biller_code") }), nil, paidAt},
	}
	for _, tt := range ok {
		t.Run(tt.name, func(t *testing.T) {
			cb, err := VerifyCallback(issued, biller, tt.header, tt.body, tt.zone)
			if err != nil {
				t.Fatal(err)
			}
			if cb.RefNumber != ref || cb.NIS != "1001" || cb.StudentName != "Ani" || cb.Total != 925000 || cb.Quantity != 2 ||
				cb.MerchantName != "BCA" || cb.BillerCode != biller || !cb.PaidAt.Equal(tt.paidAt) || cb.PaidAt.Location() != time.UTC {
				t.Errorf("callback %+v", cb)
			}
			want := []CallbackComponent{
				{ComponentID: "c1", AmountPaid: 475000, Currency: "IDR", Notes: "n", State: StatePaid, RawState: "paid", RefNumber: ref},
				{ComponentID: "c2", AmountPaid: 450000, Currency: "IDR", State: StatePaid, RawState: "reconciled", RefNumber: ref},
			}
			if len(cb.Components) != 2 || cb.Components[0] != want[0] || cb.Components[1] != want[1] {
				t.Errorf("components %+v, want %+v", cb.Components, want)
			}
		})
	}

	bad := []struct {
		name   string
		header string
		body   []byte
		want   error
	}{
		{"no signature", "", body(nil), ErrBadSignature},
		{"not hex", "zz" + sig[2:], body(nil), ErrBadSignature},
		{"short", sig[:62], body(nil), ErrBadSignature},
		{"another reference's signature", CallbackSignature(issued, biller, "OTHER"), body(nil), ErrBadSignature},
		{"another password's signature", CallbackSignature("other", biller, ref), body(nil), ErrBadSignature},
		{"reference changed after signing", sig, body(func(b map[string]any) { b["ref_number"] = ref + "X" }), ErrBadSignature},
		{"another biller", CallbackSignature(issued, biller, ref), body(func(b map[string]any) { b["biller_code"] = "99999" }), ErrBadCallback},
		{"not JSON", sig, []byte(`ref_number=` + ref), ErrBadCallback},
		{"no reference", sig, body(func(b map[string]any) { delete(b, "ref_number") }), ErrBadCallback},
		{"no components", sig, body(func(b map[string]any) { b["bill_component_list"] = []any{} }), ErrBadCallback},
		{"component without id", sig, body(component(1, "bill_component_id", "")), ErrBadCallback},
		{"fractional rupiah", sig, body(component(0, "amount_paid", "475000.50")), ErrBadCallback},
		{"negative amount", sig, body(component(0, "amount_paid", -1)), ErrBadCallback},
		{"amount not a number", sig, body(component(0, "amount_paid", "banyak")), ErrBadCallback},
		{"bad paid_date", sig, body(func(b map[string]any) { b["paid_date"] = "kemarin" }), ErrBadCallback},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			cb, err := VerifyCallback(issued, biller, tt.header, tt.body, nil)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if cb.RefNumber != "" || cb.Components != nil {
				t.Errorf("a refused callback came back filled: %+v", cb)
			}
			if strings.Contains(err.Error(), issued) {
				t.Errorf("the password is in the error: %v", err)
			}
		})
	}
}

// receiver is a school's callback endpoint: it answers fail(n) for the n-th
// delivery (1-based) and records what it verified.
type receiver struct {
	mu       sync.Mutex
	calls    int
	verified []Callback
	errs     []error
	fail     func(n int) int
	verify   func(header string, body []byte) (Callback, error)
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.calls++
	n := rc.calls
	rc.mu.Unlock()
	if code := rc.fail(n); code != 0 {
		w.WriteHeader(code)
		return
	}
	cb, err := rc.verify(r.Header.Get(CallbackHeader), body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if err != nil || r.Header.Get("Content-Type") != "application/json" {
		rc.errs = append(rc.errs, fmt.Errorf("%v (content type %q)", err, r.Header.Get("Content-Type")))
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	rc.verified = append(rc.verified, cb)
	w.WriteHeader(http.StatusNoContent)
}

// bankPay pays components at the sandbox's "bank", which sends the callback.
func (e *env) bankPay(t *testing.T, nis string, ids ...string) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"bill_key": nis, "bill_component_list": ids, "merchant_name": "BCA"})
	req, _ := http.NewRequest("POST", e.ts.URL+"/_sandbox/bank-payment", bytes.NewReader(b))
	req.SetBasicAuth(testUser, DailyPassword(testIssued, e.srv.Now().In(e.srv.Location())))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("bank payment: %d", resp.StatusCode)
	}
}

// waitCallbacks polls the sandbox until done says its callbacks are settled.
func waitCallbacks(t *testing.T, srv *sandbox.Server, done func([]sandbox.Callback) bool) []sandbox.Callback {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		list := srv.Callbacks()
		if done(list) {
			return list
		}
		if time.Now().After(deadline) {
			t.Fatalf("callbacks not settled: %+v", list)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestSandboxCallbackRetriesUntilDelivered(t *testing.T) {
	t.Parallel()
	rc := &receiver{fail: func(n int) int {
		if n <= 2 {
			return http.StatusServiceUnavailable // the school's server is restarting
		}
		return 0
	}}
	recv := httptest.NewServer(rc)
	defer recv.Close()
	e := setup(t, func(o *sandbox.Options, c *Config) {
		o.CallbackURL = recv.URL + "/callback"
		o.CallbackRetries = []time.Duration{time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond}
	})
	rc.verify = e.c.VerifyCallback
	e.students(t, "1001")
	bs := e.upload(t, spp("1001", "late", day(2025, 12, 20), 450000, 25000), spp("1001", "due", day(2026, 1, 20), 300000, 25000))
	e.bankPay(t, "1001", bs[0].ComponentID, bs[1].ComponentID)

	list := waitCallbacks(t, e.srv, func(l []sandbox.Callback) bool { return len(l) == 1 && l[0].State != "pending" })
	cb := list[0]
	if !cb.Delivered || cb.State != "delivered" || len(cb.Attempts) != 3 ||
		cb.Attempts[0].Status != 503 || cb.Attempts[1].Status != 503 || cb.Attempts[2].Status != 204 {
		t.Fatalf("callback %+v, want delivered on the third attempt", cb)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.errs) > 0 || len(rc.verified) != 1 {
		t.Fatalf("receiver: verified %d, errors %v", len(rc.verified), rc.errs)
	}
	got := rc.verified[0]
	if got.NIS != "1001" || got.StudentName != "Siswa 1001" || got.Total != 775000 || got.Quantity != 2 ||
		got.RefNumber != cb.RefNumber || !strings.HasPrefix(got.RefNumber, "BCA260105") || !got.PaidAt.Equal(jakartaNoon) ||
		got.MerchantName != "BCA" || got.BillerCode != testUser {
		t.Errorf("verified callback %+v", got)
	}
	// Rule 2: the late one costs the penalty, as at the counter.
	if got.Components[0].ComponentID != bs[0].ComponentID || got.Components[0].AmountPaid != 475000 ||
		got.Components[1].AmountPaid != 300000 || got.Components[0].State != StatePaid {
		t.Errorf("components %+v", got.Components)
	}
	paid, _ := e.c.Search(context.Background(), Query{RefNumber: got.RefNumber})
	if len(paid) != 2 || paid[0].State != StatePaid {
		t.Errorf("the bank payment is not recorded: %+v", paid)
	}
}

func TestSandboxCallbackUndelivered(t *testing.T) {
	t.Parallel()
	rc := &receiver{fail: func(int) int { return http.StatusInternalServerError }}
	recv := httptest.NewServer(rc)
	defer recv.Close()
	e := setup(t, func(o *sandbox.Options, c *Config) {
		o.CallbackURL = recv.URL
		o.CallbackRetries = []time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond, 4 * time.Millisecond, 5 * time.Millisecond}
	})
	e.students(t, "1001")
	b := e.upload(t, spp("1001", "a", day(2026, 1, 20), 1000, 0))[0]
	e.bankPay(t, "1001", b.ComponentID)
	waitCallbacks(t, e.srv, func(l []sandbox.Callback) bool { return len(l) == 1 && l[0].State != "pending" })

	// The undelivered list as a tool sees it: GET /_sandbox/callbacks.
	req, _ := http.NewRequest("GET", e.ts.URL+"/_sandbox/callbacks", nil)
	req.SetBasicAuth(testUser, DailyPassword(testIssued, e.srv.Now().In(e.srv.Location())))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Data []sandbox.Callback `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		t.Fatal(err)
	}
	if len(env.Data) != 1 {
		t.Fatalf("%d callbacks listed", len(env.Data))
	}
	cb := env.Data[0]
	// The first attempt and one per pause of the schedule, then given up.
	if cb.State != "undelivered" || cb.Delivered || len(cb.Attempts) != 6 || cb.NextAttempt != nil || cb.Attempts[5].Status != 500 {
		t.Errorf("callback %+v, want undelivered after 6 attempts", cb)
	}
	var body map[string]any
	if json.Unmarshal(cb.Body, &body) != nil || body["ref_number"] != cb.RefNumber || cb.Signature != CallbackSignature(testIssued, testUser, cb.RefNumber) {
		t.Errorf("listed body %s, signature %s", cb.Body, cb.Signature)
	}
	if rc.calls != 6 {
		t.Errorf("the receiver saw %d attempts, want 6", rc.calls)
	}
}

func TestSandboxCloseAbandonsRetries(t *testing.T) {
	t.Parallel()
	hung := make(chan struct{})
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // hangs until the sandbox gives up the attempt
		case <-r.Context().Done():
		case <-hung:
		}
	}))
	defer recv.Close()
	defer close(hung)
	srv, err := sandbox.New(sandbox.Options{Username: testUser, Password: testIssued, Now: jakartaNoon,
		CallbackURL: recv.URL, CallbackRetries: []time.Duration{time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	e := &env{srv: srv, ts: ts}
	c, _ := New(Config{BaseURL: ts.URL, Username: testUser, Password: testIssued, Now: srv.Now})
	e.c = c
	e.students(t, "1001", "1002")
	b1 := e.upload(t, spp("1001", "a", day(2026, 1, 20), 1000, 0))[0]
	b2 := e.upload(t, spp("1002", "b", day(2026, 1, 20), 1000, 0))[0]
	e.bankPay(t, "1001", b1.ComponentID) // its attempt hangs
	e.bankPay(t, "1002", b2.ComponentID)
	waitCallbacks(t, srv, func(l []sandbox.Callback) bool { return len(l) == 2 })

	// Close returns with an attempt in flight; a second Close is harmless.
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	for _, cb := range srv.Callbacks() {
		if cb.State != "pending" || cb.Delivered {
			t.Errorf("after Close: %+v, want still pending", cb)
		}
	}
}

func TestSandboxBankPaymentsArriveOnTheirOwn(t *testing.T) {
	t.Parallel()
	rc := &receiver{fail: func(int) int { return 0 }}
	recv := httptest.NewServer(rc)
	defer recv.Close()
	e := setup(t, func(o *sandbox.Options, c *Config) {
		o.CallbackURL = recv.URL
		o.BankPayments = 5 * time.Millisecond
	})
	rc.verify = e.c.VerifyCallback
	e.students(t, "1001", "1002")
	e.upload(t, spp("1001", "a", day(2026, 1, 20), 1000, 0), spp("1002", "b", day(2026, 1, 10), 2000, 0),
		spp("1001", "expired", day(2025, 11, 1), 5000, 0))
	// Both payable components get paid, and nothing else: the expired one cannot be.
	list := waitCallbacks(t, e.srv, func(l []sandbox.Callback) bool {
		delivered := 0
		for _, cb := range l {
			if cb.Delivered {
				delivered++
			}
		}
		return delivered == 2
	})
	paid, _ := e.c.Search(context.Background(), Query{State: StatePaid})
	if len(paid) != 2 || len(list) != 2 {
		t.Fatalf("%d paid, %d callbacks; want 2 and 2", len(paid), len(list))
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var total int64
	for _, cb := range rc.verified {
		total += cb.Total
	}
	if len(rc.errs) > 0 || total != 3000 {
		t.Errorf("verified total %d (errors %v), want 3000", total, rc.errs)
	}
}
