package corrections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/jobs"
	"github.com/sekolah/portal/internal/store"
)

// KindReplace is a correction job that replaces components by others: an instalment
// split (the original replaced by its parts) and its undo (the parts replaced by the
// original made again). It runs in steps, one chunk each, never two at once:
//
//  1. make the new components, in one batch (all or none at the service), each carrying
//     its key in its notes; a call without an answer is read by those keys;
//  2. once every one of them is made, cancel the old ones, in one call (all or none); one
//     paid meanwhile keeps them all (a paid one cannot be cancelled, and cancelling the
//     others would leave less than was owed);
//  3. when step 1 made only some (or none), or step 2 could not cancel, the new ones that
//     were made are cancelled again, and the old ones stay as they were.
//
// So a crash, a stop or a lost answer at any point never leaves both the old and the new
// ones for good, nor neither: the job resumes from its items (here or on another
// instance), reads what it sent without an answer, and takes the next step.
const KindReplace = "replace"

// The sources of a replacement.
const (
	SourceSplit     = "split"      // an instalment split
	SourceSplitUndo = "split-undo" // the undo of one
	SourceLeaver    = "leaver"     // a leaver's bills after they left (a cancel job)
)

// The chunks of a replacement: its steps, in order.
const (
	chunkMake     = 0
	chunkCancel   = 1
	chunkWithdraw = 2
)

// The problems of a replacement's items (catalogue keys).
const (
	// ProblemNotMade: an old component kept because the new ones could not all be made.
	ProblemNotMade = "corrections.problem.not_made"
	// ProblemKeptWithPaid: kept because another of those to cancel was paid meanwhile.
	ProblemKeptWithPaid = "corrections.problem.kept_with_paid"
)

// Outcome is where a replacement stands, read from its items.
type Outcome string

// The outcomes of a replacement.
const (
	OutcomeRunning  Outcome = "running"
	OutcomeReplaced Outcome = "replaced"  // the new ones made, the old ones cancelled
	OutcomeNotMade  Outcome = "not_made"  // nothing made: the old ones as they were
	OutcomeWithdrew Outcome = "withdrawn" // the new ones cancelled again: the old ones as they were
	OutcomePartial  Outcome = "partial"   // something could not be taken back: the page lists it
)

// Changed reports an outcome that changed nothing at the service in the end.
func (o Outcome) Changed() bool { return o == OutcomeReplaced || o == OutcomePartial }

// ReplacementOutcome reads where a replacement stands from its items.
func ReplacementOutcome(items []store.CorrectionItem) Outcome {
	var made, makes, cancelled, cancels, withdrawn, withdraws int
	for _, it := range items {
		if it.State == ItemPending || it.State == ItemSent {
			return OutcomeRunning
		}
		done := it.State == ItemDone
		switch it.Chunk {
		case chunkMake:
			makes++
			if done {
				made++
			}
		case chunkCancel:
			cancels++
			if done {
				cancelled++
			}
		default:
			withdraws++
			if done {
				withdrawn++
			}
		}
	}
	switch {
	case made == makes && cancelled == cancels && withdraws == 0:
		return OutcomeReplaced
	case made == 0 && cancelled == 0:
		return OutcomeNotMade
	case cancelled == 0 && withdrawn == made:
		return OutcomeWithdrew
	}
	return OutcomePartial
}

// ReplacementSteps sorts a replacement's items by step: the components to make, those to
// cancel, and those made and cancelled again (withdrawn).
func ReplacementSteps(items []store.CorrectionItem) (makes, cancels, withdraws []store.CorrectionItem) {
	for _, it := range items {
		switch it.Chunk {
		case chunkMake:
			makes = append(makes, it)
		case chunkCancel:
			cancels = append(cancels, it)
		default:
			withdraws = append(withdraws, it)
		}
	}
	return makes, cancels, withdraws
}

// replacement is a replace job to submit.
type replacement struct {
	Source, NIS, StudentName string
	Make                     []billing.ComponentInput
	Cancel                   []billing.Bill
	Reason                   string
	AmountBefore             int64
	AmountAfter              int64
	Actor                    auth.Actor
}

// made is a component to make as an item's payload: its fields, days as YYYY-MM-DD.
type made struct {
	AccountCode string `json:"account_code"`
	Name        string `json:"name"`
	Amount      int64  `json:"amount"`
	Penalty     int64  `json:"penalty"`
	Due         string `json:"due"`
	Expiry      string `json:"expiry"`
	Active      string `json:"active,omitempty"`
	Notes       string `json:"notes"`
}

