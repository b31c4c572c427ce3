package plans

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/jobs"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/students"
)

// ErrNotFound is the answer for a plan, a job or a discount that does not exist.
var ErrNotFound = store.ErrNotFound

// Config shapes the service and its apply jobs; a field left zero takes its default.
type Config struct {
	// Accounts are the service's account codes (a plan's must be one of them).
	Accounts []string
	// ChunkSize is the components per batch call (default 200, at most the service's
	// page, 1000); Concurrency the chunks in flight at once (default 3): the uploads' own
	// settings (PORTAL_UPLOAD_CHUNK_SIZE, PORTAL_UPLOAD_CONCURRENCY).
	ChunkSize, Concurrency int
	// LeaseTTL is how long a job's lease lasts unless renewed every LeaseRenew (default
	// 60s and 10s); a job whose instance died is taken up by another once it lapses.
	LeaseTTL, LeaseRenew time.Duration
	// RetryBase, RetryMax, WaitMax and Settle shape the engine's back-off, its wait for a
	// service that stopped answering and the time a call without an answer is given to
	// land before it is looked for (the engine's defaults; Settle the client's timeout);
	// WaitFor is how long a job waits for a service that stopped answering before its
	// unsent components wait for a retry (default 12 hours).
	RetryBase, RetryMax, WaitMax, Settle, WaitFor time.Duration
	// Clock is the portal's clock (required): now, the school's zone and today, for the
	// previews, the kartu and the audit log.
	Clock clock.Clock
	// JobClock is the apply jobs' clock: their leases, waits and times (default Clock).
	// It must advance (internal/jobs): the test harness gives the system's when the
	// portal's is fixed.
	JobClock clock.Clock
}

func (c *Config) defaults() {
	if c.ChunkSize <= 0 {
		c.ChunkSize = 200
	}
	c.ChunkSize = min(c.ChunkSize, 1000)
	c.Concurrency = cmp.Or(c.Concurrency, 3)
	c.LeaseTTL = cmp.Or(c.LeaseTTL, time.Minute)
	if c.LeaseRenew <= 0 || c.LeaseRenew >= c.LeaseTTL {
		c.LeaseRenew = max(min(10*time.Second, c.LeaseTTL/3), time.Millisecond)
	}
	c.WaitFor = cmp.Or(c.WaitFor, 12*time.Hour)
	if c.JobClock.IsZero() {
		c.JobClock = c.Clock
	}
}

// Service is the fee plans: plans and their rates, discounts, previews of applying a
// plan and its apply jobs (a worker: Start and Stop), the corrections a change offers,
// the kartu SPP and the discounts' figures.
type Service struct {
	cfg     Config
	db      *store.DB
	ledger  *ledger.Ledger
	writer  *changes.Writer
	fixes   *corrections.Runner
	log     *slog.Logger
	jobs    *jobs.Runner
	auditor audit.Log
}

// New builds the service; its apply jobs run once Start is called. Components are
// created through writer; what already exists is changed through fixes (the correction
// jobs).
func New(cfg Config, db *store.DB, l *ledger.Ledger, writer *changes.Writer, fixes *corrections.Runner, log *slog.Logger) *Service {
	cfg.defaults()
	cfg.Clock.Zone() // the zero Clock panics here, not in the job loop
	s := &Service{cfg: cfg, db: db, ledger: l, writer: writer, fixes: fixes, log: cmp.Or(log, slog.Default()),
		auditor: audit.Log{DB: db, Clock: cfg.Clock}}
	s.jobs = s.newRunner()
	return s
}

// Config is the service's configuration after defaults.
func (s *Service) Config() Config { return s.cfg }

// Start starts the apply jobs' loop: jobs left by a previous process are resumed.
func (s *Service) Start(ctx context.Context) error {
	if err := s.jobs.Start(ctx); err != nil {
		return fmt.Errorf("plans: %w", err)
	}
	return nil
}

// Stop stops taking work and waits for the calls in flight (until ctx ends: then they
// are cut, and looked for at the service at the next start).
func (s *Service) Stop(ctx context.Context) error { return s.jobs.Stop(ctx) }

// Plans lists every plan, the latest first.
func (s *Service) Plans(ctx context.Context) ([]Plan, error) {
	list, err := s.db.FeePlans(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Plan, len(list))
	for i, p := range list {
		out[i] = planOf(p)
	}
	return out, nil
}

// Plan is one plan (ErrNotFound when there is none).
func (s *Service) Plan(ctx context.Context, id string) (Plan, error) {
	p, err := s.db.FeePlanByID(ctx, id)
	if err != nil {
		return Plan{}, err
	}
	return planOf(p), nil
}

