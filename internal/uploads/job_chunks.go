package uploads

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/jobs"
	"github.com/sekolah/portal/internal/store"
)

// Reasons a row was not created, as stored with the chunk (message keys under
// "uploads.fail.").
const (
	FailRejected    = "rejected"    // the service refused the row; Arg is its reason
	FailUnavailable = "unavailable" // the service kept failing; the rows can be retried
	FailRefused     = "unauthorized"
	// FailNotChanged: a change of what exists that the service's records say cannot be
	// made (paid or cancelled since the preview, gone); Arg is why (a catalogue key).
	FailNotChanged = "not_changed"
)

// compItem is a component as a chunk keeps it.
type compItem struct {
	Row     int    `json:"row"`
	NIS     string `json:"nis"`
	Code    string `json:"code"`
	Name    string `json:"name"`
	Due     string `json:"due"`
	Expiry  string `json:"expiry"`
	Active  string `json:"active,omitempty"`
	Amount  int64  `json:"amount"`
	Penalty int64  `json:"penalty,omitempty"`
	Notes   string `json:"notes,omitempty"`
	// ID, for a correction, is the component to change and Set the fields to change
	// (contract names); the other fields are the row's values.
	ID  string   `json:"id,omitempty"`
	Set []string `json:"set,omitempty"`
}

func compItemOf(c Component) compItem {
	it := compItem{Row: c.Row, NIS: c.NIS, Code: c.AccountCode, Name: c.Name, Due: c.Due.Format(time.DateOnly),
		Expiry: c.Expiry.Format(time.DateOnly), Amount: c.Amount, Penalty: c.Penalty, Notes: c.Notes}
	if !c.Active.IsZero() {
		it.Active = c.Active.Format(time.DateOnly)
	}
	return it
}

func day(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, _ := time.Parse(time.DateOnly, s)
	return t
}

func (it compItem) input() billing.ComponentInput {
	return billing.ComponentInput{NIS: it.NIS, AccountCode: it.Code, Name: it.Name, Due: day(it.Due), Expiry: day(it.Expiry),
		Active: day(it.Active), Amount: it.Amount, Penalty: it.Penalty, Notes: it.Notes}
}

// studentItem is a student as a chunk keeps it.
type studentItem struct {
	Row   int    `json:"row"`
	NIS   string `json:"nis"`
	Name  string `json:"name"`
	Class string `json:"class,omitempty"`
	Phone string `json:"phone,omitempty"`
	Email string `json:"email,omitempty"`
	// Update: the student exists and the row replaces their record (UpdateStudent) with
	// these values; KeyName is theirs, kept.
	Update  bool   `json:"update,omitempty"`
	KeyName string `json:"key_name,omitempty"`
	// Aid are the government-aid flags the sheet gives the student (a Dapodik export):
	// kept in the roster once the student is there.
	Aid *aidItem `json:"aid,omitempty"`
}

func studentItemOf(s Student) studentItem {
	it := studentItem{Row: s.Row, NIS: s.NIS, Name: s.Name, Class: s.Class, Phone: s.Phone, Email: s.Email}
	if s.HasAid {
		it.Aid = &aidItem{KIP: s.Aid.KIP, KPS: s.Aid.KPS, PIP: s.Aid.PIP}
	}
	return it
}

func (it studentItem) record() billing.Student {
	return billing.Student{NIS: it.NIS, Name: it.Name, KeyName: cmp.Or(it.KeyName, billing.DefaultKeyName), Phone: it.Phone, Email: it.Email, Description: it.Class}
}

// uploadJob is an upload job as the engine runs it (jobs.Job): its chunks kept in
// upload_chunks (a chunk's rows as its payload, those still to send and those refused),
// the new rows sent in batches through changes.Writer, and a sheet's changes of what
// exists (corrections of components, students' updates) one by one through the
// correction steps of internal/corrections.
type uploadJob struct {
	r     *Runner
	j     store.UploadJob
	kind  Kind
	actor auth.Actor
}

func (r *Runner) job(j store.UploadJob) *uploadJob {
	return &uploadJob{r: r, j: j, kind: Kind(j.Kind), actor: actorOf(j)}
}

// chunkRows is a chunk as kept, with its rows by row number, in the payload's order.
type chunkRows struct {
	c     store.UploadChunk
	order []int
	comps map[int]compItem
	studs map[int]studentItem
	// created are the components the last call created, remembered with the chunk's next
	// save (its confirmation follows the call at once).
	created []string
	// saved is what the database holds of the chunk's progress, to write only a change.
	saved chunkProgress
}

// chunkProgress is what a chunk's save writes, told apart by its counts: within a run,
// rows only leave the pending ones (sent, done, refused), so counts that did not change
// mean rows that did not.
type chunkProgress struct {
	state                                string
	pending, failed, recognised, attempt int
	lastError                            string
	sentAt                               time.Time
}