func encodeMade(in billing.ComponentInput) string {
	m := made{AccountCode: in.AccountCode, Name: in.Name, Amount: in.Amount, Penalty: in.Penalty,
		Due: in.Due.UTC().Format(dayLayout), Expiry: in.Expiry.UTC().Format(dayLayout), Notes: in.Notes}
	if !in.Active.IsZero() {
		m.Active = in.Active.UTC().Format(dayLayout)
	}
	b, _ := json.Marshal(m) // plain values: cannot fail
	return string(b)
}

func decodeMade(it store.CorrectionItem) (billing.ComponentInput, error) {
	var m made
	if err := json.Unmarshal([]byte(it.Payload), &m); err != nil {
		return billing.ComponentInput{}, fmt.Errorf("corrections: item payload: %w", err)
	}
	in := billing.ComponentInput{NIS: it.NIS, AccountCode: m.AccountCode, Name: m.Name, Amount: m.Amount, Penalty: m.Penalty, Notes: m.Notes}
	for _, d := range []struct {
		s string
		t *time.Time
	}{{m.Due, &in.Due}, {m.Expiry, &in.Expiry}, {m.Active, &in.Active}} {
		if d.s == "" {
			continue
		}
		t, err := time.Parse(dayLayout, d.s)
		if err != nil {
			return in, fmt.Errorf("corrections: item payload: %w", err)
		}
		*d.t = t
	}
	return in, nil
}

// submitReplacement stores a replace job through create (which keeps the job with the
// record of its own kind, in one transaction) and wakes the loop.
func (r *Runner) submitReplacement(ctx context.Context, rep replacement, create func(store.CorrectionJob, []store.CorrectionItem) error) (string, error) {
	j := store.CorrectionJob{ID: store.NewID(), Kind: KindReplace, Source: rep.Source, Reason: rep.Reason,
		Selection: "/students/" + rep.NIS, State: StateQueued, ActorID: rep.Actor.ID, Actor: rep.Actor.Username,
		ActorRole: string(rep.Actor.Role), ActorIP: rep.Actor.IP, AmountBefore: rep.AmountBefore, AmountAfter: rep.AmountAfter,
		Value: strconv.Itoa(len(rep.Make))}
	var items []store.CorrectionItem
	for _, in := range rep.Make {
		items = append(items, store.CorrectionItem{Seq: len(items), Chunk: chunkMake, NIS: rep.NIS, StudentName: rep.StudentName,
			Name: in.Name, Amount: in.Amount, Payload: encodeMade(in), State: ItemPending})
	}
	for _, b := range rep.Cancel {
		items = append(items, store.CorrectionItem{Seq: len(items), Chunk: chunkCancel, ComponentID: b.ComponentID, NIS: rep.NIS,
			StudentName: rep.StudentName, Name: b.Name, Amount: b.Amount, State: ItemPending})
	}
	if err := create(j, items); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return "", ErrSplitTaken
		}
		return "", fmt.Errorf("corrections: submit: %w", err)
	}
	r.jobs.Wake()
	return j.ID, nil
}

// runReplacement takes a replace job's steps to an end, one after the other: each step
// is decided (advance) before the engine sends it, so a job resumed after a crash between
// two steps takes the right one. finished is false when the run was cut short, and when
// a step could not be taken to an end this time (an answer still to be read): the loop
// takes the job up again.
func (r *Runner) runReplacement(ctx context.Context, j store.CorrectionJob) (bool, error) {
	jb := &job{r: r, j: j, actor: actorOf(j)}
	for {
		if err := r.advance(ctx, j); err != nil {
			return false, err
		}
		open, err := r.db.CorrectionOpenChunks(ctx, j.ID)
		if err != nil || len(open) == 0 {
			return err == nil, err
		}
		finished, err := r.jobs.Engine.Run(ctx, j.ID, jb)
		if err != nil || !finished {
			return false, err
		}
		after, err := r.db.CorrectionOpenChunks(ctx, j.ID)
		if err != nil {
			return false, err
		}
		if len(after) > 0 && after[0] == open[0] {
			return true, nil // the step is still open: run says so, and the loop comes back
		}
	}
}