// Create checks the form and stores the plan it describes, audited. A code typed and
// taken already is a problem; a code derived from the name is made unique ("SPP2627-2").
func (s *Service) Create(ctx context.Context, actor auth.Actor, f Form) (Plan, problem.List, error) {
	p, probs := f.Parse(s.cfg.Accounts)
	if len(probs) > 0 {
		return p, probs, nil
	}
	typed := p.Code != ""
	if !typed {
		p.Code = DeriveCode(p.Name)
	}
	base := p.Code
	for n := 2; ; n++ {
		taken, err := s.db.FeePlanCodeTaken(ctx, p.Code)
		if err != nil {
			return p, nil, err
		}
		if !taken {
			break
		}
		if typed {
			probs.Add(FieldCode, "plans.err.code_taken")
			return p, probs, nil
		}
		suffix := "-" + strconv.Itoa(n)
		p.Code = base[:min(len(base), 16-len(suffix))] + suffix
	}
	p.ID, p.CreatedBy = store.NewID(), actor.Username
	e := s.entry(actor, auditPlanCreate.With(audit.Name(p.Name), planArg(p.Code), audit.Total(p.Amount)), p.Code)
	if err := s.db.CreateFeePlan(ctx, p.record(), e); errors.Is(err, store.ErrConflict) {
		probs.Add(FieldCode, "plans.err.code_taken")
		return p, probs, nil
	} else if err != nil {
		return p, nil, err
	}
	got, err := s.Plan(ctx, p.ID)
	return got, nil, err
}

// Update checks the form and replaces plan old's fields with it (its code stays),
// audited with the fields that changed. The components it made are not touched: the
// page offers their correction (Reprice).
func (s *Service) Update(ctx context.Context, actor auth.Actor, old Plan, f Form) (Plan, problem.List, error) {
	f.Code = old.Code
	p, probs := f.Parse(s.cfg.Accounts)
	if len(probs) > 0 {
		return p, probs, nil
	}
	p.ID, p.Code, p.CreatedBy, p.CreatedAt = old.ID, old.Code, old.CreatedBy, old.CreatedAt
	changed := ChangedFields(old, p)
	if len(changed) == 0 {
		return old, nil, nil
	}
	e := s.entry(actor, auditPlanUpdate.With(audit.Name(p.Name), planArg(p.Code), audit.Total(p.Amount), audit.Fields(changed)), p.Code)
	if err := s.db.UpdateFeePlan(ctx, p.record(), e); err != nil {
		return p, nil, err
	}
	got, err := s.Plan(ctx, p.ID)
	return got, nil, err
}

// ChangedFields names the fields of a plan that differ between old and p (form names).
func ChangedFields(old, p Plan) []string {
	var out []string
	add := func(changed bool, field string) {
		if changed {
			out = append(out, field)
		}
	}
	add(old.Name != p.Name, FieldName)
	add(old.ItemName != p.ItemName, FieldItemName)
	add(old.AccountCode != p.AccountCode, FieldAccount)
	add(old.Amount != p.Amount, FieldAmount)
	add(old.Penalty != p.Penalty, FieldPenalty)
	add(old.Frequency != p.Frequency, FieldFrequency)
	add(old.From != p.From, FieldFrom)
	add(old.To != p.To, FieldTo)
	add(old.DueDay != p.DueDay, FieldDueDay)
	add(old.ExpiryDays != p.ExpiryDays, FieldExpiryDays)
	add(old.Instalments != p.Instalments, FieldInstalments)
	add(!slices.Equal(old.Rates, p.Rates), FieldRates)
	return out
}

// entry is an audit entry of e by actor about target, dated now.
func (s *Service) entry(actor auth.Actor, e audit.Entry, target string) store.AuditEntry {
	e.Actor, e.Outcome, e.Target, e.At = actor.Audit(), audit.OK, target, s.cfg.Clock.Now()
	if err := e.Check(); err != nil {
		s.log.Error("plans: an audit entry its action does not describe", "err", err)
	}
	return e.Row()
}

// Discounts are the discounts of the students nis (every student's when nis is nil).
func (s *Service) Discounts(ctx context.Context, nis []string) ([]Discount, error) {
	list, err := s.db.Discounts(ctx, nis)
	if err != nil {
		return nil, err
	}
	out := make([]Discount, len(list))
	for i, d := range list {
		out[i] = discountOf(d)
	}
	return out, nil
}

// Discount is one discount (ErrNotFound when there is none).
func (s *Service) Discount(ctx context.Context, id string) (Discount, error) {
	d, err := s.db.DiscountByID(ctx, id)
	if err != nil {
		return Discount{}, err
	}
	return discountOf(d), nil
}

// planIDs are the plans' ids, for a discount's form.
func (s *Service) planIDs(ctx context.Context) (map[string]bool, map[string]Plan, error) {
	list, err := s.Plans(ctx)
	if err != nil {
		return nil, nil, err
	}
	ids, byID := map[string]bool{}, map[string]Plan{}
	for _, p := range list {
		ids[p.ID], byID[p.ID] = true, p
	}
	return ids, byID, nil
}

