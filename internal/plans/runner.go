package plans

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/jobs"
	"github.com/sekolah/portal/internal/store"
)

// The states of an apply job.
const (
	StateQueued  = "queued"
	StateRunning = "running"
	StateDone    = "done"    // every component made (or found made), or waived
	StatePartial = "partial" // some refused by the service, or given up unsent until a retry
)

// Running reports a job still to be finished.
func Running(state string) bool { return state == StateQueued || state == StateRunning }

// Job is an apply job as the pages read it; JobItem one of its components.
type (
	Job     = store.PlanJob
	JobItem = store.PlanItem
)

// The problems an item keeps besides the skips of the preview (catalogue keys); a
// refusal keeps the service's words.
const (
	// ProblemUnsent is the prefix of an item given up unsent (the service did not answer,
	// or refused the portal's credentials): a retry sends it.
	ProblemUnsent = "plans.problem.unsent."
)

// ErrNothing is Submit's answer to a preview with nothing to make or waive.
var ErrNothing = errors.New("plans: nothing to apply")

// Submit stores the job that carries the preview out, audited, and wakes the job loop.
func (s *Service) Submit(ctx context.Context, actor auth.Actor, pv Preview) (string, error) {
	if len(pv.items) == 0 {
		return "", ErrNothing
	}
	j := store.PlanJob{ID: store.NewID(), PlanID: pv.Plan.ID, PlanCode: pv.Plan.Code, Selection: pv.Sel.Text(),
		FromMonth: pv.Sel.From.String(), ToMonth: pv.Sel.To.String(), State: StateQueued, ActorID: actor.ID,
		Actor: actor.Username, ActorRole: string(actor.Role), ActorIP: actor.IP, Amount: pv.Amount, Discount: pv.Off,
		Existing: pv.Exists}
	items := make([]store.PlanItem, len(pv.items))
	copy(items, pv.items)
	e := s.entry(actor, auditPlanApply.With(audit.Name(pv.Plan.Name), planArg(pv.Plan.Code), audit.Count(pv.Create),
		audit.Total(pv.Amount), audit.Job(j.ID), audit.ArgOf(audit.KeyStudents, strconv.Itoa(pv.Students()))), j.ID)
	if err := s.db.CreatePlanJob(ctx, j, items, e); err != nil {
		return "", fmt.Errorf("plans: submit: %w", err)
	}
	s.jobs.Wake()
	return j.ID, nil
}

// Job is one apply job (ErrNotFound when there is none).
func (s *Service) Job(ctx context.Context, id string) (Job, error) { return s.db.PlanJobByID(ctx, id) }

// Jobs are plan planID's apply jobs, the newest first (at most limit).
func (s *Service) Jobs(ctx context.Context, planID string, limit int) ([]Job, error) {
	return s.db.PlanJobs(ctx, planID, limit)
}

// Items are job id's items in any of states (all when none), in order.
func (s *Service) Items(ctx context.Context, id string, states ...string) ([]JobItem, error) {
	return s.db.PlanItems(ctx, id, states...)
}

// Retry sends again what a finished job gave up unsent (the service did not answer for
// too long, or refused the portal's credentials); it reports how many.
func (s *Service) Retry(ctx context.Context, id string) (int, error) {
	n, err := s.db.RetryPlanJob(ctx, id, ProblemUnsent)
	if n > 0 {
		s.jobs.Wake()
	}
	return n, err
}

// Hurry asks a job that waits for the service to try again now (on whichever instance
// holds it).
func (s *Service) Hurry(ctx context.Context, id string) error {
	if err := s.db.HurryPlanJob(ctx, id); err != nil {
		return err
	}
	s.jobs.Wake()
	return nil
}