// advance decides the next step of a replace job from its items: when the new
// components are not all made, the old ones are kept (never sent) and those made are
// withdrawn; when the old ones could not be cancelled, those made are withdrawn.
func (r *Runner) advance(ctx context.Context, j store.CorrectionJob) error {
	items, err := r.db.CorrectionItems(ctx, j.ID)
	if err != nil {
		return err
	}
	makes, cancels, withdraws := ReplacementSteps(items)
	open := func(list []store.CorrectionItem) (seqs []int) {
		for _, it := range list {
			if it.State == ItemPending || it.State == ItemSent {
				seqs = append(seqs, it.Seq)
			}
		}
		return seqs
	}
	allDone := func(list []store.CorrectionItem) bool {
		for _, it := range list {
			if it.State != ItemDone {
				return false
			}
		}
		return true
	}
	switch {
	case len(open(makes)) > 0 || len(withdraws) > 0:
		return nil
	case !allDone(makes):
		if seqs := open(cancels); len(seqs) > 0 {
			if err := r.db.SetCorrectionItems(ctx, j.ID, seqs, ItemSkipped, ProblemNotMade, r.cfg.Clock.Now()); err != nil {
				return err
			}
		}
	case len(open(cancels)) > 0 || allDone(cancels):
		return nil
	}
	var add []store.CorrectionItem
	next := len(items)
	for _, it := range makes {
		if it.State == ItemDone && it.ComponentID != "" {
			add = append(add, store.CorrectionItem{Seq: next, Chunk: chunkWithdraw, ComponentID: it.ComponentID, NIS: it.NIS,
				StudentName: it.StudentName, Name: it.Name, Amount: it.Amount, State: ItemPending})
			next++
		}
	}
	if len(add) == 0 {
		return nil
	}
	r.log.Warn("replacement: withdrawing what was made", "job", j.ID, "components", len(add))
	return r.db.AddCorrectionItems(ctx, j.ID, add)
}

// endReplacement is a finished replace job's state: done when it replaced, partial when
// not; one that changed nothing frees its split for another try, and is audited so.
func (r *Runner) endReplacement(ctx context.Context, j store.CorrectionJob) (string, error) {
	items, err := r.db.CorrectionItems(ctx, j.ID)
	if err != nil {
		return "", err
	}
	o := ReplacementOutcome(items)
	if o == OutcomeReplaced {
		return StateDone, nil
	}
	if !o.Changed() {
		if err := r.db.EndInstalmentJob(ctx, j.ID); err != nil {
			return "", err
		}
	}
	a, orig := auditSplit, billing.Bill{}
	for _, it := range items {
		switch {
		case j.Source == SourceSplit && it.Chunk == chunkCancel:
			orig = billing.Bill{ComponentID: it.ComponentID, NIS: it.NIS, StudentName: it.StudentName, Name: it.Name, Amount: it.Amount}
		case j.Source == SourceSplitUndo && it.Chunk == chunkMake:
			a, orig = auditSplitUndo, billing.Bill{NIS: it.NIS, StudentName: it.StudentName, Name: it.Name, Amount: it.Amount}
		}
	}
	if orig.NIS != "" {
		parts, _ := strconv.Atoi(j.Value)
		if a == auditSplitUndo {
			parts = 0
			for _, it := range items {
				if it.Chunk == chunkCancel {
					parts++
				}
			}
		}
		r.recordSplit(ctx, a, actorOf(j), orig, parts, j.Reason, j.ID, audit.Failed)
	}
	return StatePartial, nil
}

// replaceOpenChunks is a replace job's next step only: the steps never run at once.
func (c *job) replaceOpenChunks(ctx context.Context, id string) ([]int, error) {
	open, err := c.r.db.CorrectionOpenChunks(ctx, id)
	if len(open) > 1 {
		open = open[:1]
	}
	return open, err
}

