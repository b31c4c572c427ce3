package outbox

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/sekolah/portal/internal/followups"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/jobs"
	"github.com/sekolah/portal/internal/messaging"
	"github.com/sekolah/portal/internal/parents"
	"github.com/sekolah/portal/internal/store"
)

// job is a batch as the engine runs it: its messages in chunks, each sent by a call of
// its own, the recipient read when it goes (a later opt-out is honoured).
type job struct {
	s *Service
	j store.OutboxJob
	// calls is the batch's lease context: a message's call is cut when the worker stops
	// hard or the lease is lost, never by the end of a slice or of the sending hours.
	calls  context.Context
	school string
}

// OpenChunks implements jobs.Store.
func (b *job) OpenChunks(ctx context.Context, id string) ([]int, error) {
	return b.s.cfg.DB.OutboxOpenChunks(ctx, id)
}

// LoadChunk implements jobs.Store: the chunk's messages as they are kept; the chunk is
// unknown when one was sent without an answer, since the last of their times.
func (b *job) LoadChunk(ctx context.Context, id string, seq int) (*jobs.Chunk, error) {
	ms, err := b.s.cfg.DB.OutboxChunk(ctx, id, seq)
	if err != nil {
		return nil, err
	}
	c := &jobs.Chunk{Job: id, Seq: seq, State: jobs.ChunkPending, OneByOne: true, Items: make([]jobs.Item, len(ms)), Data: ms}
	for i, m := range ms {
		c.Items[i] = jobs.Item{Key: m.Seq, State: jobs.State(m.State), Problem: problemOf(m.Problem)}
		if m.State == string(jobs.Sent) {
			c.State = jobs.ChunkUnknown
			if m.UpdatedAt.After(c.SentAt) {
				c.SentAt = m.UpdatedAt
			}
		}
	}
	return c, nil
}

// message is the chunk's message of item it.
func message(c *jobs.Chunk, it *jobs.Item) *store.OutboxMessage {
	ms := c.Data.([]store.OutboxMessage)
	i := slices.IndexFunc(ms, func(m store.OutboxMessage) bool { return m.Seq == it.Key })
	return &ms[i]
}

// SaveChunk implements jobs.Store: the changed messages by state and problem; one sent
// carries the chunk's time. A receipt taken to an end is audited, one entry a message.
func (b *job) SaveChunk(ctx context.Context, c *jobs.Chunk) error {
	var ended []*jobs.Item
	for i := range c.Items {
		if it := &c.Items[i]; it.Changed() && !it.State.Open() {
			ended = append(ended, it)
		}
	}
	for _, g := range c.Changed(problemText, b.s.cfg.Jobs.Now()) {
		if err := b.s.cfg.DB.SetOutboxStates(ctx, c.Job, g.Keys, string(g.State), g.Problem, g.At); err != nil {
			return err
		}
	}
	for _, it := range ended {
		switch m := message(c, it); {
		case b.j.Kind == string(messaging.KindReceipt):
			b.s.auditReceipt(ctx, m, it.State, it.Problem)
		case b.j.Kind == string(messaging.KindFollowUp) && it.State == jobs.Done:
			// The arrears report's "last follow-up" (the batch's audit entry covers it).
			n, _ := strconv.Atoi(m.Fields[1])
			if err := b.s.cfg.DB.AddOutboxFollowUp(ctx, store.FollowUp{NIS: m.NIS, Channel: m.Channel, At: b.s.cfg.Clock.Now(),
				Actor: b.j.Actor, Components: n, Total: m.Amount}); err != nil {
				b.s.log.Error("outbox: record a follow-up", "nis", m.NIS, "err", err)
			}
		}
	}
	return nil
}

// Waiting implements jobs.Store: a batch waits for the gateway without a person's hurry.
func (b *job) Waiting(ctx context.Context, id string) (since, hurry time.Time, err error) {
	j, err := b.s.cfg.DB.OutboxJobByID(ctx, id)
	return j.WaitingSince, time.Time{}, err
}

// SetWaiting implements jobs.Store.
func (b *job) SetWaiting(ctx context.Context, id string, since time.Time) error {
	return b.s.cfg.DB.SetOutboxWaiting(ctx, id, since)
}