// Grant checks the form and gives student st the discount it describes (old, when
// set, is the discount it changes), audited.
func (s *Service) Grant(ctx context.Context, actor auth.Actor, st students.Student, old *Discount, f DiscountForm) (Discount, problem.List, error) {
	ids, byID, err := s.planIDs(ctx)
	if err != nil {
		return Discount{}, nil, err
	}
	d, probs := f.Parse(st.NIS, ids)
	if len(probs) > 0 {
		return d, probs, nil
	}
	action := auditDiscountGrant
	if old != nil {
		d.ID, d.GrantedBy, d.GrantedByID, d.CreatedAt = old.ID, old.GrantedBy, old.GrantedByID, old.CreatedAt
		action = auditDiscountChange
	} else {
		d.ID, d.GrantedBy, d.GrantedByID = store.NewID(), actor.Username, actor.ID
	}
	e := s.entry(actor, action.With(audit.Student(st.NIS, st.Name), discountArg(d), audit.Item(byID[d.PlanID].Name),
		audit.Reason(d.ReasonText(i18n.NewPrinter(i18n.Indonesian, s.cfg.Clock.Zone())))), st.NIS)
	if err := s.db.SaveDiscount(ctx, d.record(), e); err != nil {
		return d, nil, err
	}
	got, err := s.Discount(ctx, d.ID)
	return got, nil, err
}

// Remove takes discount d away from student st, audited. The components it lowered stay
// as they are until corrected (Reprice offers it).
func (s *Service) Remove(ctx context.Context, actor auth.Actor, st students.Student, d Discount) error {
	_, byID, err := s.planIDs(ctx)
	if err != nil {
		return err
	}
	e := s.entry(actor, auditDiscountRemove.With(audit.Student(st.NIS, st.Name), discountArg(d), audit.Item(byID[d.PlanID].Name),
		audit.Reason(d.ReasonText(i18n.NewPrinter(i18n.Indonesian, s.cfg.Clock.Zone())))), st.NIS)
	return s.db.DeleteDiscount(ctx, d.ID, e)
}

// Candidate is a student whose record carries a government-aid flag (KIP, KPS, PIP from
// a Dapodik import): someone to consider for a scholarship. A flag grants nothing by
// itself.
type Candidate struct {
	Student students.Student
	// Discounts are those the student has already.
	Discounts []Discount
}

// Candidates are the active students with a government-aid flag, by class and name, with
// their discounts.
func (s *Service) Candidates(ctx context.Context) ([]Candidate, error) {
	var list []students.Student
	err := s.db.AllStudents(ctx, func(st store.Student) error {
		if st.Aid.Any() && students.StatusOf(st.Status).Active() {
			list = append(list, st)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("plans: candidates: %w", err)
	}
	sortStudents(list)
	nis := make([]string, len(list))
	for i, st := range list {
		nis[i] = st.NIS
	}
	ds, err := s.Discounts(ctx, nis)
	if err != nil {
		return nil, err
	}
	by := map[string][]Discount{}
	for _, d := range ds {
		by[d.NIS] = append(by[d.NIS], d)
	}
	out := make([]Candidate, len(list))
	for i, st := range list {
		out[i] = Candidate{Student: st, Discounts: by[st.NIS]}
	}
	return out, nil
}

// sortStudents orders students by class (the portal's natural order), name and NIS.
func sortStudents(list []students.Student) {
	slices.SortStableFunc(list, func(a, b students.Student) int {
		return cmp.Or(i18n.CompareNatural(a.Description, b.Description), strings.Compare(a.Name, b.Name), strings.Compare(a.NIS, b.NIS))
	})
}

// Counts are how many components each plan made (by code) and how many are paid, as the
// ledger holds them.
func (s *Service) Counts(ctx context.Context) (map[string]ledger.PlanCount, error) {
	return s.ledger.PlanCounts(ctx)
}

// ClassSize is a class of the roster and how many of its students are active.
type ClassSize struct {
	Class, Grade string
	Students     int
}

// Classes are the roster's classes in the natural order, with their grades and how many
// active students each has: what a plan may be applied to.
func (s *Service) Classes(ctx context.Context) ([]ClassSize, error) {
	n := map[string]int{}
	err := s.db.AllStudents(ctx, func(st store.Student) error {
		if _, ok := n[st.Description]; !ok {
			n[st.Description] = 0
		}
		if students.StatusOf(st.Status).Active() {
			n[st.Description]++
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("plans: classes: %w", err)
	}
	var out []ClassSize
	for c, k := range n {
		if c != "" {
			out = append(out, ClassSize{Class: c, Grade: Grade(c), Students: k})
		}
	}
	slices.SortFunc(out, func(a, b ClassSize) int { return i18n.CompareNatural(a.Class, b.Class) })
	return out, nil
}
