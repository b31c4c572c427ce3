package registration

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/jobs"
	"github.com/sekolah/portal/internal/store"
)

// intakeLease is the named lease the Intake works under: one instance at a time sends
// the form's applications, so the hourly cap holds across instances.
const intakeLease = "registration.intake"

// Intake defaults.
const (
	DefaultIntakeEvery  = 30 * time.Second
	DefaultIntakeSettle = time.Minute
	intakeLeaseFor      = 5 * time.Minute
	intakeBatch         = 20
)

// Intake is the background worker that decides the public form's applications: each new
// one goes to the service as the form would have sent it, as "public" from the parent's
// address, while the form has sent fewer than its hourly cap in the last hour and no
// student has the NIS; any other is held for staff with the reason (over the cap, the
// NIS known, the template unusable, the service refusing). It runs when an application
// is stored (Nudge) and every Every, under a database lease, so instances sharing the
// database never send one twice or go past the cap together.
//
// A call that got no answer leaves its application being sent; once Settle (the billing
// client's deadline) has passed, the Intake asks the service whether the student exists:
// it was checked absent just before the call, so it is there only if the call landed
// (registered), else the application is sent again (or, a person's approval, held again
// as not sent). A service that does not answer leaves new applications waiting for the
// next round.
type Intake struct {
	Service *Service
	Clock   clock.Clock
	// Every is how often the Intake looks without being nudged (DefaultIntakeEvery).
	Every time.Duration
	// Settle is how long after a call without an answer the student is looked for: the
	// billing client's whole deadline (DefaultIntakeSettle).
	Settle time.Duration
	Log    *slog.Logger

	once    sync.Once
	running sync.Mutex   // one round at a time in this instance
	worker  *jobs.Worker // the lifecycle every worker shares
	lease   jobs.Lease   // the intake's named lease, renewed while a round runs
}

func (in *Intake) init() {
	in.once.Do(func() {
		in.worker = jobs.NewWorker()
		in.lease = jobs.Lease{Leases: in.Service.DB.NamedLeases(), Owner: "intake-" + store.NewID(), TTL: intakeLeaseFor,
			Renew: intakeLeaseFor / 5, Clock: in.Clock, Log: in.log()}
	})
}

func (in *Intake) log() *slog.Logger {
	if in.Log != nil {
		return in.Log
	}
	return slog.Default()
}

// Nudge wakes the Intake for an application just stored; it never blocks.
func (in *Intake) Nudge() {
	in.init()
	in.worker.Wake()
}

// Start runs the Intake in the background until Stop (its lifecycle is internal/jobs'
// Worker).
func (in *Intake) Start(ctx context.Context) error {
	in.init()
	if err := in.worker.Run(ctx, in.loop); err != nil {
		return fmt.Errorf("registration: intake: %w", err)
	}
	return nil
}

// Stop ends the loop, cutting a round under way (an application sent without an answer
// is looked for at the next start), and waits for it, or for ctx.
func (in *Intake) Stop(ctx context.Context) error {
	in.init()
	return in.worker.Halt(ctx)
}

func (in *Intake) loop(ctx context.Context) {
	every := in.Every
	if every <= 0 {
		every = DefaultIntakeEvery
	}
	for {
		if err := in.RunOnce(ctx); err != nil && ctx.Err() == nil {
			in.log().Warn("registration intake", "err", err)
		}
		if !in.worker.Idle(every) {
			return
		}
	}
}

// errServiceDown ends a round: the service did not answer, the rest waits.
var errServiceDown = errors.New("registration: the service is not answering")

// RunOnce decides what waits, when this instance gets the lease and is not at it already
// (else the round under way does it):
// the calls without an answer whose time has passed, then every new application, oldest
// first. A service that stops answering ends the round without an error.
func (in *Intake) RunOnce(ctx context.Context) error {
	in.init()
	if !in.running.TryLock() {
		return nil // a round is under way here already
	}
	defer in.running.Unlock()
	_, err := in.lease.Hold(ctx, intakeLease, in.round)
	if errors.Is(err, errServiceDown) {
		return nil
	}
	return err
}

