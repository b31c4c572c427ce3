package registration

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/store"
)

// The public form keeps every submission as an application before anything goes to the
// service (issue 30: twenty addresses made a hundred students with bills in four
// seconds). The Intake sends an application on its own while the form stays under its
// hourly cap and the NIS is new; any other it holds for finance staff, who approve it
// (it then goes to the service as the form would have sent it) or reject it with a
// reason. The parent is given the same answer whichever happens, at once, before any of
// it: the form never says whether a number exists, in its words or its timing.

// ApplicationState is where an application stands.
type ApplicationState string

// The states of an application.
const (
	// StateNew: stored, waiting for the Intake (seconds).
	StateNew ApplicationState = "new"
	// StateSending: at the service; without an answer, the Intake looks for the student
	// once the call can no longer land.
	StateSending ApplicationState = "sending"
	// StatePending: held for staff, its Hold saying why.
	StatePending ApplicationState = "pending"
	// StateRegistered: the student and the bill are at the service.
	StateRegistered ApplicationState = "registered"
	// StateRejected: a person rejected it, with a reason.
	StateRejected ApplicationState = "rejected"
)

// Hold is why an application waits for staff.
type Hold string

// The reasons an application waits for staff; each has a message "applications.hold.<hold>".
const (
	// HoldOverCap: the form had sent its hourly cap of registrations already.
	HoldOverCap Hold = "over_cap"
	// HoldReview: the cap is 0, every application is for staff.
	HoldReview Hold = "review"
	// HoldNISKnown: a student with this NIS exists already.
	HoldNISKnown Hold = "nis_known"
	// HoldTemplate: its fee template is gone or no longer fits today.
	HoldTemplate Hold = "template"
	// HoldRefused: the service refused the registration.
	HoldRefused Hold = "refused"
	// HoldNotSent: a person's approval got no answer, and the student is not at the
	// service: nothing was registered.
	HoldNotSent Hold = "not_sent"
)

// Holds are every Hold, for the catalogue's test.
var Holds = []Hold{HoldOverCap, HoldReview, HoldNISKnown, HoldTemplate, HoldRefused, HoldNotSent}

// Audit actions of the applications.
const (
	ActionApplicationApprove = "registration.application.approve"
	ActionApplicationReject  = "registration.application.reject"
)

// The applications' words in the audit log: about the applicant (the student to be), with
// the application's reference, its total and, for a rejection, the reason; and the public
// form's hourly cap, which its settings' entry shows.
var (
	keyHourlyCap audit.Key = "cap"
	keyAppRef    audit.Key = "application"
	hourlyCap              = audit.NewFigure("cap", []audit.Key{keyHourlyCap}, func(p i18n.Printer, a audit.Args) string {
		if v := a.Get(keyHourlyCap); v != "" {
			return p.T("registration.settings.audit_cap", v)
		}
		return ""
	})
	applicationRef = audit.NewFigure("application", []audit.Key{keyAppRef}, func(p i18n.Printer, a audit.Args) string {
		if v := a.Get(keyAppRef); v != "" {
			return p.T("applications.audit_ref", v)
		}
		return ""
	})
	auditApplicationApprove = audit.Register(audit.Action{Code: ActionApplicationApprove, About: audit.AboutStudent,
		Shows: []audit.Figure{applicationRef, audit.Money}, Needs: []audit.Key{audit.KeyNIS, keyAppRef}})
	auditApplicationReject = audit.Register(audit.Action{Code: ActionApplicationReject, About: audit.AboutStudent,
		Shows: []audit.Figure{applicationRef, audit.Money, audit.Why}, Needs: []audit.Key{audit.KeyNIS, keyAppRef, audit.KeyReason}})
)

// MaxRejectReasonLen is the longest reason of a rejection, in characters.
const MaxRejectReasonLen = 500

// Errors of the applications.
var (
	// ErrPublicOff: the public form is switched off, or its template is gone.
	ErrPublicOff = errors.New("registration: the public form is off")
	// ErrPublicUnusable: the form's template does not fit today (its days are past).
	ErrPublicUnusable = errors.New("registration: the public form's template does not fit today")
	// ErrNotPending: the application is no longer waiting for a decision (someone else
	// decided it, or it is being sent).
	ErrNotPending = errors.New("registration: the application is not pending")
	// ErrApplicationGone: no such application.
	ErrApplicationGone = errors.New("registration: no such application")
)