func progressOf(c store.UploadChunk) chunkProgress {
	return chunkProgress{state: c.State, pending: len(c.PendingRows), failed: len(c.Failures), recognised: c.Recognised,
		attempt: c.Attempts, lastError: c.LastError, sentAt: c.SentAt}
}

// corrections reports whether the chunk holds corrections of components or updates of
// students (they are never mixed with new rows).
func (w *chunkRows) corrections() bool {
	for _, it := range w.comps {
		return it.ID != ""
	}
	for _, it := range w.studs {
		return it.Update
	}
	return false
}

// OpenChunks implements jobs.Store.
func (u *uploadJob) OpenChunks(ctx context.Context, id string) ([]int, error) {
	states, err := u.r.db.UploadChunkStates(ctx, id)
	var out []int
	for _, s := range states {
		if !jobs.ChunkState(s.State).Closed() {
			out = append(out, s.Seq)
		}
	}
	return out, err
}

// LoadChunk implements jobs.Store. A chunk keeps the rows still to send (pending rows)
// and those refused (failures); the others are done. A chunk sent or unknown has its
// pending rows sent (only the first of them, for changes sent one by one: each row is
// dropped once answered); a failed one has them given up until a retry.
func (u *uploadJob) LoadChunk(ctx context.Context, id string, seq int) (*jobs.Chunk, error) {
	c, err := u.r.db.UploadChunk(ctx, id, seq)
	if err != nil {
		return nil, err
	}
	w := &chunkRows{c: c, saved: progressOf(c)}
	switch u.kind {
	case Components:
		var items []compItem
		if err := json.Unmarshal([]byte(c.Payload), &items); err != nil {
			return nil, fmt.Errorf("chunk payload: %w", err)
		}
		w.comps = make(map[int]compItem, len(items))
		for _, it := range items {
			w.comps[it.Row] = it
			w.order = append(w.order, it.Row)
		}
	case Students:
		var items []studentItem
		if err := json.Unmarshal([]byte(c.Payload), &items); err != nil {
			return nil, fmt.Errorf("chunk payload: %w", err)
		}
		w.studs = make(map[int]studentItem, len(items))
		for _, it := range items {
			w.studs[it.Row] = it
			w.order = append(w.order, it.Row)
		}
	}
	w.c.Payload = "" // decoded: not kept twice
	ch := &jobs.Chunk{Job: id, Seq: seq, State: jobs.ChunkState(c.State), OneByOne: w.corrections(), SentAt: c.SentAt,
		Attempts: c.Attempts, Recognised: c.Recognised, LastError: c.LastError, Data: w, Items: make([]jobs.Item, len(w.order))}
	pending := make(map[int]bool, len(c.PendingRows))
	for _, row := range c.PendingRows {
		pending[row] = true
	}
	failed := make(map[int]store.UploadFailure, len(c.Failures))
	for _, f := range c.Failures {
		failed[f.Row] = f
	}
	sent := ch.State == jobs.ChunkSent || ch.State == jobs.ChunkUnknown
	for i, row := range w.order {
		it := jobs.Item{Key: row, State: jobs.Done}
		switch f, isFailed := failed[row]; {
		case pending[row] && ch.State == jobs.ChunkFailed:
			why := jobs.UnsentDown
			if c.LastError == FailRefused {
				why = jobs.UnsentDenied
			}
			it.State, it.Problem = jobs.Failed, jobs.Problem{Code: jobs.ProblemUnsent, Arg: why}
		case pending[row]:
			it.State = jobs.Pending
			if sent && (!ch.OneByOne || len(c.PendingRows) > 0 && row == c.PendingRows[0]) {
				it.State = jobs.Sent
			}
		case isFailed && f.Code == FailRejected:
			it.State, it.Problem = jobs.Failed, jobs.Problem{Code: jobs.ProblemRefused, Arg: f.Arg}
		case isFailed:
			it.State, it.Problem = jobs.Failed, jobs.Problem{Code: f.Arg}
		}
		ch.Items[i] = it
	}
	return ch, nil
}