func (in *Intake) round(ctx context.Context) error {
	db := in.Service.DB
	settle := in.Settle
	if settle <= 0 {
		settle = DefaultIntakeSettle
	}
	sending, err := db.RegistrationApplications(ctx, []string{string(StateSending)}, true, 0, MaxWaitingListed)
	if err != nil {
		return err
	}
	for _, rec := range sending {
		if a := applicationOf(rec); in.Clock.Since(a.SentAt) >= settle {
			if err := in.lookFor(ctx, a); err != nil {
				return err
			}
		}
	}
	p, err := in.Service.PublicSettings(ctx)
	if err != nil {
		return err
	}
	for {
		batch, err := db.RegistrationApplications(ctx, []string{string(StateNew)}, true, 0, intakeBatch)
		if err != nil || len(batch) == 0 {
			return err
		}
		for _, rec := range batch {
			if err := in.decide(ctx, applicationOf(rec), p.HourlyCap); err != nil {
				return err
			}
		}
	}
}

// hold moves a from one of from to pending for staff, for reason.
func (in *Intake) hold(ctx context.Context, a PublicApplication, from ApplicationState, reason Hold) error {
	_, err := in.Service.DB.MoveRegistrationApplication(ctx, store.ApplicationChange{ID: a.ID, From: []string{string(from)},
		To: string(StatePending), Hold: string(reason), At: in.Clock.Now()})
	if err == nil {
		in.log().Info("public registration held for staff", "ref", a.Reference, "hold", reason)
	}
	return err
}

// decide sends a new application, or holds it for staff.
func (in *Intake) decide(ctx context.Context, a PublicApplication, hourlyCap int) error {
	s, db := in.Service, in.Service.DB
	if hourlyCap == 0 {
		return in.hold(ctx, a, StateNew, HoldReview)
	}
	sent, err := db.CountAutoSentSince(ctx, in.Clock.Now().Add(-time.Hour))
	if err != nil {
		return err
	}
	if sent >= hourlyCap {
		return in.hold(ctx, a, StateNew, HoldOverCap)
	}
	known, err := s.NISKnown(ctx, a.Applicant.NIS)
	switch {
	case err != nil:
		in.log().Warn("public registration waits: the service did not answer whether the NIS exists", "ref", a.Reference, "err", err)
		return errServiceDown
	case known:
		return in.hold(ctx, a, StateNew, HoldNISKnown)
	}
	now := in.Clock.Now()
	moved, err := db.MoveRegistrationApplication(ctx, store.ApplicationChange{ID: a.ID, From: []string{string(StateNew)},
		To: string(StateSending), SentAt: now, Auto: true, At: now})
	if err != nil || !moved {
		return err
	}
	rec, err := s.Register(ctx, PublicActor(a.IP), Application{Applicant: a.Applicant, TemplateID: a.TemplateID, Include: a.include()}, store.SourceRegistration)
	if rec.BillID != "" {
		if err != nil {
			in.log().Error("public registration: registered at the service, but noting it failed", "ref", a.Reference,
				"nis", rec.NIS, "bill", rec.BillID, "err", err)
		}
		in.log().Info("public registration sent", "ref", a.Reference, "bill", rec.BillID)
		return s.finish(ctx, a, rec)
	}
	hold, keep := holdOf(err)
	switch {
	case keep:
		in.log().Warn("public registration: no answer from the service; looked for later", "ref", a.Reference, "err", err)
		return errServiceDown
	case hold == "":
		// Not made: new again, for the next round.
		if _, merr := db.MoveRegistrationApplication(ctx, store.ApplicationChange{ID: a.ID, From: []string{string(StateSending)},
			To: string(StateNew), At: in.Clock.Now()}); merr != nil {
			return merr
		}
		in.log().Warn("public registration waits: the service is unavailable", "ref", a.Reference, "err", err)
		return errServiceDown
	}
	return in.hold(ctx, a, StateSending, hold)
}

// lookFor settles an application whose call got no answer: the student at the service
// means the call landed (the NIS was absent just before it); else it was not made.
func (in *Intake) lookFor(ctx context.Context, a PublicApplication) error {
	db := in.Service.DB
	known, err := in.Service.NISKnown(ctx, a.Applicant.NIS)
	if err != nil {
		return errServiceDown
	}
	now := in.Clock.Now()
	c := store.ApplicationChange{ID: a.ID, From: []string{string(StateSending)}, At: now}
	switch {
	case known:
		c.To = string(StateRegistered)
		in.log().Info("public registration: the unanswered call landed", "ref", a.Reference)
	case a.Auto:
		c.To = string(StateNew)
		in.log().Info("public registration: the unanswered call did not land; sent again", "ref", a.Reference)
	default:
		c.To, c.Hold = string(StatePending), string(HoldNotSent)
	}
	_, err = db.MoveRegistrationApplication(ctx, c)
	return err
}