// newRunner assembles the apply jobs' runner: ordered (two applies never race on the same
// keys: a later job starts once the earlier one ended, and finds what it made in the
// ledger), under the jobs' leases in plan_jobs.
func (s *Service) newRunner() *jobs.Runner {
	c := s.cfg
	var r *jobs.Runner
	r = jobs.NewRunner(jobs.RunnerConfig{
		Engine: jobs.Config{Concurrency: c.Concurrency, RetryBase: c.RetryBase, RetryMax: c.RetryMax, WaitMax: c.WaitMax,
			Settle: c.Settle, WaitFor: c.WaitFor},
		Classify: jobs.BillingFault, Clock: c.JobClock, Log: s.log,
		Leases: s.db.JobLeases(store.PlanJobsTable), Owner: store.NewID(), LeaseTTL: c.LeaseTTL, LeaseRenew: c.LeaseRenew,
		Ordered: true,
		Next: func(ctx context.Context) ([]string, error) {
			list, err := s.db.PlanJobs(ctx, "", 0, StateQueued, StateRunning)
			ids := make([]string, len(list))
			for i, j := range list {
				ids[i] = j.ID
			}
			return ids, err
		},
		Run: func(ctx context.Context, id string) error { return s.run(ctx, r.Engine, id) },
	})
	return r
}

// run takes a job as far as it goes under its lease: at its first run, the components
// made meanwhile are left out (read from the ledger: another job, a sheet, the sync);
// then its chunks are sent (internal/jobs), and the job finishes. Stopping, or losing the
// lease, leaves it where it is for the next start or the instance holding it.
func (s *Service) run(ctx context.Context, engine *jobs.Engine, id string) error {
	j, err := s.db.PlanJobByID(ctx, id)
	if err != nil {
		return err
	}
	if j.State == StateQueued {
		if err := s.leaveOutExisting(ctx, j); err != nil {
			return err
		}
		if err := s.db.SetPlanJobState(ctx, j.ID, StateRunning, 0, false); err != nil {
			return err
		}
	}
	plan, err := s.db.FeePlanByID(ctx, j.PlanID)
	if err != nil {
		return err
	}
	aj := &applyJob{s: s, j: j, account: plan.AccountCode,
		actor: auth.Actor{ID: j.ActorID, Username: j.Actor, Role: auth.Role(j.ActorRole), IP: j.ActorIP}}
	finished, err := engine.Run(ctx, j.ID, aj)
	if err != nil || !finished {
		return errors.Join(err, s.db.SetPlanJobState(context.WithoutCancel(ctx), j.ID, StateRunning, aj.recognised(), false))
	}
	open, err := s.db.PlanOpenChunks(ctx, j.ID)
	if err != nil {
		return err
	}
	if len(open) > 0 {
		// A component still without an answer (the service could not be read): the loop
		// takes the job up again after a pause.
		return errors.Join(s.db.SetPlanJobState(ctx, j.ID, StateRunning, aj.recognised(), false),
			fmt.Errorf("plans: job %s: %d chunks still open", j.ID, len(open)))
	}
	if j, err = s.db.PlanJobByID(ctx, j.ID); err != nil {
		return err
	}
	state := StateDone
	if j.Failed > 0 {
		state = StatePartial
	}
	s.log.Info("plan apply finished", "job", j.ID, "plan", j.PlanCode, "done", j.Done, "skipped", j.Skipped, "failed", j.Failed)
	return s.db.SetPlanJobState(ctx, j.ID, state, aj.recognised(), true)
}

// leaveOutExisting marks the job's components still to send that the ledger now holds
// (made since the preview) as skipped: they exist. The ledger is asked about the job's
// students first; the items are read only when it holds some of the plan's components
// for them (a first apply reads none of its 12,000).
func (s *Service) leaveOutExisting(ctx context.Context, j store.PlanJob) error {
	list, err := s.db.PlanItemStudents(ctx, j.ID, itemPending)
	if err != nil || len(list) == 0 {
		return err
	}
	comps, err := s.ledger.PlanComponents(ctx, j.PlanCode, list)
	if err != nil {
		return err
	}
	live := map[string]bool{}
	for _, c := range comps {
		if c.Bill.State != billing.StateDeleted {
			live[c.NIS+"|"+c.Period] = true
		}
	}
	if len(live) == 0 {
		return nil
	}
	items, err := s.db.PlanItems(ctx, j.ID, itemPending)
	if err != nil {
		return err
	}
	var changes []store.PlanItemChange
	for _, it := range items {
		if live[it.NIS+"|"+it.Period] && it.Attempts == 0 {
			changes = append(changes, store.PlanItemChange{Seq: it.Seq, From: it.State, State: itemSkipped, Problem: Exists, At: s.cfg.JobClock.Now()})
		}
	}
	return s.db.SavePlanItems(ctx, j.ID, changes)
}
