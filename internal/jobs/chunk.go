package jobs

import (
	"slices"
	"time"
)

// State is where one item of a job stands. An item is pending until its call leaves; it
// is marked sent just before (so a process that dies during the call leaves it sent);
// the answer makes it done, or failed with the service's reason; no answer leaves it sent,
// and a sent item is read at the service (Steps.Check) before anything is sent again. An
// item the service's records show cannot or need not be sent any more is skipped (a
// component paid meanwhile), with why.
type State string

// The states of an item.
const (
	Pending State = "pending"
	Sent    State = "sent"
	Done    State = "done"
	Skipped State = "skipped"
	Failed  State = "failed"
)

// Open reports an item still to be taken to an end (pending or sent).
func (s State) Open() bool { return s == Pending || s == Sent }

// ChunkState is where a chunk stands: pending (items to send), sent (a call on its way),
// unknown (a call ended without an answer: its items are read at the service before
// anything is sent again), confirmed (every item done or skipped) or failed (some failed,
// or its unsent items were given up for now: a person's retry sends them).
type ChunkState string

// The states of a chunk.
const (
	ChunkPending   ChunkState = "pending"
	ChunkSent      ChunkState = "sent"
	ChunkUnknown   ChunkState = "unknown"
	ChunkConfirmed ChunkState = "confirmed"
	ChunkFailed    ChunkState = "failed"
)

// Closed reports a chunk taken to an end.
func (s ChunkState) Closed() bool { return s == ChunkConfirmed || s == ChunkFailed }

// Problem is why an item was skipped or failed: a code of the kind (a message key) or
// one of the engine's (ProblemRefused, ProblemUnsent), with its argument.
type Problem struct {
	Code string
	Arg  string
}

// The problems the engine gives items itself.
const (
	// ProblemRefused: the service refused the item; Arg is its words.
	ProblemRefused = "refused"
	// ProblemUnsent: the item was given up for now, not sent (Arg: UnsentDown or
	// UnsentDenied); a retry sends it.
	ProblemUnsent = "unsent"
)

// Why items were given up unsent (ProblemUnsent's Arg).
const (
	UnsentDown   = "unavailable"  // the service kept failing or did not answer for WaitFor
	UnsentDenied = "unauthorized" // the service refused the portal's credentials
)

// Decision is what a kind's check makes of an item: its state (Done, Skipped, Failed, or
// Pending to send it again) and, skipped or failed, why.
type Decision struct {
	State   State
	Problem Problem
}

// Item is one thing a job sends: a row, a component, a message. Key is the kind's name
// for it within its chunk (a sheet's row number, an item's sequence number).
type Item struct {
	Key     int
	State   State
	Problem Problem
	dirty   bool
}

// Chunk is what the engine takes to an end at a time: some items of one job, sent in one
// call (a batch) or, OneByOne, a call each. A kind's Store loads it with its items and
// whatever the kind needs to send them (Data), and saves what the engine changed.
type Chunk struct {
	Job   string
	Seq   int
	State ChunkState
	Items []Item
	// OneByOne: each item is sent by a call of its own (the service has no batch for it);
	// the chunk's progress is saved after each.
	OneByOne bool
	// SentAt is when the last call left or, once it ended without an answer, when it
	// ended: its items are read at the service no sooner than Settle after it.
	SentAt time.Time
	// Attempts counts the calls made; Recognised the items a check found already done at
	// the service (an answer that was lost, a record made meanwhile by someone else).
	Attempts   int
	Recognised int
	// LastError is the last failure's text, for the logs and the job's page.
	LastError string
	// Data is the kind's: what it decoded of the chunk to send it.
	Data any
}

// Decide gives item it the decision d.
func (c *Chunk) Decide(it *Item, d Decision) {
	it.State, it.Problem, it.dirty = d.State, d.Problem, true
	if d.State != Skipped && d.State != Failed {
		it.Problem = Problem{}
	}
}

// Changed reports whether it changed since the chunk was last saved (a Store saves those).
func (it *Item) Changed() bool { return it.dirty }

// Changes are a chunk's changed items that share a state and a problem: what a kind's
// SaveChunk writes with one statement.
type Changes struct {
	State   State
	Problem string // the problem as the kind keeps it (its text of Problem)
	Keys    []int  // the items' keys, in the chunk's order
	// At is the items' time: the chunk's SentAt for items sent (when their call left, or
	// ended without an answer), now for the others.
	At time.Time
}

// Changed groups the changed items of c by state and problem (problem says a Problem as
// the kind keeps it), in the order first met.
func (c *Chunk) Changed(problem func(Problem) string, now time.Time) []Changes {
	var out []Changes
	for i := range c.Items {
		it := &c.Items[i]
		if !it.Changed() {
			continue
		}
		p := problem(it.Problem)
		k := slices.IndexFunc(out, func(g Changes) bool { return g.State == it.State && g.Problem == p })
		if k < 0 {
			at := now
			if it.State == Sent {
				at = c.SentAt
			}
			out, k = append(out, Changes{State: it.State, Problem: p, At: at}), len(out)
		}
		out[k].Keys = append(out[k].Keys, it.Key)
	}
	return out
}

// Touch marks it changed without changing its state (sent again, or noted as sent
// without an answer: its time moves).
func (it *Item) Touch() { it.dirty = true }

// Open lists the items still to be taken to an end, in order.
func (c *Chunk) Open() []*Item { return c.in(Pending, Sent) }

// InState lists the items in state s, in order.
func (c *Chunk) InState(s State) []*Item { return c.in(s) }

func (c *Chunk) in(states ...State) []*Item {
	var out []*Item
	for i := range c.Items {
		for _, s := range states {
			if c.Items[i].State == s {
				out = append(out, &c.Items[i])
				break
			}
		}
	}
	return out
}

// Count is how many items are in state s.
func (c *Chunk) Count(s State) int {
	n := 0
	for i := range c.Items {
		if c.Items[i].State == s {
			n++
		}
	}
	return n
}

// saved clears the items' changes once a Store saved them.
func (c *Chunk) saved() {
	for i := range c.Items {
		c.Items[i].dirty = false
	}
}
