package ledger

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/jobs"
	"github.com/sekolah/portal/internal/store"
)

// Defaults of a ConfirmConfig's zero fields.
const (
	// DefaultConfirmInline bounds the confirmation made while the service's callback
	// request waits for the answer: well inside the 10 s after which the service sends it
	// again.
	DefaultConfirmInline    = 4 * time.Second
	DefaultConfirmInlineMax = 4
	DefaultConfirmRetryBase = 2 * time.Second
	DefaultConfirmRetryMax  = time.Minute
	DefaultConfirmPoll      = 10 * time.Second
	DefaultConfirmLeaseTTL  = time.Minute
)

// callbacksLease is the named lease under which one instance retries the confirmations
// the service did not answer at once.
const callbacksLease = "ledger.callbacks"

// confirmBatch is how many waiting callbacks one pass of the worker asks about.
const confirmBatch = 100

// ConfirmConfig builds a Confirmer.
type ConfirmConfig struct {
	Ledger *Ledger
	Client *billing.Client
	// Clock is the portal's clock (internal/app passes its own); required.
	Clock clock.Clock
	// Inline bounds the confirmation Receive makes before the route answers (default
	// DefaultConfirmInline); InlineMax is how many run at once (default 4), beyond which
	// a callback is left to the worker at once.
	Inline    time.Duration
	InlineMax int
	// RetryBase and RetryMax are the worker's back-off while the service does not answer:
	// RetryBase, doubling up to RetryMax (defaults 2 s and 1 min), so a payment announced
	// during an outage is confirmed within a minute of the service answering again.
	RetryBase, RetryMax time.Duration
	// Poll is how often the worker looks for callbacks left waiting by another instance
	// or a restart (default 10 s).
	Poll time.Duration
	// LeaseTTL is how long the worker's lease lasts unless renewed (default 1 min).
	LeaseTTL time.Duration
	// Owner names this instance in the lease; default a new id.
	Owner  string
	Logger *slog.Logger
	// Paid, when set, hears of each payment the confirmation recorded (the service's
	// records of the reference, confirmed or disputed), once it is in the ledger: the
	// outbox writes the parents' receipt (issue 28). It may hear of one payment more than
	// once (two instances, a resend); it must not fail the confirmation.
	Paid func(ctx context.Context, p ConfirmedPayment)
}

// ConfirmedPayment is a payment the ledger recorded as the service confirmed it.
type ConfirmedPayment struct {
	Ref, NIS, StudentName string
	Total                 int64
	PaidAt                time.Time
	// Items are the names of the components it paid.
	Items []string
}

// Confirmer confirms stored payment callbacks with the service: it asks the service
// what it holds of a callback's reference (one search, GET
// /bill_component/search/biller?ref_number=…, whatever the body says of the student or
// the components) and records that answer in the ledger (Ledger.recordConfirmation).
//
// Receive does it at once for each callback that arrives, before the route answers, so a
// bank payment is on the dashboard within the callback's own round trip; a service that
// does not answer in time leaves the callback stored and waiting. The worker (Start,
// Stop) asks again about every waiting callback with a back-off, under a database lease
// (one instance at a time), after a restart too: the callbacks and their attempts are
// rows of the database, nothing of it is held in memory only.
type Confirmer struct {
	cfg    ConfirmConfig
	l      *Ledger
	client *billing.Client
	log    *slog.Logger
	lease  *lease
	inline chan struct{} // the immediate confirmations running now

	worker *jobs.Worker
	kick   chan struct{} // an immediate confirmation did not settle a callback: retry after the back-off
}

// NewConfirmer makes a confirmer; Start sets its worker going.
func NewConfirmer(cfg ConfirmConfig) (*Confirmer, error) {
	if cfg.Ledger == nil || cfg.Client == nil {
		return nil, errors.New("ledger: a confirmer needs the ledger and the billing client")
	}
	if !usable(cfg.Clock) {
		return nil, errors.New("ledger: a confirmer needs the portal's clock (clock.New)")
	}
	cfg.Inline = cmp.Or(cfg.Inline, DefaultConfirmInline)
	cfg.InlineMax = cmp.Or(cfg.InlineMax, DefaultConfirmInlineMax)
	cfg.RetryBase = cmp.Or(cfg.RetryBase, DefaultConfirmRetryBase)
	cfg.RetryMax = max(cmp.Or(cfg.RetryMax, DefaultConfirmRetryMax), cfg.RetryBase)
	cfg.Poll = cmp.Or(cfg.Poll, DefaultConfirmPoll)
	cfg.LeaseTTL = cmp.Or(cfg.LeaseTTL, DefaultConfirmLeaseTTL)
	cfg.Owner = cmp.Or(cfg.Owner, store.NewID())
	log := cmp.Or(cfg.Logger, cfg.Ledger.log)
	c := &Confirmer{cfg: cfg, l: cfg.Ledger, client: cfg.Client, log: log, inline: make(chan struct{}, cfg.InlineMax),
		kick: make(chan struct{}, 1), worker: jobs.NewWorker()}
	c.lease = &lease{name: callbacksLease, Lease: jobs.Lease{Leases: cfg.Ledger.db.NamedLeases(), Owner: cfg.Owner,
		TTL: cfg.LeaseTTL, Renew: max(cfg.LeaseTTL/5, time.Millisecond), Clock: cfg.Clock, Log: log}}
	return c, nil
}