// Send implements jobs.Steps: one message, to where its parents are now (skipped, with
// why, when they opted out or have no address any more), with their page's link as it
// is now. Each attempt is recorded in messages as <id>.<attempt> before the engine hears
// of it: Check finds it there after a restart.
func (b *job) Send(_ context.Context, c *jobs.Chunk, items []*jobs.Item) error {
	it := items[0]
	m := message(c, it)
	m.Attempts++ // the engine counted the attempt in the database as it marked it sent
	ctx := b.calls
	st, err := b.s.cfg.DB.StudentByNIS(ctx, m.NIS)
	if errors.Is(err, store.ErrNotFound) {
		st, err = store.Student{NIS: m.NIS, Name: m.StudentName}, nil
	}
	if err != nil {
		return notSent{err}
	}
	rs, err := b.s.cfg.Parents.Recipients(ctx, st)
	if err != nil {
		return notSent{err}
	}
	r := rs.WhatsApp
	if m.Channel == string(messaging.Email) {
		r = rs.Email
	}
	if r.Err != nil {
		c.Decide(it, jobs.Decision{State: jobs.Skipped, Problem: jobs.Problem{Code: recipientProblem(r.Err)}})
		return nil
	}
	fields := slices.Clone(m.Fields)
	fields[len(fields)-1] = b.s.link(ctx, m.NIS)
	content, err := messaging.Compose(messaging.Kind(m.Kind), b.school, fields...)
	if err != nil {
		return notSent{err}
	}
	rec, err := b.s.cfg.Messaging.Send(ctx, messaging.Outgoing{ID: fmt.Sprintf("%s.%d", m.ID, m.Attempts),
		Channel: messaging.Channel(m.Channel), Content: content, NIS: m.NIS, To: r.Address, ToName: r.Name, Actor: Actor})
	if rec.ID != "" {
		if lerr := b.s.cfg.DB.SetOutboxMessageID(context.WithoutCancel(ctx), m.ID, rec.ID); lerr != nil {
			b.s.log.Error("outbox: link a message to its record", "message", m.ID, "record", rec.ID, "err", lerr)
		}
	}
	if errors.Is(err, messaging.ErrNoChannel) {
		c.Decide(it, jobs.Decision{State: jobs.Skipped, Problem: jobs.Problem{Code: ProblemChannelOff}})
		return nil
	}
	if se, ok := messaging.AsSendError(err); ok {
		return jobs.Later(se, se.RetryAfter)
	}
	if err != nil && rec.ProviderID != "" {
		// Handed over and answered; only its record failed (logged by messaging).
		return nil
	}
	return err
}

// Check implements jobs.Steps: a message sent without an answer is done when one of its
// attempts' records says it went out (the process died after the answer came, before
// the engine heard of it). Otherwise nobody can say: neither the Cloud API nor an SMTP
// server can be asked whether it took a message. It is not sent again: failed, as
// "may have been sent".
func (b *job) Check(ctx context.Context, c *jobs.Chunk, items []*jobs.Item) error {
	for _, it := range items {
		m := message(c, it)
		recs, err := b.s.cfg.DB.OutboxAttempts(ctx, m.ID)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(recs, func(r store.Message) bool { return r.Status != "failed" })
		if i >= 0 {
			if err := b.s.cfg.DB.SetOutboxMessageID(ctx, m.ID, recs[i].ID); err != nil {
				return err
			}
			c.Decide(it, jobs.Decision{State: jobs.Done})
			continue
		}
		c.Decide(it, jobs.Decision{State: jobs.Failed, Problem: jobs.Problem{Code: ProblemUnsure}})
	}
	return nil
}

// Refused implements jobs.Steps: the gateway refused the message (a number not on
// WhatsApp, a template not approved, a mailbox that does not exist): it fails with
// messaging's word for why and the provider's code.
func (b *job) Refused(_ context.Context, c *jobs.Chunk, items []*jobs.Item, err error) error {
	se, ok := messaging.AsSendError(err)
	if !ok {
		return nil
	}
	for _, it := range items {
		c.Decide(it, jobs.Decision{State: jobs.Failed, Problem: jobs.Problem{Code: se.Key, Arg: se.Code}})
	}
	return nil
}

// notSent is a failure of the portal's own before the message was handed to the gateway:
// nothing went out, so it is tried again like a gateway that is down.
type notSent struct{ err error }

func (e notSent) Error() string { return "outbox: not sent: " + e.err.Error() }
func (e notSent) Unwrap() error { return e.err }

// recipientProblem is why a message cannot go to the parents on a channel.
func recipientProblem(err error) string {
	switch {
	case errors.Is(err, parents.ErrOptedOut):
		return ProblemOptedOut
	case errors.Is(err, followups.ErrNoPhone):
		return ProblemNoPhone
	case errors.Is(err, followups.ErrNotMobile):
		return ProblemNotMobile
	}
	return ProblemNoAddress
}

// link is the parent page's address a message carries, or (the portal's public address
// not set, or the link not made) a word to ask the school.
func (s *Service) link(ctx context.Context, nis string) string {
	l, err := s.cfg.Parents.Link(ctx, nis)
	if err != nil {
		s.log.Error("outbox: the parent page link", "nis", nis, "err", err)
	}
	if l.URL == "" {
		return i18n.NewPrinter(i18n.Indonesian, s.cfg.Clock.Zone()).T("outbox.no_link")
	}
	return l.URL
}
