package outbox

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/jobs"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/messaging"
	"github.com/sekolah/portal/internal/store"
)

// Actor is who the outbox sends as: the messages' actor, its entries' in the audit log.
const Actor = "portal"

func init() { audit.RegisterMachine(Actor, audit.ThePortal) }

// ProblemAlready: the same message was written before (its idempotency key); ProblemToday:
// the student's parents already have another message that day on the channel.
const (
	ProblemAlready = "already"
	ProblemToday   = "today"
)

// Plan is what a batch would send: who gets what on which channel, who is skipped and
// why. The preview shows it; queueing writes it.
type Plan struct {
	Kind messaging.Kind
	// At is when it starts going out (now, or the next sending hour); Day the school day
	// (UTC midnight) that is, for the one-a-day rule.
	At, Day time.Time
	Rows    []PlanRow
	// Messages is how many messages it writes; Students how many students' parents get
	// one; Skipped how many students get none.
	Messages, Students, Skipped int
	// Sample is the first message as it will read (the parent page link as it is now).
	Sample messaging.Content
}

// PlanRow is one student's message in a plan.
type PlanRow struct {
	NIS, Name, Class string
	// Amount is the rupiah it is about; Count the components (overdue ones for a
	// follow-up).
	Amount int64
	Count  int
	// Fields are the message's, the parent page link last ("" until it is sent).
	Fields []string
	// Key is the idempotency key without the channel.
	Key string
	// WhatsApp and Email are where it goes on each channel, or why not.
	WhatsApp, Email PlanChannel
}

// PlanChannel is one channel of a plan's row: the address, or the problem that keeps the
// message from it (ProblemOptedOut, ProblemNoPhone, …, ProblemAlready, ProblemToday).
type PlanChannel struct {
	Channel messaging.Channel
	To      string
	Skip    string
}

// Sends reports whether the row writes a message on some channel.
func (r PlanRow) Sends() bool { return r.WhatsApp.Skip == "" || r.Email.Skip == "" }

// Queued is what a batch wrote.
type Queued struct {
	// Batch is its id ("" when nothing was new).
	Batch string
	// Messages and Students are what was written; At when it starts going out.
	Messages, Students int
	At                 time.Time
}

// The audit actions of the outbox: a receipt one entry a message when it went (or could
// not), the batches one entry each when queued.
const (
	ActionReceipt   = "messages.receipt"
	ActionReminders = "messages.reminders"
	ActionFollowUps = "messages.followups"
	ActionNotices   = "messages.notices"
)

// What the entries keep besides the figures: the channel, the term, the days before.
const (
	keyChannel  audit.Key = "channel"
	keyMessages audit.Key = "messages"
	keyTerm     audit.Key = "term"
	keyDays     audit.Key = "days"
	keyProblem  audit.Key = "problem"
)

var (
	figMessages = audit.NewFigure("messages", []audit.Key{keyMessages}, func(p i18n.Printer, a audit.Args) string {
		if n, ok := a.Int(keyMessages); ok {
			return p.T("outbox.audit_messages", int(n))
		}
		return ""
	})
	figStudents = audit.NewFigure("students_reached", []audit.Key{audit.KeyCount}, func(p i18n.Printer, a audit.Args) string {
		if n, ok := a.Int(audit.KeyCount); ok {
			return p.T("term.students_count", int(n))
		}
		return ""
	})
	figClass = audit.NewFigure("class", []audit.Key{audit.KeyClass}, func(_ i18n.Printer, a audit.Args) string { return a.Get(audit.KeyClass) })

	auditReceipt = audit.Register(audit.Action{Code: ActionReceipt, About: audit.AboutStudent, Shows: []audit.Figure{audit.Money, audit.Receipt},
		Keeps: []audit.Key{keyChannel, keyProblem}, Needs: []audit.Key{audit.KeyNIS, audit.KeyRef, keyChannel}})
	auditReminders = audit.Register(audit.Action{Code: ActionReminders, Shows: []audit.Figure{figMessages, figStudents},
		Keeps: []audit.Key{keyDays}, Needs: []audit.Key{keyMessages, audit.KeyCount}})
	auditFollowUps = audit.Register(audit.Action{Code: ActionFollowUps, Shows: []audit.Figure{figMessages, figStudents},
		Needs: []audit.Key{keyMessages, audit.KeyCount}})
	auditNotices = audit.Register(audit.Action{Code: ActionNotices, Shows: []audit.Figure{figClass, figMessages, figStudents},
		Keeps: []audit.Key{keyTerm}, Needs: []audit.Key{audit.KeyClass, keyMessages, audit.KeyCount}})
)

