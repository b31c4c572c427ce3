// Package outbox is how the portal writes to parents on its own: a payment's receipt as
// soon as the ledger records the payment, a reminder some days before a due date, arrears
// follow-ups in bulk, a term's bill notice for a class. Each message is written once to
// the database under an idempotency key (a receipt by the payment's reference, a reminder
// by component and days before, a follow-up by student and day, a notice by class, term
// and student; each per channel), so a callback that comes three times, a second click or
// a second instance writes nothing more; everything but receipts goes out only within the
// sending hours and at most once a student a day on each channel.
//
// Sending is a job kind of internal/jobs: a batch (a receipt's messages, a day's
// reminders, a bulk follow-up, a class's notices) is a job whose items are its messages,
// one call each (Chunk.OneByOne), under the batch's lease on any instance, paced to the
// gateway's limit (a setting; a 429's Retry-After holds every call back), retried with
// the engine's back-off, surviving restarts. The queue is ordered (one batch at a time
// across instances, so the pace is the gateway's, not the pace times the instances) and
// a long batch yields every Slice so a receipt never waits behind a thousand follow-ups.
//
// A call whose answer was lost cannot be looked up afterwards: neither the Cloud API nor
// an SMTP server can be asked whether a message was accepted. Each attempt is recorded
// in messages under the outbox message's id and the attempt's number before the engine
// hears of it, so a process that died after the answer came finds the record and counts
// the message sent (Steps.Check). Without a record, or with a failed one that says no
// answer came, the message may or may not have reached the parent: it is marked failed
// as "may have been sent" and never sent again automatically (a parent receiving a
// receipt twice is worse than staff seeing one marked unsure).
package outbox

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/jobs"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/messaging"
	"github.com/sekolah/portal/internal/parents"
	"github.com/sekolah/portal/internal/store"
)

// Config builds the outbox.
type Config struct {
	DB        *store.DB
	Messaging *messaging.Service
	Parents   *parents.Service
	Ledger    *ledger.Ledger
	// School is the school's name, as messages sign with it.
	School func(ctx context.Context) string
	// Clock is the portal's clock: the school's day, the sending hours, the reminders'
	// days. Jobs is the clock of the job runner (leases, back-off, pacing): it must
	// advance (default Clock).
	Clock, Jobs clock.Clock
	// ChunkSize is how many messages one chunk holds (default 25).
	ChunkSize int
	// LeaseTTL is how long a batch's lease lasts unless renewed every LeaseRenew
	// (defaults 30 s and a third of it); LeaseRenew is also how often the queue looks for
	// batches made on other instances.
	LeaseTTL, LeaseRenew time.Duration
	// RetryBase, RetryMax and WaitMax shape the back-off (the engine's defaults when zero).
	RetryBase, RetryMax, WaitMax time.Duration
	// Settle is how long a call without an answer is given before it is looked at
	// (default 30 s, longer than the clients' timeouts).
	Settle time.Duration
	// Slice is how long a batch runs before the queue looks again, receipts first
	// (default 20 s).
	Slice time.Duration
	// ReminderEvery is how often the reminders' daily pass looks whether today's ran
	// (default a minute).
	ReminderEvery time.Duration
	Log           *slog.Logger
}

// Service is the outbox: what queues messages and the worker that sends them.
type Service struct {
	cfg  Config
	log  *slog.Logger
	jobs *jobs.Runner
	// reminders is the lease of the reminders' daily pass (one instance a day).
	reminders jobs.Lease
}

// New builds the outbox; nothing is sent until Start.
func New(cfg Config) *Service {
	cfg.Clock.Zone() // the zero Clock panics here, not in the job loop
	if cfg.Jobs.IsZero() {
		cfg.Jobs = cfg.Clock
	}
	cfg.ChunkSize = cmp.Or(cfg.ChunkSize, 25)
	cfg.LeaseTTL = cmp.Or(cfg.LeaseTTL, 30*time.Second)
	cfg.LeaseRenew = cmp.Or(cfg.LeaseRenew, cfg.LeaseTTL/3)
	cfg.Settle = cmp.Or(cfg.Settle, 30*time.Second)
	cfg.Slice = cmp.Or(cfg.Slice, 20*time.Second)
	cfg.ReminderEvery = cmp.Or(cfg.ReminderEvery, time.Minute)
	log := cmp.Or(cfg.Log, slog.Default())
	s := &Service{cfg: cfg, log: log}
	owner := store.NewID()
	s.jobs = jobs.NewRunner(jobs.RunnerConfig{
		Engine: jobs.Config{RetryBase: cfg.RetryBase, RetryMax: cfg.RetryMax, WaitMax: cfg.WaitMax, Settle: cfg.Settle,
			Pace: DefaultSettings.Pace()},
		Classify: Classify, Clock: cfg.Jobs, Log: log,
		Leases: cfg.DB.JobLeases(store.OutboxJobsTable), Owner: owner, LeaseTTL: cfg.LeaseTTL, LeaseRenew: cfg.LeaseRenew,
		Ordered: true, Next: s.next, Run: s.run})
	s.reminders = jobs.Lease{Leases: cfg.DB.NamedLeases(), Owner: owner, TTL: cfg.LeaseTTL, Renew: cfg.LeaseRenew, Clock: cfg.Jobs, Log: log}
	return s
}

// Start starts sending (batches left by a previous process are taken up again) and the
// reminders' daily pass.
func (s *Service) Start(ctx context.Context) error {
	if err := s.jobs.Start(ctx); err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	s.jobs.Go(s.reminderLoop)
	return nil
}