// usable reports whether c was built (a zero clock.Clock panics when read): a worker
// must not find out in the background.
func usable(c clock.Clock) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return c.Zone() != nil
}

// Receive takes a payment callback as it arrived (Ledger.ReceiveCallback: verified,
// stored once per ref_number) and, when it is still unconfirmed, asks the service about
// its reference at once, for at most Inline: the receiver answers 2xx after it returns
// without an error, confirmed or not (the notice is stored, and the worker asks again
// while the service does not answer). The result says where the callback stands.
func (c *Confirmer) Receive(ctx context.Context, signature string, body []byte) (CallbackResult, error) {
	res, err := c.l.ReceiveCallback(ctx, signature, body)
	if err != nil || res.Status != CallbackUnconfirmed {
		return res, err
	}
	select {
	case c.inline <- struct{}{}:
	default:
		c.worker.Wake() // many at once: the worker asks now
		return res, nil
	}
	defer func() { <-c.inline }()
	// The service's request may give up on us; the confirmation, once started, ends.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.cfg.Inline)
	defer cancel()
	out, err := c.Confirm(cctx, res.RefNumber)
	if err != nil || out.Status == CallbackUnconfirmed {
		if err != nil {
			c.log.Warn("ledger: payment callback stored, not confirmed yet: the service did not answer; asked again shortly",
				"ref", res.RefNumber, "err", err)
		}
		c.signal(c.kick)
		return res, nil
	}
	res.Status, res.Applied, res.Disagreements = out.Status, out.Applied, out.Disagreements
	return res, nil
}

// errService marks a confirmation the service did not answer (down, slow, refusing the
// portal's credentials): the worker backs off.
var errService = errors.New("ledger: the service did not answer")

// Confirm asks the service what it holds of stored callback ref's reference and records
// the answer: the service's records in the ledger, the callback confirmed or disputed.
// A callback no longer unconfirmed is left as it is. A reference the service does not
// know yet leaves the callback unconfirmed (the attempt counted) until it has been asked
// about unknownRefAttempts times; then it is disputed.
func (c *Confirmer) Confirm(ctx context.Context, ref string) (CallbackResult, error) {
	n, err := c.l.storedNotice(ctx, ref)
	if err != nil {
		return CallbackResult{}, err
	}
	res := CallbackResult{RefNumber: ref, NIS: n.cb.NIS, Status: n.status}
	if n.status != CallbackUnconfirmed {
		return res, nil
	}
	payment, err := c.payment(ctx, ref)
	note := func(problem string) {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if nerr := c.l.noteAttempt(wctx, ref, problem); nerr != nil {
			c.log.Error("ledger: record a confirmation attempt", "ref", ref, "err", nerr)
		}
	}
	if err != nil {
		note(problemOf(err))
		return res, fmt.Errorf("%w: confirm payment callback %s: %w", errService, ref, err)
	}
	if len(payment) == 0 && n.attempts+1 < unknownRefAttempts {
		note(ProblemUnknownRef)
		return res, nil
	}
	out, err := c.l.recordConfirmation(ctx, n, payment)
	if err == nil && len(payment) > 0 && c.cfg.Paid != nil && out.Status != CallbackUnconfirmed {
		// The receipt's notice (issue 28): after the ledger holds the payment.
		f := serviceFigures(payment)
		p := ConfirmedPayment{Ref: ref, NIS: f.NIS, StudentName: f.StudentName, Total: f.Total, PaidAt: f.PaidAt}
		for _, b := range payment {
			p.Items = append(p.Items, b.Name)
		}
		c.cfg.Paid(context.WithoutCancel(ctx), p)
	}
	return out, err
}