// plan decides where each row's message goes now: the channels configured, the parents'
// contacts and opt-outs, the keys already written and the one-a-day rule (all kinds but
// receipts).
func (s *Service) plan(ctx context.Context, kind messaging.Kind, at time.Time, rows []PlanRow) (Plan, error) {
	p := Plan{Kind: kind, At: at, Day: s.cfg.Clock.DayOf(at), Rows: rows}
	nis := make([]string, len(rows))
	keys := make([]string, 0, 2*len(rows))
	for i, r := range rows {
		nis[i] = r.NIS
		keys = append(keys, r.Key+":"+string(messaging.WhatsApp), r.Key+":"+string(messaging.Email))
	}
	roster, err := s.cfg.DB.StudentsByNIS(ctx, nis)
	if err != nil {
		return p, fmt.Errorf("outbox: %w", err)
	}
	list := make([]store.Student, len(rows))
	for i, r := range rows {
		st, ok := roster[r.NIS]
		if !ok {
			st = store.Student{NIS: r.NIS, Name: r.Name}
		}
		list[i] = st
	}
	recips, err := s.cfg.Parents.RecipientsOfMany(ctx, list)
	if err != nil {
		return p, err
	}
	daily := []string(nil)
	if kind != messaging.KindReceipt {
		daily = nis
	}
	taken, err := s.cfg.DB.OutboxTaken(ctx, keys, daily, dayText(p.Day))
	if err != nil {
		return p, fmt.Errorf("outbox: %w", err)
	}
	for i := range p.Rows {
		r := &p.Rows[i]
		rs := recips[r.NIS]
		for _, c := range []struct {
			ch  messaging.Channel
			out *PlanChannel
			err error
			to  string
		}{{messaging.WhatsApp, &r.WhatsApp, rs.WhatsApp.Err, rs.WhatsApp.Address}, {messaging.Email, &r.Email, rs.Email.Err, rs.Email.Address}} {
			*c.out = PlanChannel{Channel: c.ch, To: c.to}
			switch {
			case !s.cfg.Messaging.Configured(c.ch):
				c.out.Skip = ProblemChannelOff
			case c.err != nil:
				c.out.Skip = recipientProblem(c.err)
			case taken[r.Key+":"+string(c.ch)]:
				c.out.Skip = ProblemAlready
			case taken[r.NIS+" "+string(c.ch)]:
				c.out.Skip = ProblemToday
			default:
				p.Messages++
			}
			if c.out.Skip != "" {
				c.out.To = ""
			}
		}
		if r.Sends() {
			p.Students++
		} else {
			p.Skipped++
		}
	}
	for _, r := range p.Rows {
		if r.Sends() {
			fields := slices.Clone(r.Fields)
			fields[len(fields)-1] = s.link(ctx, r.NIS)
			p.Sample, err = messaging.Compose(kind, s.school(ctx), fields...)
			if err != nil {
				return p, fmt.Errorf("outbox: %w", err)
			}
			break
		}
	}
	return p, nil
}