// Stop stops taking work and waits for the message in flight (until ctx ends: then it is
// cut, and looked at by the next start, here or elsewhere).
func (s *Service) Stop(ctx context.Context) error { return s.jobs.Stop(ctx) }

// Wake makes the queue look for batches now (one was written, the clock moved).
func (s *Service) Wake() { s.jobs.Wake() }

// The states of a batch.
const (
	jobQueued = "queued"
	jobDone   = "done"
)

// next lists the batches that may go now: receipts at any time, the others once their
// time has come and within the sending hours.
func (s *Service) next(ctx context.Context) ([]string, error) {
	list, err := s.cfg.DB.OutboxQueued(ctx)
	if err != nil || len(list) == 0 {
		return nil, err
	}
	set, err := s.Settings(ctx)
	if err != nil {
		return nil, err
	}
	now, loc := s.cfg.Clock.Now(), s.cfg.Clock.Zone()
	var ids []string
	for _, j := range list {
		if j.NotBefore.After(now) || j.InHours && !set.Hours.Within(now, loc) {
			continue
		}
		ids = append(ids, j.ID)
	}
	return ids, nil
}

// run sends a batch for at most a Slice (and, within the sending hours, no later than
// their end), then lets the queue look again.
func (s *Service) run(ctx context.Context, id string) error {
	j, err := s.cfg.DB.OutboxJobByID(ctx, id)
	if err != nil {
		return err
	}
	set, err := s.Settings(ctx)
	if err != nil {
		return err
	}
	s.jobs.Engine.SetPace(set.Pace())
	slice := s.cfg.Slice
	if j.InHours {
		now := s.cfg.Clock.Now()
		if !set.Hours.Within(now, s.cfg.Clock.Zone()) {
			return nil // the hours ended since the queue looked
		}
		slice = min(slice, set.Hours.End(now, s.cfg.Clock.Zone()).Sub(now))
	}
	rctx, cancel := context.WithTimeout(ctx, slice)
	defer cancel()
	finished, err := s.jobs.Engine.Run(rctx, j.ID, &job{s: s, j: j, calls: ctx, school: s.school(ctx)})
	if err != nil || !finished {
		return err
	}
	open, err := s.cfg.DB.OutboxOpenChunks(ctx, j.ID)
	if err != nil {
		return err
	}
	if len(open) > 0 {
		// A message still without an answer that could not be looked at: the loop takes
		// the batch up again after a pause.
		return fmt.Errorf("outbox: batch %s: %d chunks still open", j.ID, len(open))
	}
	s.log.Info("outbox batch sent", "batch", j.ID, "kind", j.Kind, "messages", j.Total)
	return s.cfg.DB.FinishOutboxJob(ctx, j.ID, s.cfg.Jobs.Now())
}

func (s *Service) school(ctx context.Context) string {
	if s.cfg.School == nil {
		return ""
	}
	return s.cfg.School(ctx)
}

// Classify reads a send's failure for the job engine: a call whose answer was lost may
// have been sent (looked at before anything is sent again); a refused token is denied
// (an admin must act); a rate limit or an unavailable gateway is down (tried again with
// back-off, Retry-After honoured); any other refusal is the message's own (failed, with
// why).
func Classify(err error) (jobs.Fault, string) {
	if err == nil {
		return jobs.NoFault, ""
	}
	se, ok := messaging.AsSendError(err)
	var local notSent
	switch {
	case errors.As(err, &local):
		return jobs.Down, ""
	case ok && se.MayHaveBeenSent:
		return jobs.NoAnswer, ""
	case ok && se.Key == keyUnauthorized:
		return jobs.Denied, ""
	case ok && se.Retryable:
		return jobs.Down, ""
	case ok:
		return jobs.Refused, strings.TrimSpace(se.Code + " " + se.Reason)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return jobs.NoAnswer, ""
	}
	return jobs.Other, ""
}

// keyUnauthorized is messaging's word for a token the Cloud API refused.
const keyUnauthorized = "messages.err.unauthorized"

// The problems of a message that was skipped or failed (catalogue keys: outbox.problem.<code>).
const (
	ProblemOptedOut   = "opted_out"
	ProblemNoPhone    = "no_phone"
	ProblemNotMobile  = "not_mobile"
	ProblemNoAddress  = "no_address"
	ProblemChannelOff = "channel_off"
	// ProblemUnsure: the call's answer was lost; the message may have reached the parent
	// and is not sent again.
	ProblemUnsure = "unsure"
)

func problemText(p jobs.Problem) string {
	if p.Arg == "" {
		return p.Code
	}
	return p.Code + ":" + p.Arg
}

func problemOf(s string) jobs.Problem {
	code, arg, _ := strings.Cut(s, ":")
	return jobs.Problem{Code: code, Arg: arg}
}

// ProblemKey is the catalogue key that says a message's problem (as kept: "code" or
// "code:arg") and the argument it takes: messaging's words for a refusal (with the
// provider's code), the engine's for a message given up, the outbox's own.
func ProblemKey(problem string) (key, arg string) {
	p := problemOf(problem)
	switch {
	case strings.HasPrefix(p.Code, "messages.err."):
		return p.Code, p.Arg
	case p.Code == jobs.ProblemRefused:
		return "outbox.problem.refused", p.Arg
	case p.Code == jobs.ProblemUnsent:
		return "outbox.problem.unsent_" + p.Arg, ""
	}
	return "outbox.problem." + p.Code, ""
}