// payment reads every component the service lists with reference ref: normally one
// call (one payment's few components). A page that holds a record of another reference
// means the service ignored the filter: what is left is not this payment.
func (c *Confirmer) payment(ctx context.Context, ref string) ([]billing.Bill, error) {
	const shortPage = 50 // the service's default page: a page shorter than it is the last
	var out []billing.Bill
	for offset, pages := 0, 0; pages < 20; pages++ {
		page, err := c.client.Search(ctx, billing.Query{RefNumber: ref, Offset: offset, Limit: billing.MaxLimit})
		if err != nil {
			return nil, err
		}
		foreign := false
		for _, b := range page {
			if b.RefNumber == ref {
				out = append(out, b)
			} else {
				foreign = true
			}
		}
		if foreign || len(page) < shortPage {
			break
		}
		offset += len(page)
	}
	return out, nil
}

// Start runs the worker in the background (its lifecycle is internal/jobs' Worker): a
// pass over the waiting callbacks at once (those a previous process left), then whenever
// one waits. It returns at once.
func (c *Confirmer) Start(ctx context.Context) error {
	if err := c.worker.Run(ctx, c.loop); err != nil {
		return fmt.Errorf("ledger: confirmer: %w", err)
	}
	return nil
}

// Stop ends the worker at once (a confirmation in flight is cancelled: it is one
// transaction, and the callback stays waiting), releases its lease and waits for it to
// end or ctx.
func (c *Confirmer) Stop(ctx context.Context) error { return c.worker.Halt(ctx) }

// Nudge asks the worker to look for waiting callbacks now.
func (c *Confirmer) Nudge() { c.worker.Wake() }

func (c *Confirmer) signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// passOutcome is how one pass of the worker ended.
type passOutcome int

const (
	passIdle   passOutcome = iota // nothing (more) to do here
	passMore                      // a full batch was asked about: look again at once
	passFailed                    // the service did not answer: back off
)

func (c *Confirmer) loop(ctx context.Context) {
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		c.lease.release(rctx)
	}()
	t := time.NewTimer(0)
	defer t.Stop()
	var backoff time.Duration // 0: the service answered the last time it was asked
	next := func() time.Duration {
		if backoff == 0 {
			return c.cfg.RetryBase
		}
		return min(backoff*2, c.cfg.RetryMax)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.kick:
			if backoff == 0 { // else a retry is already due
				backoff = next()
				t.Reset(backoff)
			}
			continue
		case <-c.worker.Woken():
			if backoff == 0 {
				t.Reset(0)
			}
			continue
		case <-t.C:
		}
		switch c.pass(ctx) {
		case passFailed:
			backoff = next()
			t.Reset(backoff)
		case passMore:
			backoff = 0
			t.Reset(0)
		default:
			backoff = 0
			t.Reset(c.cfg.Poll)
		}
	}
}

// pass asks the service about one batch of waiting callbacks, those asked about least
// often first, under the lease (another instance holding it does the asking). It stops
// at the first question the service does not answer.
func (c *Confirmer) pass(ctx context.Context) passOutcome {
	refs, err := c.l.waitingCallbacks(ctx, confirmBatch)
	if err != nil {
		if ctx.Err() == nil {
			c.log.Error("ledger: read the waiting payment callbacks", "err", err)
		}
		return passFailed
	}
	if len(refs) == 0 {
		return passIdle
	}
	out := passIdle
	held, err := c.lease.hold(ctx, func(rctx context.Context) error {
		out = c.confirmEach(rctx, refs)
		return nil
	})
	switch {
	case err != nil:
		if ctx.Err() == nil {
			c.log.Error("ledger: claim the callbacks' lease", "err", err)
		}
		return passFailed
	case !held:
		return passIdle
	}
	return out
}

// confirmEach asks the service about refs, under the lease, until it does not answer.
func (c *Confirmer) confirmEach(rctx context.Context, refs []string) passOutcome {
	settled := 0
	for _, ref := range refs {
		if rctx.Err() != nil {
			return passIdle
		}
		out, err := c.Confirm(rctx, ref)
		switch {
		case err == nil:
			if out.Status != CallbackUnconfirmed {
				settled++
			}
		case errors.Is(err, errService):
			if rctx.Err() == nil {
				c.log.Warn("ledger: payment callbacks wait for the service's confirmation: it does not answer",
					"waiting", len(refs), "err", err)
			}
			return passFailed
		default:
			if rctx.Err() == nil {
				c.log.Error("ledger: confirm a payment callback", "ref", ref, "err", err)
			}
		}
	}
	if len(refs) == confirmBatch && settled > 0 {
		return passMore
	}
	return passIdle
}
