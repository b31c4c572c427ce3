package sandbox

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode"
)

// Callback is one payment callback the service sent, or tried to send, to the
// school's callback URL (GET /_sandbox/callbacks lists them, oldest first).
type Callback struct {
	ID        int               `json:"id"`
	RefNumber string            `json:"ref_number"`
	BillKey   string            `json:"bill_key"`
	URL       string            `json:"url"`
	Signature string            `json:"signature"` // the X-IDN-CS header
	Body      json.RawMessage   `json:"body"`
	State     string            `json:"state"` // pending, delivered or undelivered
	Delivered bool              `json:"delivered"`
	Attempts  []CallbackAttempt `json:"attempts"`
	// NextAttempt is when a pending callback is tried again.
	NextAttempt *time.Time `json:"next_attempt,omitempty"`
}

// CallbackAttempt is one delivery attempt: when, and the answer's status or
// why none came. Times are real time, not the sandbox clock.
type CallbackAttempt struct {
	At     time.Time `json:"at"`
	Status int       `json:"status,omitempty"`
	Error  string    `json:"error,omitempty"`
}

// States of a callback.
const (
	callbackPending     = "pending"
	callbackDelivered   = "delivered"
	callbackUndelivered = "undelivered"
)

// maxCallbacks bounds the list; the oldest finished ones make room.
const maxCallbacks = 1000

// callbackBody is what the service posts to the school for one payment.
type callbackBody struct {
	MerchantName      string              `json:"merchant_name"`
	BillerName        string              `json:"biller_name"`
	BillerCode        string              `json:"biller_code"`
	BillName          string              `json:"bill_name"`
	BillKey           string              `json:"bill_key"`
	TotalBillAmount   int64               `json:"total_bill_amount"`
	BillQuantity      int                 `json:"bill_quantity"`
	AdminFee          int64               `json:"admin_fee"`
	RefNumber         string              `json:"ref_number"`
	MerchantRefNumber string              `json:"merchant_ref_number"`
	PaidDate          string              `json:"paid_date"`
	BillComponentList []callbackComponent `json:"bill_component_list"`
}

type callbackComponent struct {
	ID             string `json:"bill_component_id"`
	AmountPaid     int64  `json:"amount_paid"`
	AmountCurrency string `json:"amount_currency"`
	Notes          string `json:"notes"`
	State          string `json:"state"`
	RefNumber      string `json:"ref_number"`
}

// callbackSender delivers callbacks, one goroutine per undelivered callback,
// retrying on the schedule until delivered or given up.
type callbackSender struct {
	s       *Server
	url     string
	retries []time.Duration
	timeout time.Duration
	client  *http.Client
	key     []byte // hex(sha256(issued password)), the HMAC key

	mu     sync.Mutex
	list   []*Callback
	nextID int
}

func newCallbackSender(s *Server, opts Options) *callbackSender {
	inner := sha256.Sum256([]byte(s.password))
	cs := &callbackSender{
		s:       s,
		url:     strings.TrimSpace(opts.CallbackURL),
		retries: opts.CallbackRetries,
		timeout: opts.CallbackTimeout,
		client:  opts.CallbackClient,
		key:     []byte(hex.EncodeToString(inner[:])),
	}
	if cs.retries == nil {
		cs.retries = DefaultCallbackRetries
	}
	if cs.timeout <= 0 {
		cs.timeout = 10 * time.Second
	}
	if cs.client == nil {
		cs.client = &http.Client{}
	}
	return cs
}

// CallbackSignature is the X-IDN-CS header of a callback:
// hex(HMAC-SHA256(key = hex(sha256(issued)), message = billerCode + ":" + refNumber)).
func CallbackSignature(issued, billerCode, refNumber string) string {
	inner := sha256.Sum256([]byte(issued))
	return sign([]byte(hex.EncodeToString(inner[:])), billerCode, refNumber)
}

func sign(key []byte, billerCode, refNumber string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(billerCode + ":" + refNumber))
	return hex.EncodeToString(m.Sum(nil))
}

// send records the callback of one payment and starts delivering it.
func (cs *callbackSender) send(body callbackBody) {
	raw, err := json.Marshal(body)
	if err != nil {
		cs.s.log.Error("sandbox: encode callback", "err", err)
		return
	}
	cb := &Callback{
		RefNumber: body.RefNumber, BillKey: body.BillKey, URL: cs.url,
		Signature: sign(cs.key, body.BillerCode, body.RefNumber), Body: raw, State: callbackPending,
		Attempts: []CallbackAttempt{},
	}
	cs.mu.Lock()
	cs.nextID++
	cb.ID = cs.nextID
	cs.list = append(cs.list, cb)
	cs.trim()
	if cs.url == "" {
		cb.State = callbackUndelivered
	}
	cs.mu.Unlock()
	if cs.url == "" {
		return
	}
	cs.s.background(func(ctx context.Context) { cs.deliver(ctx, cb) })
}

