package plans

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/jobs"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/store"
)

// applyJob is an apply job as the engine runs it (a jobs.Job): its chunks kept in
// plan_items, each chunk's components created in one batch through changes.Writer as the
// person who confirmed it, and those sent without an answer looked for at the service by
// the key in their notes.
type applyJob struct {
	s     *Service
	j     store.PlanJob
	actor auth.Actor
	// account is the plan's account code, read when the run began.
	account string

	mu   sync.Mutex
	seen map[int]int // recognised items of each chunk in this run
}

// chunkData is a chunk's items as kept, the state each had when last saved (the job's
// counts move by the difference), and the components found for them (by seq).
type chunkData struct {
	items map[int]store.PlanItem
	saved map[int]jobs.State
	made  map[int]string
	mu    sync.Mutex
}

func (c *chunkData) record(seq int, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id == "" {
		delete(c.made, seq)
		return
	}
	c.made[seq] = id
}

func (c *chunkData) component(seq int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.made[seq]
}

func data(ch *jobs.Chunk) *chunkData { return ch.Data.(*chunkData) }

// recognised adds up the items found at the service in this run.
func (a *applyJob) recognised() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, v := range a.seen {
		n += v
	}
	return n
}

// OpenChunks implements jobs.Store.
func (a *applyJob) OpenChunks(ctx context.Context, id string) ([]int, error) {
	return a.s.db.PlanOpenChunks(ctx, id)
}