// SaveChunk implements jobs.Store: the chunk as kept, its rows given up until a retry
// among its pending rows, with why.
func (u *uploadJob) SaveChunk(ctx context.Context, ch *jobs.Chunk) error {
	w := ch.Data.(*chunkRows)
	c := w.c
	c.State, c.SentAt, c.Attempts, c.Recognised, c.LastError = string(ch.State), ch.SentAt, ch.Attempts, ch.Recognised, ch.LastError
	c.PendingRows, c.Failures = c.PendingRows[:0], c.Failures[:0]
	for _, it := range ch.Items {
		switch {
		case it.State.Open():
			c.PendingRows = append(c.PendingRows, it.Key)
		case it.State == jobs.Failed && it.Problem.Code == jobs.ProblemUnsent:
			c.PendingRows = append(c.PendingRows, it.Key)
			c.LastError = FailUnavailable
			if it.Problem.Arg == jobs.UnsentDenied {
				c.LastError = FailRefused
			}
		case it.Problem.Code == jobs.ProblemRefused:
			c.Failures = append(c.Failures, store.UploadFailure{Row: it.Key, Code: FailRejected, Arg: it.Problem.Arg})
		case it.State == jobs.Failed || it.State == jobs.Skipped:
			// A change the service's records say cannot be made (paid or cancelled
			// meanwhile, gone): the row is not changed, and why.
			c.Failures = append(c.Failures, store.UploadFailure{Row: it.Key, Code: FailNotChanged, Arg: it.Problem.Code})
		}
	}
	if c.State == ChunkPending && len(c.PendingRows) == 0 {
		// Every row answered: the engine closes the chunk with its next save. Saved closed
		// now, that save changes nothing and writes nothing (the chunks in flight after
		// this one wait for each write to the database).
		c.State = ChunkConfirmed
	}
	if c.State == ChunkConfirmed && len(c.Failures) > 0 {
		c.State = ChunkFailed
	}
	w.c = c
	p := progressOf(c)
	if p == w.saved && len(w.created) == 0 {
		return nil
	}
	var err error
	if len(w.created) > 0 {
		// The components a call created, remembered for the upload's undo in the same write
		// as the chunk's progress: the chunks after this one wait for the database. A save
		// that fails leaves the chunk sent, and its reconcile reads them back (recordFound).
		err = u.r.db.SaveUploadChunkCreated(ctx, c, w.created)
		w.created = nil
	} else {
		err = u.r.db.SaveUploadChunk(ctx, c)
	}
	if err == nil {
		w.saved = p
	}
	return err
}

// Waiting implements jobs.Store.
func (u *uploadJob) Waiting(ctx context.Context, id string) (since, hurry time.Time, err error) {
	j, err := u.r.db.UploadJobByID(ctx, id)
	return j.WaitingSince, j.HurryAt, err
}

// SetWaiting implements jobs.Store.
func (u *uploadJob) SetWaiting(ctx context.Context, id string, since time.Time) error {
	return u.r.db.SetUploadWaiting(ctx, id, since)
}

func (u *uploadJob) detail(ch *jobs.Chunk) string {
	return fmt.Sprintf("upload %s chunk %d", u.j.ID, ch.Seq)
}

// Send implements jobs.Steps: new rows in one batch call; a change of what exists by a
// call of its own, through the correction steps.
func (u *uploadJob) Send(ctx context.Context, ch *jobs.Chunk, items []*jobs.Item) error {
	record, err := u.SendApart(ctx, ch, items)
	if record != nil {
		record(ctx)
	}
	return err
}

// SendApart implements jobs.Apart: a batch of new components leaves the audit entry and
// the ledger's write of them to record, which the engine runs once the next batch may
// leave; students and changes are sent whole (record nil).
func (u *uploadJob) SendApart(ctx context.Context, ch *jobs.Chunk, items []*jobs.Item) (record func(context.Context), err error) {
	w := ch.Data.(*chunkRows)
	if ch.OneByOne {
		return nil, u.sendChange(ctx, ch, w, items[0])
	}
	switch u.kind {
	case Components:
		inputs := make([]billing.ComponentInput, len(items))
		for i, it := range items {
			inputs[i] = w.comps[it.Key].input()
		}
		created, record, err := u.r.writer.CreateComponentsApart(ctx, u.actor, inputs, u.detail(ch))
		for _, b := range created {
			w.created = append(w.created, b.ComponentID)
		}
		return record, err
	case Students:
		records := make([]billing.Student, len(items))
		for i, it := range items {
			records[i] = w.studs[it.Key].record()
		}
		created, err := u.r.writer.CreateStudents(ctx, u.actor, records, store.SourceUpload)
		if err != nil && created != nil {
			// Created at the service; only the roster mirror failed. The rows are done.
			u.r.log.Error("upload students: roster", "job", u.j.ID, "chunk", ch.Seq, "err", err)
			return nil, nil
		}
		if err == nil {
			u.r.recordAid(ctx, u.j.ID, w, items)
		}
		return nil, err
	}
	return nil, fmt.Errorf("uploads: unknown kind %q", u.kind)
}