// sendReplace sends a step: the new components in one batch (their ids recorded from the
// answer), or a cancel of the old ones, or of those made, in one call.
func (c *job) sendReplace(ctx context.Context, ch *jobs.Chunk, items []*jobs.Item) error {
	detail := "correction " + c.j.ID + " chunk " + strconv.Itoa(ch.Seq)
	if ch.Seq != chunkMake {
		ids := make([]string, len(items))
		for i, it := range items {
			ids[i] = item(ch, it).ComponentID
		}
		return c.r.steps.CancelComponents(ctx, c.actor, ids, c.j.Reason, detail)
	}
	ins := make([]billing.ComponentInput, len(items))
	for i, it := range items {
		in, err := decodeMade(item(ch, it))
		if err != nil {
			return err
		}
		ins[i] = in
	}
	bills, err := c.r.steps.MakeComponents(ctx, c.actor, ins, detail)
	if err != nil {
		return err
	}
	byNotes := map[string]billing.Bill{}
	for _, b := range bills {
		byNotes[b.Notes] = b
	}
	for i, it := range items {
		b, ok := byNotes[ins[i].Notes]
		if !ok {
			// Made, but the answer did not say as what: the engine reads them by their keys.
			return fmt.Errorf("corrections: job %s: the service's answer lacks %q", c.j.ID, ins[i].Name)
		}
		if err := c.r.db.SetCorrectionItemComponent(ctx, c.j.ID, it.Key, b.ComponentID); err != nil {
			return err
		}
	}
	return nil
}

// checkReplace reads a step's items at the service after a call without an answer or a
// refusal: a new component by its key in the student's records (made: done, its id
// recorded); an old one or one made by its record (cancelled: done; paid: skipped). When
// one of the old ones was paid, none is cancelled: those still to send are kept.
func (c *job) checkReplace(ctx context.Context, ch *jobs.Chunk, items []*jobs.Item) error {
	if ch.Seq == chunkMake {
		if len(items) == 0 {
			return nil
		}
		found, err := c.r.steps.FindMade(ctx, item(ch, items[0]).NIS)
		if err != nil {
			return err
		}
		for _, it := range items {
			in, err := decodeMade(item(ch, it))
			if err != nil {
				return err
			}
			b, ok := found[in.Notes]
			if !ok {
				continue
			}
			if err := c.r.db.SetCorrectionItemComponent(ctx, c.j.ID, it.Key, b.ComponentID); err != nil {
				return err
			}
			ch.Decide(it, jobs.Decision{State: jobs.Done})
		}
		return nil
	}
	paid := false
	for _, it := range items {
		d, err := c.r.steps.CheckCancel(ctx, item(ch, it).ComponentID)
		if err != nil {
			return err
		}
		if d.State != jobs.Pending {
			ch.Decide(it, d)
		}
		paid = paid || d.State == jobs.Skipped && d.Problem.Code == ProblemPaid
	}
	if paid && ch.Seq == chunkCancel {
		for _, it := range ch.Open() {
			ch.Decide(it, skipped(ProblemKeptWithPaid))
		}
	}
	return nil
}

// refusedReplace decides a refused step: a refused batch of new components made none
// (they fail with the service's words); a refused cancel is read as checkReplace reads it.
func (c *job) refusedReplace(ctx context.Context, ch *jobs.Chunk, items []*jobs.Item) error {
	if ch.Seq == chunkMake {
		return nil
	}
	return c.checkReplace(ctx, ch, items)
}

// MakeComponents makes new components at the service (all or none), each carrying its
// key in its notes (FindMade reads them by it).
func (s Steps) MakeComponents(ctx context.Context, actor auth.Actor, ins []billing.ComponentInput, detail string) ([]billing.Bill, error) {
	return s.Writer.CreateComponents(ctx, actor, ins, detail)
}

// FindMade reads student nis's components at the service (cancelled ones too: one made
// and cancelled since was made all the same), by their notes; what it finds is recorded
// in the ledger, as the writer would have from the answer.
func (s Steps) FindMade(ctx context.Context, nis string) (map[string]billing.Bill, error) {
	out := map[string]billing.Bill{}
	var live []billing.Bill
	for _, state := range []billing.State{"", billing.StateDeleted} {
		for b, err := range s.Writer.Client.AllForStudent(ctx, nis, billing.Query{State: state, Limit: billing.MaxLimit}) {
			if err != nil {
				return nil, err
			}
			if _, ok := PartOf(b.Notes); ok {
				out[b.Notes] = b
				live = append(live, b)
			}
		}
	}
	if s.Writer.Ledger != nil && len(live) > 0 {
		if _, err := s.Writer.Ledger.Upsert(context.WithoutCancel(ctx), live); err != nil && s.Writer.Nudge != nil {
			s.Writer.Nudge()
		}
	}
	return out, nil
}