// LoadChunk implements jobs.Store: the chunk's items in their states; the chunk is
// unknown when one was sent without an answer, since the latest of their times.
func (a *applyJob) LoadChunk(ctx context.Context, id string, seq int) (*jobs.Chunk, error) {
	items, err := a.s.db.PlanChunk(ctx, id, seq)
	if err != nil {
		return nil, err
	}
	d := &chunkData{items: make(map[int]store.PlanItem, len(items)), saved: make(map[int]jobs.State, len(items)), made: map[int]string{}}
	ch := &jobs.Chunk{Job: id, Seq: seq, State: jobs.ChunkPending, Data: d, Items: make([]jobs.Item, 0, len(items))}
	for _, it := range items {
		d.items[it.Seq], d.saved[it.Seq] = it, jobs.State(it.State)
		ch.Items = append(ch.Items, jobs.Item{Key: it.Seq, State: jobs.State(it.State), Problem: problemOf(it.Problem)})
		if it.State == string(jobs.Sent) {
			ch.State = jobs.ChunkUnknown
			ch.SentAt = maxTime(ch.SentAt, it.UpdatedAt)
		}
	}
	return ch, nil
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// SaveChunk implements jobs.Store: each changed item with its state, its problem, its
// time (a sent one carries the chunk's: when its call left, or ended without an answer)
// and the component made for it once known.
func (a *applyJob) SaveChunk(ctx context.Context, ch *jobs.Chunk) error {
	d := data(ch)
	now := a.s.cfg.JobClock.Now()
	var changes []store.PlanItemChange
	for _, it := range ch.Items {
		if !it.Changed() {
			continue
		}
		at := now
		if it.State == jobs.Sent {
			at = ch.SentAt
		}
		changes = append(changes, store.PlanItemChange{Seq: it.Key, From: string(d.saved[it.Key]), State: string(it.State),
			Problem: problemText(it.Problem), At: at, ComponentID: d.component(it.Key)})
	}
	a.mu.Lock()
	if a.seen == nil {
		a.seen = map[int]int{}
	}
	a.seen[ch.Seq] = max(a.seen[ch.Seq], ch.Recognised)
	a.mu.Unlock()
	if err := a.s.db.SavePlanItems(ctx, ch.Job, changes); err != nil {
		return err
	}
	for _, c := range changes {
		d.saved[c.Seq] = jobs.State(c.State)
		if c.ComponentID != "" {
			d.record(c.Seq, "") // kept: not written again
		}
	}
	return nil
}

// Waiting implements jobs.Store.
func (a *applyJob) Waiting(ctx context.Context, id string) (since, hurry time.Time, err error) {
	j, err := a.s.db.PlanJobByID(ctx, id)
	return j.WaitingSince, j.HurryAt, err
}

// SetWaiting implements jobs.Store.
func (a *applyJob) SetWaiting(ctx context.Context, id string, since time.Time) error {
	return a.s.db.SetPlanWaiting(ctx, id, since)
}

// input is the component an item makes: its key in its notes.
func (a *applyJob) input(it store.PlanItem) billing.ComponentInput {
	return billing.ComponentInput{NIS: it.NIS, AccountCode: a.account, Name: it.Name, Due: it.Due, Expiry: it.Expiry,
		Active: it.Active, Amount: it.Amount, Penalty: it.Penalty, Notes: ledger.PlanKey{Code: a.j.PlanCode, Period: it.Period}.Notes()}
}

// Send implements jobs.Steps: the chunk's components in one batch call.
func (a *applyJob) Send(ctx context.Context, ch *jobs.Chunk, items []*jobs.Item) error {
	record, err := a.SendApart(ctx, ch, items)
	record(ctx)
	return err
}

// SendApart implements jobs.Apart: Send, leaving the audit entry and the ledger's write
// of the new components to record, which the engine runs once the next batch may leave.
func (a *applyJob) SendApart(ctx context.Context, ch *jobs.Chunk, items []*jobs.Item) (record func(context.Context), err error) {
	d := data(ch)
	inputs := make([]billing.ComponentInput, len(items))
	for i, it := range items {
		inputs[i] = a.input(d.items[it.Key])
	}
	made, record, err := a.s.writer.CreateComponentsApart(ctx, a.actor, inputs, "plan "+a.j.PlanCode+" apply "+a.j.ID+" chunk "+strconv.Itoa(ch.Seq))
	if err == nil {
		a.match(d, items, made)
	}
	return record, err
}

// match records which component was made for which item, by student and key.
func (a *applyJob) match(d *chunkData, items []*jobs.Item, made []billing.Bill) {
	bySlot := map[string]string{}
	for _, b := range made {
		if k, ok := ledger.ParsePlanKey(b.Notes); ok && k.Code == a.j.PlanCode {
			bySlot[b.NIS+"|"+k.Period] = b.ComponentID
		}
	}
	for _, it := range items {
		s := d.items[it.Key]
		if id := bySlot[s.NIS+"|"+s.Period]; id != "" {
			d.record(it.Key, id)
		}
	}
}

// Check implements jobs.Steps: the components sent without an answer are looked for at
// the service by the key in their notes: by student when the chunk holds fewer students
// than periods (one search each, their components), else by period (the service's exact
// match on notes, every student at once). Those found are done (and written into the
// ledger at once); the others are sent again.
func (a *applyJob) Check(ctx context.Context, ch *jobs.Chunk, items []*jobs.Item) error {
	d := data(ch)
	nis, periods := map[string]bool{}, map[string]bool{}
	for _, it := range items {
		s := d.items[it.Key]
		nis[s.NIS], periods[s.Period] = true, true
	}
	var found []billing.Bill
	read := func(seq func(func(billing.Bill, error) bool)) error {
		for b, err := range seq {
			if err != nil {
				return err
			}
			found = append(found, b)
		}
		return nil
	}
	client := a.s.writer.Client
	if len(nis) <= len(periods) {
		for n := range nis {
			err := read(client.AllForStudent(ctx, n, billing.Query{Limit: billing.MaxLimit}))
			if err != nil && !errors.Is(err, billing.ErrNotFound) {
				return err
			}
		}
	} else {
		for p := range periods {
			notes := ledger.PlanKey{Code: a.j.PlanCode, Period: p}.Notes()
			if err := read(client.All(ctx, billing.Query{Notes: notes, Limit: billing.MaxLimit})); err != nil {
				return err
			}
		}
	}
	a.match(d, items, found)
	var mine []billing.Bill
	ids := map[string]bool{}
	for _, it := range items {
		if id := d.component(it.Key); id != "" {
			ch.Decide(it, jobs.Decision{State: jobs.Done})
			ids[id] = true
		}
	}
	for _, b := range found {
		if ids[b.ComponentID] {
			mine = append(mine, b)
		}
	}
	if len(mine) > 0 && a.s.ledger != nil {
		if _, err := a.s.ledger.Upsert(context.WithoutCancel(ctx), mine); err != nil {
			a.s.log.Warn("plans: record components found at the service; the sync brings them", "job", a.j.ID, "err", err)
		}
	}
	return nil
}

// Refused implements jobs.Steps: the components the service names fail with its words;
// the rest of the batch (all or nothing) is sent again. A refusal that names none fails
// them all with its words (the engine's).
func (a *applyJob) Refused(_ context.Context, ch *jobs.Chunk, items []*jobs.Item, err error) error {
	apiErr, ok := billing.AsAPIError(err)
	if !ok {
		return nil
	}
	for _, p := range apiErr.Problems() {
		if p.Index < 0 || p.Index >= len(items) || items[p.Index].State != jobs.Sent {
			continue
		}
		words := strings.TrimSpace(strings.TrimPrefix(p.Field+": "+p.Message, ": "))
		ch.Decide(items[p.Index], jobs.Decision{State: jobs.Failed, Problem: jobs.Problem{Code: jobs.ProblemRefused, Arg: words}})
	}
	return nil
}

// problemText is an item's problem as kept: a catalogue key (the plans' own, or
// ProblemUnsent and why), or the service's words.
func problemText(p jobs.Problem) string {
	switch p.Code {
	case "":
		return ""
	case jobs.ProblemRefused:
		return p.Arg
	case jobs.ProblemUnsent:
		return ProblemUnsent + p.Arg
	}
	return p.Code
}

// problemOf reads what problemText kept.
func problemOf(s string) jobs.Problem {
	switch {
	case s == "":
		return jobs.Problem{}
	case strings.HasPrefix(s, ProblemUnsent):
		return jobs.Problem{Code: jobs.ProblemUnsent, Arg: strings.TrimPrefix(s, ProblemUnsent)}
	case strings.HasPrefix(s, "plans."):
		return jobs.Problem{Code: s}
	}
	return jobs.Problem{Code: jobs.ProblemRefused, Arg: s}
}