// Check implements jobs.Steps: new rows sent without an answer are looked for at the
// service; a change is read back through the correction steps.
func (u *uploadJob) Check(ctx context.Context, ch *jobs.Chunk, items []*jobs.Item) error {
	w := ch.Data.(*chunkRows)
	if ch.OneByOne {
		return u.checkChanges(ctx, ch, w, items)
	}
	found, err := u.r.findRows(ctx, u.kind, w, items)
	if err != nil {
		return err
	}
	var comps []compItem
	var studs []*jobs.Item
	for _, it := range items {
		if found[it.Key] {
			ch.Decide(it, jobs.Decision{State: jobs.Done})
			if c, ok := w.comps[it.Key]; ok {
				comps = append(comps, c)
			} else {
				studs = append(studs, it)
			}
		}
	}
	u.r.recordFound(ctx, u.j.ID, comps)
	u.r.recordAid(ctx, u.j.ID, w, studs)
	return nil
}

// Refused implements jobs.Steps: the rows the service named fail with its reason (a
// student it says exists is there); a refused change is read back through the correction
// steps (paid or cancelled meanwhile says why).
func (u *uploadJob) Refused(ctx context.Context, ch *jobs.Chunk, items []*jobs.Item, err error) error {
	w := ch.Data.(*chunkRows)
	if ch.OneByOne {
		return u.checkChanges(ctx, ch, w, items)
	}
	var apiErr *billing.APIError
	if errors.As(err, &apiErr) {
		refuse(ch, u.kind, items, apiErr)
	}
	return nil
}

var itemIndex = regexp.MustCompile(`\[(\d+)\]`)

// refuse decides the rows the service named in a rejected batch: they fail with its
// reason (a student it says already exists is there). A batch is all or nothing, so the
// rows it did not name were not applied: undecided, they are sent again. An answer that
// names no row decides none: the engine fails them all with its words.
func refuse(ch *jobs.Chunk, kind Kind, items []*jobs.Item, apiErr *billing.APIError) {
	at := func(i int) *jobs.Item {
		if i >= 0 && i < len(items) && items[i].State == jobs.Sent {
			return items[i]
		}
		return nil
	}
	named := false
	for _, e := range apiErr.Items {
		it := at(e.Index)
		if it == nil {
			continue
		}
		named = true
		if kind == Students && strings.Contains(e.Message, "already exists") {
			ch.Decide(it, jobs.Decision{State: jobs.Done}) // the goal holds: the student is there
			continue
		}
		ch.Decide(it, jobs.Decision{State: jobs.Failed, Problem: jobs.Problem{Code: jobs.ProblemRefused,
			Arg: strings.TrimSpace(e.Field + ": " + e.Message)}})
	}
	if named {
		return
	}
	if m := itemIndex.FindStringSubmatch(apiErr.StatusDesc); m != nil {
		if i, err := strconv.Atoi(m[1]); err == nil {
			if it := at(i); it != nil {
				ch.Decide(it, jobs.Decision{State: jobs.Failed, Problem: jobs.Problem{Code: jobs.ProblemRefused, Arg: apiErr.StatusDesc}})
			}
		}
	}
}

// findRows finds which of the rows of items, new rows sent without an answer, exist at
// the service.
func (r *Runner) findRows(ctx context.Context, kind Kind, w *chunkRows, items []*jobs.Item) (map[int]bool, error) {
	found := map[int]bool{}
	switch kind {
	case Components:
		keys := make([]Key, len(items))
		for i, it := range items {
			c := w.comps[it.Key]
			keys[i] = Key{NIS: c.NIS, Name: c.Name, Due: day(c.Due)}
		}
		f := &Finder{Client: r.client, Concurrency: r.cfg.LookupConcurrency}
		ok, err := f.FindComponents(ctx, keys)
		if err != nil {
			return nil, err
		}
		for i, yes := range ok {
			if yes {
				found[items[i].Key] = true
			}
		}
	case Students:
		// Asked at the service, not the roster: the roster learns of a student only from a
		// confirmed answer, which is exactly what is missing here.
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(r.cfg.LookupConcurrency)
		var mu sync.Mutex
		var roster []store.Student
		for _, item := range items {
			it := w.studs[item.Key]
			g.Go(func() error {
				st, err := r.client.Student(gctx, it.NIS)
				if errors.Is(err, billing.ErrNotFound) {
					return nil
				}
				if err != nil {
					return err
				}
				mu.Lock()
				found[it.Row] = true
				roster = append(roster, store.Student{NIS: st.NIS, Name: st.Name, KeyName: st.KeyName, Phone: st.Phone,
					Email: st.Email, Description: st.Description, Source: store.SourceUpload, SyncedAt: r.now()})
				mu.Unlock()
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
		if err := r.db.UpsertStudents(ctx, roster); err != nil {
			return nil, err
		}
	}
	return found, nil
}