// write stores the plan's messages as one batch; Queued says what was new (a message
// another batch wrote meanwhile, by its key or the one-a-day rule, is left out).
func (s *Service) write(ctx context.Context, p Plan, label, actor string, inHours bool) (Queued, error) {
	j := store.OutboxJob{ID: store.NewID(), Kind: string(p.Kind), Label: label, State: jobQueued, InHours: inHours,
		NotBefore: p.At, Actor: actor}
	var ms []store.OutboxMessage
	var owner []int
	day := dayText(p.Day)
	for i, r := range p.Rows {
		for _, c := range []PlanChannel{r.WhatsApp, r.Email} {
			if c.Skip != "" {
				continue
			}
			seq := len(ms)
			ms = append(ms, store.OutboxMessage{ID: store.NewID(), Seq: seq, Chunk: seq / s.cfg.ChunkSize, Key: r.Key + ":" + string(c.Channel),
				Kind: string(p.Kind), Channel: string(c.Channel), NIS: r.NIS, StudentName: r.Name, Day: day, Fields: r.Fields,
				Amount: r.Amount, State: string(pendingState)})
			owner = append(owner, i)
		}
	}
	q := Queued{At: p.At}
	if len(ms) == 0 {
		return q, nil
	}
	written, err := s.cfg.DB.AddOutbox(ctx, j, ms, s.cfg.Clock.Now())
	if err != nil {
		return q, fmt.Errorf("outbox: %w", err)
	}
	reached := map[int]bool{}
	for i, w := range written {
		if w {
			q.Messages++
			reached[owner[i]] = true
		}
	}
	if q.Messages > 0 {
		q.Batch, q.Students = j.ID, len(reached)
		s.jobs.Wake()
	}
	return q, nil
}

// anyChannel reports whether a message can go at all (a channel configured).
func (s *Service) anyChannel() bool {
	return s.cfg.Messaging.Configured(messaging.WhatsApp) || s.cfg.Messaging.Configured(messaging.Email)
}

// pendingState is a message not sent yet (the job engine's word).
const pendingState = "pending"

// dayText is a school day (UTC midnight) as the outbox keeps it.
func dayText(d time.Time) string { return d.UTC().Format(time.DateOnly) }

// printer formats the messages' figures: always Indonesian, the parents' language.
func (s *Service) printer() i18n.Printer { return i18n.NewPrinter(i18n.Indonesian, s.cfg.Clock.Zone()) }

// Payment is a payment the ledger recorded: its reference, whose, how much, what it paid.
type Payment struct {
	Ref, NIS, Name string
	Total          int64
	Paid           []string
}

// Receipt writes the thanks for payment p to the parents on each channel they can be
// reached on, and wakes the worker: it goes at once, whatever the hour. The same payment
// again (its callback came three times, or was confirmed on two instances) writes
// nothing. Each receipt is audited when it went.
func (s *Service) Receipt(ctx context.Context, p Payment) (Queued, error) {
	if p.Ref == "" || p.NIS == "" {
		return Queued{}, fmt.Errorf("outbox: a receipt needs the payment's reference and student")
	}
	if !s.anyChannel() {
		return Queued{}, nil
	}
	row := PlanRow{NIS: p.NIS, Name: p.Name, Amount: p.Total, Count: len(p.Paid),
		Fields: []string{p.Name, i18n.Rupiah(p.Total), strings.Join(p.Paid, ", "), ""},
		Key:    "receipt:" + p.Ref + ":" + p.NIS}
	plan, err := s.plan(ctx, messaging.KindReceipt, s.cfg.Clock.Now(), []PlanRow{row})
	if err != nil {
		return Queued{}, err
	}
	return s.write(ctx, plan, p.Ref, Actor, false)
}

// auditReceipt records a receipt taken to an end: sent, or not (skipped or failed, why).
func (s *Service) auditReceipt(ctx context.Context, m *store.OutboxMessage, st jobs.State, p jobs.Problem) {
	ref, _ := strings.CutPrefix(m.Key, "receipt:")
	ref, _, _ = strings.Cut(ref, ":")
	args := []audit.Arg{audit.Student(m.NIS, m.StudentName), audit.Total(m.Amount), audit.Ref(ref), audit.ArgOf(keyChannel, m.Channel)}
	outcome := audit.OK
	if st != jobs.Done {
		outcome = audit.Failed
		args = append(args, audit.ArgOf(keyProblem, problemText(p)))
	}
	e := auditReceipt.With(args...)
	e.Actor, e.Target, e.Outcome = audit.Actor{Username: Actor}, m.NIS, outcome
	if err := (audit.Log{DB: s.cfg.DB, Clock: s.cfg.Clock}).Record(ctx, e); err != nil {
		s.log.Error("append audit entry", "action", ActionReceipt, "err", err)
	}
}