// PublicApplication is one application of the public form.
type PublicApplication struct {
	ID string
	// Reference is the number the parent is given: the school's registration number
	// ("PPDB-2026-0001"), which is also the applicant's NIS ("PD-7K3M9QXT" in
	// applications kept before the school gave its own).
	Reference string
	Applicant Applicant
	IP        string
	// TemplateID and TemplateName are the fee template the form used; Components and
	// Total the fees it showed.
	TemplateID, TemplateName string
	Components               []store.RegisteredComponent
	Total                    int64
	State                    ApplicationState
	Hold                     Hold
	// Auto: sent by the Intake, without a person. SentAt: when it went to the service.
	Auto   bool
	SentAt time.Time
	BillID string
	// DecidedBy, DecidedAt and Reason: a person's approval or rejection (and its reason).
	DecidedBy string
	DecidedAt time.Time
	Reason    string
	CreatedAt time.Time
}

func applicationOf(a store.RegistrationApplication) PublicApplication {
	return PublicApplication{
		ID: a.ID, Reference: a.Reference, IP: a.IP,
		Applicant: Applicant{NIS: a.NIS, Name: a.StudentName, ContactName: a.ContactName, Phone: a.Phone, Email: a.Email,
			Description: a.Description},
		TemplateID: a.TemplateID, TemplateName: a.TemplateName, Components: a.Components, Total: a.Total,
		State: ApplicationState(a.State), Hold: Hold(a.Hold), Auto: a.Auto, SentAt: a.SentAt, BillID: a.BillID,
		DecidedBy: a.DecidedBy, DecidedAt: a.DecidedAt, Reason: a.Reason, CreatedAt: a.CreatedAt,
	}
}

// The school's registration numbers: the public form asks for no number (an applicant
// has no NIS yet); each application gets the next of the school's own, the prefix, the
// school's year and a sequence kept in the database ("PPDB-2026-0001"). The number is
// the new student's NIS at the service, the key the family pays the bill with.
const (
	// DefaultNumberPrefix begins the numbers unless an admin sets another.
	DefaultNumberPrefix = "PPDB"
	// numberScope names a year's sequence of a prefix.
	numberScope = "registration.public.number."
	// numberTries bounds how many numbers one application may take when the roster
	// already holds the next ones (a student typed in by staff with such a number).
	numberTries = 20
)

// ErrNoNumber: numberTries numbers in a row were taken already.
var ErrNoNumber = errors.New("registration: no free registration number")

// PublicNumber formats number n of the prefix's sequence of year.
func PublicNumber(prefix string, year int, n int64) string {
	return fmt.Sprintf("%s-%d-%04d", prefix, year, n)
}

// nextNumber takes the next registration number of the school's year that no student of
// the roster has (the roster only: nothing here asks the service).
func (s *Service) nextNumber(ctx context.Context, prefix string) (string, error) {
	year := s.Clock.Today().Year()
	scope := numberScope + prefix + "." + strconv.Itoa(year)
	for range numberTries {
		n, err := s.DB.TakeSequenceNumber(ctx, scope)
		if err != nil {
			return "", err
		}
		number := PublicNumber(prefix, year, n)
		if _, err := s.DB.StudentByNIS(ctx, number); errors.Is(err, store.ErrNotFound) {
			return number, nil
		} else if err != nil {
			return "", err
		}
	}
	return "", ErrNoNumber
}

