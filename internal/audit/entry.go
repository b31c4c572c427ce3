package audit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/store"
)

// Actor is who acted: a member of staff's username and role, or a machine's name, and the
// address the request came from.
type Actor struct {
	Username, Role, IP string
}

// Entry is one entry to record: made with Action.With, the rest filled by its maker.
type Entry struct {
	Action  *Action
	Actor   Actor
	Outcome Outcome
	// Target is what the action was done to, as stored for the details and for lookups
	// (a NIS or a list of them, a username, an upload id, a component id, …).
	Target string
	// Detail is a technical note for the details (never worded on the page).
	Detail string
	// UpstreamStatus and UpstreamDesc are the payment service's answer to a write.
	UpstreamStatus int
	UpstreamDesc   string
	// At is when; zero means when it is recorded.
	At   time.Time
	Args Args
}

// Row is the entry as the store keeps it.
func (e Entry) Row() store.AuditEntry {
	code := ""
	if e.Action != nil {
		code = e.Action.Code
	}
	return store.AuditEntry{
		At: e.At, Actor: e.Actor.Username, ActorRole: e.Actor.Role, IP: e.Actor.IP,
		Action: code, Target: e.Target, Outcome: string(e.Outcome), Detail: e.Detail,
		UpstreamStatus: e.UpstreamStatus, UpstreamDesc: e.UpstreamDesc, Args: store.AuditArgs(e.Args),
	}
}

// ErrMalformed is what Check wraps: an entry that does not carry what its action says.
var ErrMalformed = errors.New("audit: malformed entry")

// Check reports an entry that its action does not describe: an unregistered action, an
// argument the action does not carry, or one it needs missing from a success. The words
// of such an entry would leave something out.
func (e Entry) Check() error {
	if e.Action == nil {
		return fmt.Errorf("%w: no action", ErrMalformed)
	}
	if Lookup(e.Action.Code) != e.Action {
		return fmt.Errorf("%w: action %s is not registered", ErrMalformed, e.Action.Code)
	}
	if e.Outcome == "" {
		return fmt.Errorf("%w: %s without an outcome", ErrMalformed, e.Action.Code)
	}
	return check(e.Action, e.Outcome, e.Args)
}

func check(a *Action, o Outcome, args Args) error {
	var problems []string
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !a.allows(Key(k)) {
			problems = append(problems, fmt.Sprintf("argument %q it does not carry", k))
		}
	}
	if o == OK {
		for _, k := range a.Needs {
			if args.Get(k) == "" {
				problems = append(problems, fmt.Sprintf("no %q", k))
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s: %s", ErrMalformed, a.Code, strings.Join(problems, ", "))
	}
	return nil
}

// Stored is an entry as read back from the log.
type Stored struct {
	ID        string
	At        time.Time
	Actor     string // a username (as typed, for sign-ins) or a machine's name
	ActorRole string
	// Code is the action's code as stored; Action its registered action, nil when no
	// package registers it (the words then fall back to the catalogue and the code).
	Code           string
	Action         *Action
	Target         string
	Outcome        Outcome
	Detail         string
	IP             string
	UpstreamStatus int
	UpstreamDesc   string
	Args           Args
}

// Read is a stored row as an entry of the vocabulary.
func Read(row store.AuditEntry) Stored {
	return Stored{
		ID: row.ID, At: row.At, Actor: row.Actor, ActorRole: row.ActorRole, Code: row.Action, Action: Lookup(row.Action),
		Target: row.Target, Outcome: Outcome(row.Outcome), Detail: row.Detail, IP: row.IP,
		UpstreamStatus: row.UpstreamStatus, UpstreamDesc: row.UpstreamDesc, Args: Args(row.Args),
	}
}

// Check reports a stored entry its action does not describe (see Entry.Check); entries
// stored before they carried arguments have none to check.
func (s Stored) Check() error {
	if s.Action == nil {
		return fmt.Errorf("%w: action %s is not registered", ErrMalformed, s.Code)
	}
	if len(s.Args) == 0 {
		return nil
	}
	return check(s.Action, s.Outcome, s.Args)
}

// Log is the audit log: where entries are recorded and read back. The portal builds one
// over its database.
type Log struct {
	DB *store.DB
	// Clock dates an entry recorded without a time: the portal's clock (its maker's), so an
	// entry carries the day the pages show; zero leaves it to the database's clock.
	Clock clock.Clock
}

// Record appends e. An entry its action does not describe is recorded all the same (an
// audit entry is never dropped) and reported as an error wrapping ErrMalformed.
func (l Log) Record(ctx context.Context, e Entry) error {
	if e.At.IsZero() && !l.Clock.IsZero() {
		e.At = l.Clock.Now()
	}
	malformed := e.Check()
	if err := l.DB.AppendAudit(ctx, e.Row()); err != nil {
		return err
	}
	return malformed
}

// Filter narrows List; zero fields do not filter. From is inclusive, To exclusive.
type Filter struct {
	// Actor is a username; a machine's name stands for every name it acts under.
	Actor   string
	Action  string
	Outcome Outcome
	From    time.Time
	To      time.Time
	Offset  int
	Limit   int
}

// List is one page of entries matching f, newest first, and how many match in all.
func (l Log) List(ctx context.Context, f Filter) ([]Stored, int, error) {
	sf := store.AuditFilter{Action: f.Action, Outcome: string(f.Outcome), From: f.From, To: f.To, Offset: f.Offset, Limit: f.Limit}
	if m := MachineOf(f.Actor); m != NotMachine {
		sf.Actors = usernamesOf(m)
	} else {
		sf.Actor = f.Actor
	}
	rows, total, err := l.DB.ListAudit(ctx, sf)
	if err != nil {
		return nil, 0, err
	}
	out := make([]Stored, len(rows))
	for i, r := range rows {
		out[i] = Read(r)
	}
	return out, total, nil
}

// Latest are the newest successful entries of the action code about target, newest
// first, at most limit: what the portal recorded about one student, such as who took a
// payment.
func (l Log) Latest(ctx context.Context, code, target string, limit int) ([]Stored, error) {
	rows, err := l.DB.LatestAudit(ctx, code, target, string(OK), limit)
	if err != nil {
		return nil, err
	}
	out := make([]Stored, len(rows))
	for i, r := range rows {
		out[i] = Read(r)
	}
	return out, nil
}

// Actors are who appears in the log, for the filter: each machine once (named by the
// first of its names), then every other actor, sorted.
func (l Log) Actors(ctx context.Context) ([]string, error) {
	all, err := l.DB.AuditActors(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	seen := map[Machine]bool{}
	for _, a := range all {
		m := MachineOf(a)
		if m != NotMachine {
			if seen[m] {
				continue
			}
			seen[m] = true
		}
		out = append(out, a)
	}
	return out, nil
}