// recordBatch audits a queued batch: one entry with its counts.
func (s *Service) recordBatch(ctx context.Context, action *audit.Action, actor audit.Actor, q Queued, args ...audit.Arg) {
	if q.Messages == 0 {
		return
	}
	e := action.With(append([]audit.Arg{audit.ArgOf(keyMessages, strconv.Itoa(q.Messages)), audit.Count(q.Students)}, args...)...)
	e.Actor, e.Target, e.Outcome, e.Detail = actor, q.Batch, audit.OK, "batch "+q.Batch
	if err := (audit.Log{DB: s.cfg.DB, Clock: s.cfg.Clock}).Record(ctx, e); err != nil {
		s.log.Error("append audit entry", "action", action.Code, "err", err)
	}
}

// FollowUpFilter is the arrears report's selection: its filter (overdue only), and,
// when Only is set, just those students of it (the preview's list, as sent).
type FollowUpFilter struct {
	Report ledger.OutstandingFilter
	Only   []string
}

// startAt is when a batch of a kind that keeps the sending hours, written now, starts.
func (s *Service) startAt(ctx context.Context) (time.Time, error) {
	set, err := s.Settings(ctx)
	if err != nil {
		return time.Time{}, err
	}
	return set.Hours.Next(s.cfg.Clock.Now(), s.cfg.Clock.Zone()), nil
}

// PlanFollowUps is the preview of the arrears follow-ups of the report's selection:
// each student with overdue components, what their message says (how many, what paying
// today costs) and where it goes, or why it does not.
func (s *Service) PlanFollowUps(ctx context.Context, f FollowUpFilter) (Plan, error) {
	f.Report.Overdue = true
	rep, err := s.cfg.Ledger.Outstanding(ctx, f.Report)
	if err != nil {
		return Plan{}, fmt.Errorf("outbox: %w", err)
	}
	at, err := s.startAt(ctx)
	if err != nil {
		return Plan{}, err
	}
	day := dayText(s.cfg.Clock.DayOf(at))
	only := map[string]bool{}
	for _, n := range f.Only {
		only[n] = true
	}
	var rows []PlanRow
	for _, o := range rep.Rows {
		if o.NIS == "" || o.OverdueCount == 0 || len(only) > 0 && !only[o.NIS] {
			continue
		}
		rows = append(rows, PlanRow{NIS: o.NIS, Name: o.Name, Class: o.Class, Amount: o.Overdue, Count: o.OverdueCount,
			Fields: []string{o.Name, strconv.Itoa(o.OverdueCount), i18n.Rupiah(o.Overdue), ""},
			Key:    "followup:" + o.NIS + ":" + day})
	}
	return s.plan(ctx, messaging.KindFollowUp, at, rows)
}

// QueueFollowUps writes the follow-ups of the selection as one batch, sent from the next
// sending hour on, paced by the gateway, never by this request; one audit entry.
func (s *Service) QueueFollowUps(ctx context.Context, actor auth.Actor, f FollowUpFilter) (Queued, error) {
	p, err := s.PlanFollowUps(ctx, f)
	if err != nil {
		return Queued{}, err
	}
	q, err := s.write(ctx, p, "", actor.Username, true)
	if err != nil {
		return q, err
	}
	s.recordBatch(ctx, auditFollowUps, actor.Audit(), q)
	return q, nil
}

// Term is a school term: the first (ganjil, July to December of Year) or the second
// (genap, January to June of Year+1) half of the school year Year/Year+1.
type Term struct {
	Year, Half int
}

// ParseTerm reads "2026-1".
func ParseTerm(s string) (Term, bool) {
	y, h, ok := strings.Cut(strings.TrimSpace(s), "-")
	year, err1 := strconv.Atoi(y)
	half, err2 := strconv.Atoi(h)
	if !ok || err1 != nil || err2 != nil || year < 2000 || year > 2200 || half < 1 || half > 2 {
		return Term{}, false
	}
	return Term{Year: year, Half: half}, true
}