// SubmitPublic keeps a submission of the public form from ip as an application and wakes
// the Intake; nothing goes to the service here. The applicant is cleaned and checked with
// the student rules; the school gives it its registration number (nextNumber), which is
// its reference and the new student's NIS. The template's required lines are always
// billed, its optional ones when include names them (as in the staff's wizard). The new
// student's class is the form's (or its template's name).
//
// Errors: problem.List (what was typed), *RateLimited (too many from ip's address, IPv6
// by its /64), ErrPublicOff, ErrPublicUnusable.
func (s *Service) SubmitPublic(ctx context.Context, ip string, a Applicant, include []string) (PublicApplication, error) {
	p, err := s.PublicSettings(ctx)
	if err != nil {
		return PublicApplication{}, err
	}
	if !p.Enabled || p.TemplateID == "" {
		return PublicApplication{}, ErrPublicOff
	}
	rev, err := s.Review(ctx, p.TemplateID)
	if _, unusable := problem.As(err); unusable {
		return PublicApplication{}, ErrPublicUnusable
	} else if errors.Is(err, ErrTemplateGone) {
		return PublicApplication{}, ErrPublicOff
	} else if err != nil {
		return PublicApplication{}, err
	}
	a = a.Clean()
	a.NIS = ""
	a.Description = p.Class
	if a.Description == "" {
		a.Description = rev.Template.Name
	}
	if ps := a.Validate(true); len(ps) > 0 {
		return PublicApplication{}, ps
	}
	if err := s.AllowPublic(ctx, auth.AddressGroup(ip)); err != nil {
		return PublicApplication{}, err
	}
	items := Select(rev.Items, func(lineID string) bool { return slices.Contains(include, lineID) })
	now := s.now()
	rec := store.RegistrationApplication{
		ID: store.NewID(), StudentName: a.Name, ContactName: a.ContactName, Phone: a.Phone, Email: a.Email,
		Description: a.Description, TemplateID: rev.Template.ID, TemplateName: rev.Template.Name, Total: Total(items),
		IP: ip, State: string(StateNew), CreatedAt: now, UpdatedAt: now,
	}
	for _, it := range items {
		c := it.Component
		rec.Components = append(rec.Components, store.RegisteredComponent{Name: c.Name, AccountCode: c.AccountCode,
			Amount: c.Amount, Penalty: c.Penalty, Due: c.Due, Expiry: c.Expiry, Description: c.Description, LineID: it.LineID})
	}
	for range numberTries { // an application kept by hand with the next number: take another
		if rec.NIS, err = s.nextNumber(ctx, p.NumberPrefix); err != nil {
			return PublicApplication{}, err
		}
		rec.Reference = rec.NIS
		if err = s.DB.AddRegistrationApplication(ctx, rec); !errors.Is(err, store.ErrConflict) {
			break
		}
	}
	if err != nil {
		return PublicApplication{}, err
	}
	if s.Nudge != nil {
		s.Nudge()
	}
	return applicationOf(rec), nil
}

// include says which of the template's optional lines a's parent chose: the lines of its
// components; nil (all of them) for an application kept before the choice was.
func (a PublicApplication) include() func(lineID string) bool {
	chosen := map[string]bool{}
	for _, c := range a.Components {
		if c.LineID != "" {
			chosen[c.LineID] = true
		}
	}
	if len(chosen) == 0 {
		return nil
	}
	return func(lineID string) bool { return chosen[lineID] }
}

// Application returns one application; ErrApplicationGone when unknown.
func (s *Service) Application(ctx context.Context, id string) (PublicApplication, error) {
	a, err := s.DB.RegistrationApplication(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return PublicApplication{}, ErrApplicationGone
	}
	if err != nil {
		return PublicApplication{}, err
	}
	return applicationOf(a), nil
}

// Applications is the staff's list: what waits for them, and what was decided lately.
type Applications struct {
	// Waiting are the applications held for staff, and those still being checked or
	// sent, oldest first (at most MaxWaitingListed).
	Waiting []PublicApplication
	// Held counts the applications held for staff (all of them).
	Held int
	// Recent are the latest registered or rejected ones, newest first.
	Recent []PublicApplication
}

// How many applications the staff's list shows.
const (
	MaxWaitingListed = 500
	MaxRecentListed  = 50
)

// ListApplications reads the staff's list.
func (s *Service) ListApplications(ctx context.Context) (Applications, error) {
	var out Applications
	waiting, err := s.DB.RegistrationApplications(ctx, []string{string(StatePending), string(StateNew), string(StateSending)},
		true, 0, MaxWaitingListed)
	if err != nil {
		return out, err
	}
	recent, err := s.DB.RegistrationApplications(ctx, []string{string(StateRegistered), string(StateRejected)}, false, 0, MaxRecentListed)
	if err != nil {
		return out, err
	}
	if out.Held, err = s.DB.CountRegistrationApplications(ctx, string(StatePending)); err != nil {
		return out, err
	}
	for _, a := range waiting {
		out.Waiting = append(out.Waiting, applicationOf(a))
	}
	for _, a := range recent {
		out.Recent = append(out.Recent, applicationOf(a))
	}
	return out, nil
}

// applicationArgs are an application's audit arguments.
func applicationArgs(a PublicApplication) []audit.Arg {
	return []audit.Arg{audit.Student(a.Applicant.NIS, a.Applicant.Name), audit.ArgOf(keyAppRef, a.Reference), audit.Total(a.Total)}
}

