// Package audit is the audit log's vocabulary. Each kind of entry is an Action: a Go
// value declared by the package that makes it (changes, auth, school, …) with its stored
// code, its phrases for success and failure, what its entries are about (a student, a
// member of staff, an upload, a fee template, …) and which figures they carry (a count, a
// total, a receipt number, …). Entries are built with typed arguments (Student, Count,
// Total, Ref, …), never formatted into strings to be read back; Word turns a stored entry
// into the log page's words in the reader's language, and reads entries stored before
// they carried arguments from their target.
//
// The store keeps entries as rows (internal/store/audit.go): the codes, outcomes and
// argument names stored here are a contract with every row already written.
package audit

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/sekolah/portal/internal/i18n"
)

// Outcome is how an audited action ended, as stored.
type Outcome string

// The outcomes the log records.
const (
	OK Outcome = "ok"
	// Failed: the action was refused or went wrong; nothing changed.
	Failed Outcome = "failed"
	// Unknown: the call left but no answer came back; the service may have applied it.
	Unknown Outcome = "unknown"
	// Denied: the person may not do it.
	Denied Outcome = "denied"
	// Locked and Disabled are a sign-in's refusals: too many failures, a disabled account.
	Locked   Outcome = "locked"
	Disabled Outcome = "disabled"
)

// Outcomes are every outcome, in the order the log's filter offers them.
func Outcomes() []Outcome { return []Outcome{OK, Failed, Locked, Disabled, Denied, Unknown} }

// About is what an action's entries are about: it says which arguments name the subject
// and how the log words it.
type About int

// The subjects of entries.
const (
	// AboutNothing: the entry names no subject ("Signed out").
	AboutNothing About = iota
	// AboutStudent: a student, or the first of several (Student, Students); entries
	// without arguments name the NIS (or the list of them) in their target.
	AboutStudent
	// AboutStaff: a member of staff (StaffMember); older entries name them in the target.
	AboutStaff
	// AboutUpload: an uploaded sheet (Upload, File); older entries have its id as target
	// and `kind "file name"` as detail.
	AboutUpload
	// AboutFeeTemplate: a fee template, by its name (Name, or the target).
	AboutFeeTemplate
	// AboutReport: a report's export; the target is the report's address with its
	// filters, which the pages name.
	AboutReport
	// AboutFile: a file by its name (File).
	AboutFile
	// AboutTypedUsername: a sign-in; when it failed, the username typed (the target).
	AboutTypedUsername
	// AboutSchool: the school's profile, by the school's name (Name).
	AboutSchool
	// AboutPublicForm: the public registration form, open or closed (Enabled).
	AboutPublicForm
)

// keys are the arguments that name the subject.
func (a About) keys() []Key {
	switch a {
	case AboutStudent:
		return []Key{KeyNIS, KeyName, KeyStudents}
	case AboutStaff:
		return []Key{KeyUser}
	case AboutUpload:
		return []Key{KeyUpload, KeyFile}
	case AboutFeeTemplate, AboutSchool:
		return []Key{KeyName}
	case AboutReport:
		return []Key{KeyFile, KeyFormat}
	case AboutFile:
		return []Key{KeyFile}
	case AboutPublicForm:
		return []Key{KeyEnabled}
	}
	return nil
}

// Action is one kind of audited event. Declare it once, where it happens, with Register.
type Action struct {
	// Code is what the log stores; existing rows keep theirs, so a code never changes.
	Code string
	// About is what its entries are about.
	About About
	// Shows are the figures its words list after the subject, in order.
	Shows []Figure
	// Keeps are arguments stored for the details but not worded (a source, a job id).
	Keeps []Key
	// Needs are the arguments an entry that succeeded must carry.
	Needs []Key
	// Removes says a success removes its subject, which then has no page to link to
	// (a deleted student).
	Removes bool
}

// OKKey is the catalogue key of its phrase when it succeeded: "audit.act.<code>".
func (a *Action) OKKey() string { return "audit.act." + a.Code }

// TryKey is the catalogue key of its phrase when it failed or its outcome is unknown:
// "audit.try.<code>" (the outcome badge beside it says which).
func (a *Action) TryKey() string { return "audit.try." + a.Code }

// Phrase says the action in p's language, for an entry with outcome o.
func (a *Action) Phrase(p i18n.Printer, o Outcome) string {
	if o == OK {
		return p.T(a.OKKey())
	}
	return p.T(a.TryKey())
}

// Carries are the arguments an entry of a may carry: those naming its subject, its
// figures' and those it keeps, each once.
func (a *Action) Carries() []Key {
	keys := slices.Clone(a.About.keys())
	for _, f := range a.Shows {
		keys = append(keys, f.keys...)
	}
	keys = append(keys, a.Keeps...)
	slices.Sort(keys)
	return slices.Compact(keys)
}

// allows reports whether an entry of a may carry the argument k.
func (a *Action) allows(k Key) bool { return slices.Contains(a.Carries(), k) }

// With is an entry of a with args (the rest of the entry is the maker's to fill).
func (a *Action) With(args ...Arg) Entry {
	return Entry{Action: a, Args: Collect(args...)}
}

var (
	registryMu sync.RWMutex
	registry   = map[string]*Action{}
	machines   = map[string]Machine{}
)

// Register adds an action to the vocabulary and returns it; packages call it once per
// action in a package-level var. A code registered twice, an action without a code or
// one that needs an argument it cannot carry panics: two packages must not share a word.
func Register(a Action) *Action {
	if a.Code == "" {
		panic("audit: an action without a code")
	}
	ra := &a
	for _, k := range a.Needs {
		if !ra.allows(k) {
			panic(fmt.Sprintf("audit: action %s needs %q, which it neither names nor shows nor keeps", a.Code, k))
		}
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[a.Code]; dup {
		panic(fmt.Sprintf("audit: action %s registered twice", a.Code))
	}
	registry[a.Code] = ra
	return ra
}

// Lookup is the registered action of code, or nil.
func Lookup(code string) *Action {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return registry[code]
}

// Actions are every registered action, by code.
func Actions() []*Action {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := make([]*Action, 0, len(registry))
	for _, a := range registry {
		out = append(out, a)
	}
	slices.SortFunc(out, func(x, y *Action) int { return strings.Compare(x.Code, y.Code) })
	return out
}

// Machine is who acted when no person did.
type Machine int

// The actors that are not staff.
const (
	NotMachine Machine = iota
	// ThePortal is the portal's own work: start-up, the command line, the ledger's sync.
	ThePortal
	// TheService is the payment service (its callbacks).
	TheService
	// ThePublic is the public registration form.
	ThePublic
)

// key is the catalogue key of the machine's name.
func (m Machine) key() string {
	switch m {
	case ThePortal:
		return "audit.actor.system"
	case TheService:
		return "audit.actor.service"
	case ThePublic:
		return "audit.actor.public"
	}
	return ""
}

// RegisterMachine says that entries whose actor is username were made by m, not by a
// member of staff: the package that acts under that name registers it.
func RegisterMachine(username string, m Machine) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if prev, dup := machines[username]; dup && prev != m {
		panic(fmt.Sprintf("audit: actor %s registered as two machines", username))
	}
	machines[username] = m
}

// MachineOf is the machine that acts as username, or NotMachine for a person.
func MachineOf(username string) Machine {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return machines[username]
}

// usernamesOf are the actors registered as m, sorted.
func usernamesOf(m Machine) []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	var out []string
	for u, mm := range machines {
		if mm == m {
			out = append(out, u)
		}
	}
	slices.Sort(out)
	return out
}