// String is "2026-1", as forms and keys carry it.
func (t Term) String() string { return fmt.Sprintf("%d-%d", t.Year, t.Half) }

// Range is the term's first and last days (UTC midnight, the form of component days).
func (t Term) Range() (from, to time.Time) {
	if t.Half == 1 {
		return time.Date(t.Year, time.July, 1, 0, 0, 0, 0, time.UTC), time.Date(t.Year, time.December, 31, 0, 0, 0, 0, time.UTC)
	}
	return time.Date(t.Year+1, time.January, 1, 0, 0, 0, 0, time.UTC), time.Date(t.Year+1, time.June, 30, 0, 0, 0, 0, time.UTC)
}

// Label is how the term is said in p's language ("Semester Ganjil 2026/2027").
func (t Term) Label(p i18n.Printer) string {
	return p.T("outbox.term_"+strconv.Itoa(t.Half), strconv.Itoa(t.Year)+"/"+strconv.Itoa(t.Year+1))
}

// TermOf is the term day (a school day) falls in.
func TermOf(day time.Time) Term {
	if day.Month() >= time.July {
		return Term{Year: day.Year(), Half: 1}
	}
	return Term{Year: day.Year() - 1, Half: 2}
}

// Terms are the terms a notice may be for: the current one and the next.
func (s *Service) Terms() []Term {
	t := TermOf(s.cfg.Clock.Day())
	next := Term{Year: t.Year, Half: 2}
	if t.Half == 2 {
		next = Term{Year: t.Year + 1, Half: 1}
	}
	return []Term{t, next}
}

// PlanNotices is the preview of the bill notices of class for term: each student of the
// class with unpaid components due in the term, their total as paying today would cost,
// and where the notice goes, or why it does not.
func (s *Service) PlanNotices(ctx context.Context, class string, t Term, only []string) (Plan, error) {
	from, to := t.Range()
	rep, err := s.cfg.Ledger.Outstanding(ctx, ledger.OutstandingFilter{Class: class, DueFrom: from, DueTo: to})
	if err != nil {
		return Plan{}, fmt.Errorf("outbox: %w", err)
	}
	at, err := s.startAt(ctx)
	if err != nil {
		return Plan{}, err
	}
	keep := map[string]bool{}
	for _, n := range only {
		keep[n] = true
	}
	label := t.Label(s.printer())
	var rows []PlanRow
	for _, o := range rep.Rows {
		if o.NIS == "" || o.Count == 0 || len(keep) > 0 && !keep[o.NIS] {
			continue
		}
		rows = append(rows, PlanRow{NIS: o.NIS, Name: o.Name, Class: o.Class, Amount: o.Total, Count: o.Count,
			Fields: []string{o.Name, label, i18n.Rupiah(o.Total), ""},
			Key:    "notice:" + class + ":" + t.String() + ":" + o.NIS})
	}
	return s.plan(ctx, messaging.KindNotice, at, rows)
}

// QueueNotices writes the class's notices for term as one batch, sent from the next
// sending hour on; one audit entry.
func (s *Service) QueueNotices(ctx context.Context, actor auth.Actor, class string, t Term, only []string) (Queued, error) {
	p, err := s.PlanNotices(ctx, class, t, only)
	if err != nil {
		return Queued{}, err
	}
	q, err := s.write(ctx, p, class+" "+t.String(), actor.Username, true)
	if err != nil {
		return q, err
	}
	s.recordBatch(ctx, auditNotices, actor.Audit(), q, audit.Class(class), audit.ArgOf(keyTerm, t.String()))
	return q, nil
}

// StudentMessage is one outbox message about a student, for the student page: what, on
// which channel, to whom, and where it stands.
type StudentMessage = store.OutboxMessage

// OfStudent lists the newest outbox messages about nis (at most limit), with their
// records' statuses.
func (s *Service) OfStudent(ctx context.Context, nis string, limit int) ([]StudentMessage, error) {
	return s.cfg.DB.OutboxOfStudent(ctx, nis, limit)
}