// trim drops the oldest finished callbacks beyond maxCallbacks (mu held).
func (cs *callbackSender) trim() {
	for i := 0; len(cs.list) > maxCallbacks && i < len(cs.list); {
		if cs.list[i].State != callbackPending {
			cs.list = append(cs.list[:i], cs.list[i+1:]...)
			continue
		}
		i++
	}
}

// deliver tries cb until a 2xx, then on the retry schedule; ctx ends with
// the server, leaving an undelivered callback pending.
func (cs *callbackSender) deliver(ctx context.Context, cb *Callback) {
	for attempt := 0; ; attempt++ {
		at := cs.s.wall.Now()
		status, err := cs.post(ctx, cb)
		if ctx.Err() != nil {
			return // the server is closing: abandoned, still pending
		}
		a := CallbackAttempt{At: at.UTC(), Status: status}
		if err != nil {
			a.Error = err.Error()
		}
		delivered := err == nil && status >= 200 && status < 300
		var wait time.Duration
		cs.mu.Lock()
		cb.Attempts = append(cb.Attempts, a)
		cb.NextAttempt = nil
		switch {
		case delivered:
			cb.State, cb.Delivered = callbackDelivered, true
		case attempt >= len(cs.retries):
			cb.State = callbackUndelivered
		default:
			wait = cs.retries[attempt]
			next := cs.s.wall.Now().Add(wait)
			cb.NextAttempt = &next
		}
		cs.mu.Unlock()
		if delivered || attempt >= len(cs.retries) {
			if !delivered {
				cs.s.log.Warn("sandbox: callback undelivered, given up", "ref_number", cb.RefNumber, "attempts", len(cb.Attempts))
			}
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// post sends one attempt; a non-2xx status is not an error here.
func (cs *callbackSender) post(ctx context.Context, cb *Callback) (int, error) {
	actx, cancel := context.WithTimeout(ctx, cs.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, cb.URL, bytes.NewReader(cb.Body))
	if err != nil {
		return 0, fmt.Errorf("bad callback URL: %w", stripURL(err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-IDN-CS", cb.Signature)
	resp, err := cs.client.Do(req)
	if err != nil {
		if errors.Is(actx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			return 0, fmt.Errorf("no answer within %s", cs.timeout)
		}
		return 0, stripURL(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, nil
}

// stripURL keeps the reason of a url.Error: the address is in the list already.
func stripURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// snapshot copies the list for readers.
func (cs *callbackSender) snapshot() []Callback {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	out := make([]Callback, len(cs.list))
	for i, cb := range cs.list {
		out[i] = *cb
		out[i].Attempts = append([]CallbackAttempt{}, cb.Attempts...)
		if cb.NextAttempt != nil {
			next := *cb.NextAttempt
			out[i].NextAttempt = &next
		}
	}
	return out
}

// Callbacks lists the payment callbacks with their attempts, oldest first
// (same data as GET /_sandbox/callbacks).
func (s *Server) Callbacks() []Callback { return s.callbacks.snapshot() }

func (s *Server) callbacksList(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, "", s.Callbacks())
	return nil
}

// background runs fn on a goroutine that Close cancels and waits for; once
// Close has begun nothing new starts.
func (s *Server) background(fn func(ctx context.Context)) {
	s.bgMu.Lock()
	defer s.bgMu.Unlock()
	if s.bg.Err() != nil {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		fn(s.bg)
	}()
}

// bankPaymentRequest is the body of POST /_sandbox/bank-payment.
type bankPaymentRequest struct {
	BillKey      string   `json:"bill_key"`
	IDs          []string `json:"bill_component_list"`
	MerchantName string   `json:"merchant_name"`
	// AdminFee is what the merchant charged the parent on top (the callback's admin_fee);
	// absent, the demo's usual fee of the merchant (demoAdminFees).
	AdminFee *int64 `json:"admin_fee"`
}

// bankPayment pays components as a parent at a bank would (the penalty by
// rule 2) and sends the payment's callback; it answers the paid records.
func (s *Server) bankPayment(w http.ResponseWriter, r *http.Request) error {
	var req bankPaymentRequest
	if err := decodeBody(w, r, &req); err != nil {
		return err
	}
	if err := (payRequest{BillKey: req.BillKey, IDs: req.IDs}).check(); err != nil {
		return err
	}
	recs, err := s.payAtBank(r.Context(), req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, "", recs)
	return nil
}

// payAtBank records a bank's payment and sends its callback.
func (s *Server) payAtBank(ctx context.Context, req bankPaymentRequest) ([]record, error) {
	merchant := strings.TrimSpace(req.MerchantName)
	if merchant == "" {
		merchant = "BANK"
	}
	now := s.Now()
	ref := s.makeRef(refPrefix(merchant), now)
	recs, err := s.store.pay(ctx, payment{nis: req.BillKey, refNumber: ref, ids: req.IDs}, now, s.loc, s.stamps)
	if err != nil {
		return nil, err
	}
	body := callbackBody{
		MerchantName: merchant, BillerName: s.billerName, BillerCode: s.username,
		BillKey: req.BillKey, BillQuantity: len(recs), RefNumber: ref,
		MerchantRefNumber: s.makeRef("M", now), PaidDate: s.stamps.format(now),
		BillComponentList: make([]callbackComponent, len(recs)), AdminFee: demoAdminFees[merchant],
	}
	if req.AdminFee != nil {
		body.AdminFee = max(*req.AdminFee, 0)
	}
	for i, rec := range recs {
		body.BillName = rec.BillName
		body.TotalBillAmount += rec.AmountPaid
		body.BillComponentList[i] = callbackComponent{ID: rec.ID, AmountPaid: rec.AmountPaid, AmountCurrency: "IDR",
			Notes: rec.Notes, State: rec.State, RefNumber: ref}
	}
	s.callbacks.send(body)
	return recs, nil
}

// refPrefix is up to three letters of the merchant's name, upper case.
func refPrefix(merchant string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(merchant) {
		if r < unicode.MaxASCII && unicode.IsLetter(r) {
			b.WriteRune(r)
			if b.Len() == 3 {
				break
			}
		}
	}
	if b.Len() == 0 {
		return "BNK"
	}
	return b.String()
}

// demoMerchants are where the demo's parents pay.
var demoMerchants = []string{"BCA", "Bank Mandiri", "BNI", "BRI", "Alfamart", "Indomaret"}

// demoAdminFees are what the demo's merchants charge a parent on top of a payment (the
// callback's admin_fee): the minimarkets' till fee; the banks' virtual accounts are free.
var demoAdminFees = map[string]int64{"Alfamart": 2500, "Indomaret": 2500}

// bankPayments makes a parent pay one payable component at a bank about
// every d (between d/2 and 3d/2), until the server closes.
func (s *Server) bankPayments(ctx context.Context, d time.Duration) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), 0xba4c))
	for {
		t := time.NewTimer(d/2 + time.Duration(rng.Int64N(int64(d)+1)))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		if err := s.payOneAtBank(ctx, demoMerchants[rng.IntN(len(demoMerchants))]); err != nil && ctx.Err() == nil {
			s.log.Warn("sandbox: bank payment failed", "err", err)
		}
	}
}

// payOneAtBank pays a random payable component, preferring those due within
// a month or already late, as parents do; none payable is not an error.
func (s *Server) payOneAtBank(ctx context.Context, merchant string) error {
	today := s.today()
	const pick = `SELECT c.id, s.nis FROM components c JOIN students s ON s.id = c.student_id
		WHERE c.paid_day IS NULL AND c.deleted_at IS NULL AND c.expiry_day >= ?
		AND (c.active_day IS NULL OR c.active_day <= ?) AND c.due_day <= ?
		ORDER BY random() LIMIT 1`
	var id, nis string
	err := s.store.db.QueryRowContext(ctx, pick, today, today, addDays(today, 31)).Scan(&id, &nis)
	if errors.Is(err, sql.ErrNoRows) {
		err = s.store.db.QueryRowContext(ctx, pick, today, today, 99991231).Scan(&id, &nis)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pick a component: %w", err)
	}
	recs, err := s.payAtBank(ctx, bankPaymentRequest{BillKey: nis, IDs: []string{id}, MerchantName: merchant})
	if err != nil {
		return err
	}
	s.log.Info("sandbox: paid at a bank", "bill_key", nis, "merchant", merchant, "amount_paid", recs[0].AmountPaid)
	return nil
}