// Approve sends a held application to the service as the form would have (the student
// and the bill at once, the fee template as it is today), as actor, and audits it.
//
// Errors: ErrApplicationGone, ErrNotPending (decided or being sent meanwhile);
// problem.List with "nis" (a student with this NIS exists: the application stays held
// for that reason), or the template's problems, or ErrTemplateGone (held as such); the
// service's error: a refusal holds it as refused, an unavailable service leaves it as it
// was, and a call without an answer leaves it being sent (changes.Ambiguous): the Intake
// looks for the student once the call can no longer land and records what it finds.
func (s *Service) Approve(ctx context.Context, actor auth.Actor, id string) (store.Registration, error) {
	a, err := s.Application(ctx, id)
	if err != nil {
		return store.Registration{}, err
	}
	if a.State != StatePending {
		return store.Registration{}, ErrNotPending
	}
	now := s.now()
	// Who approved it is kept from now: a call without an answer that landed is theirs.
	moved, err := s.DB.MoveRegistrationApplication(ctx, store.ApplicationChange{ID: id, From: []string{string(StatePending)},
		To: string(StateSending), Hold: string(a.Hold), SentAt: now, Auto: false, DecidedBy: actor.Username, DecidedAt: now, At: now})
	if err != nil {
		return store.Registration{}, err
	}
	if !moved {
		return store.Registration{}, ErrNotPending
	}
	rec, err := s.Register(ctx, actor, Application{Applicant: a.Applicant, TemplateID: a.TemplateID, Include: a.include()}, store.SourceRegistration)
	if rec.BillID != "" {
		if ferr := s.finish(ctx, a, rec); ferr != nil {
			err = errors.Join(err, ferr)
		}
		s.audit(ctx, actor, auditApplicationApprove.With(applicationArgs(a)...), a.Reference,
			fmt.Sprintf("%s %s, bill %s", a.Applicant.NIS, a.Applicant.Name, rec.BillID))
		return rec, err
	}
	hold, keep := holdOf(err)
	switch {
	case keep:
		// No answer: being sent it stays, for the Intake to look for.
		return store.Registration{}, err
	case hold == "":
		hold = a.Hold // the service is down: nothing happened, held as it was
	}
	if _, merr := s.DB.MoveRegistrationApplication(ctx, store.ApplicationChange{ID: id, From: []string{string(StateSending)},
		To: string(StatePending), Hold: string(hold), At: s.now()}); merr != nil {
		err = errors.Join(err, merr)
	}
	return store.Registration{}, err
}

// finish records a registered application and its bill.
func (s *Service) finish(ctx context.Context, a PublicApplication, rec store.Registration) error {
	c := store.ApplicationChange{ID: a.ID, From: []string{string(StateSending)}, To: string(StateRegistered), BillID: rec.BillID, At: s.now()}
	// Registered at the service: record it even if the request is gone by now.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_, err := s.DB.MoveRegistrationApplication(fctx, c)
	return err
}

// holdOf says how a failed registration leaves its application: held for the reason it
// names, left as it was (hold "", the service is down: nothing happened), or left being
// sent (keep: no answer, it may have landed).
func holdOf(err error) (hold Hold, keep bool) {
	ps, isProblems := problem.As(err)
	switch {
	case isProblems && ps.Has("nis"):
		return HoldNISKnown, false
	case isProblems, errors.Is(err, ErrTemplateGone):
		return HoldTemplate, false
	case changes.Ambiguous(err):
		return "", true
	case errors.Is(err, billing.ErrUnavailable), errors.Is(err, billing.ErrUnauthorized):
		return "", false
	}
	return HoldRefused, false
}

// Reject closes a held application with a reason, as actor, and audits it; nothing goes
// to the service. Errors: problem.List ("reason": required, at most
// MaxRejectReasonLen characters), ErrApplicationGone, ErrNotPending.
func (s *Service) Reject(ctx context.Context, actor auth.Actor, id, reason string) error {
	reason = strings.Join(strings.Fields(reason), " ")
	var ps problem.List
	switch {
	case reason == "":
		ps.Add("reason", "form.required")
	case len([]rune(reason)) > MaxRejectReasonLen:
		ps.Add("reason", "form.too_long", MaxRejectReasonLen)
	}
	if len(ps) > 0 {
		return ps
	}
	a, err := s.Application(ctx, id)
	if err != nil {
		return err
	}
	now := s.now()
	moved, err := s.DB.MoveRegistrationApplication(ctx, store.ApplicationChange{ID: id, From: []string{string(StatePending)},
		To: string(StateRejected), Hold: string(a.Hold), DecidedBy: actor.Username, DecidedAt: now, Reason: reason, At: now})
	if err != nil {
		return err
	}
	if !moved {
		return ErrNotPending
	}
	s.audit(ctx, actor, auditApplicationReject.With(append(applicationArgs(a), audit.Reason(reason))...), a.Reference,
		fmt.Sprintf("%s %s: %s", a.Applicant.NIS, a.Applicant.Name, reason))
	return nil
}
