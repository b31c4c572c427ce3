// Package parents is what the portal keeps about each student's parents, and the page it
// gives them: their contacts (a name, a WhatsApp number, an e-mail, and an opt-out per
// channel that every message honours), and the parent page (/p/{token}), reached through
// a signed, unguessable, revocable link per student.
//
// Parents are the portal's own: the payment service knows a student's phone and e-mail,
// not who the parents are or whether they want messages; internal/students is the
// service's student and its rules, which this package calls (the phone by its rule, the
// e-mail by its rule) rather than repeats. Until staff set another number, the phone the
// service holds for the student is the parents' WhatsApp: schools put the parent's number
// there for the service's own reminders.
package parents

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/followups"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/school"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/students"
)

// The audit actions of this package.
const (
	ActionContacts   = "parents.contacts"
	ActionLinkRenew  = "parents.link_renew"
	ActionRegistered = "parents.contacts_registration"
)

// What the parents' entries keep besides the student: the number, the address and the
// channels opted out of (details, not worded).
const (
	keyPhone  audit.Key = "phone"
	keyEmail  audit.Key = "email"
	keyOptOut audit.Key = "opt_out"
)

var (
	auditContacts = audit.Register(audit.Action{Code: ActionContacts, About: audit.AboutStudent,
		Keeps: []audit.Key{keyPhone, keyEmail, keyOptOut}, Needs: []audit.Key{audit.KeyNIS}})
	auditRegistered = audit.Register(audit.Action{Code: ActionRegistered, About: audit.AboutStudent,
		Keeps: []audit.Key{keyPhone, keyEmail, keyOptOut}, Needs: []audit.Key{audit.KeyNIS}})
	auditLinkRenew = audit.Register(audit.Action{Code: ActionLinkRenew, About: audit.AboutStudent, Needs: []audit.Key{audit.KeyNIS}})
)

// The contacts form's fields, as problem fields.
const (
	FieldName     = "parent_name"
	FieldWhatsApp = "whatsapp"
	FieldEmail    = "email"
)

// MaxName bounds a parent's name.
const MaxName = 150

var (
	// ErrOptedOut: the parents asked not to be written to on this channel.
	ErrOptedOut = errors.New("parents: opted out of this channel")
	// ErrNoAddress: there is no e-mail address.
	ErrNoAddress = errors.New("parents: no e-mail address")
)

// Contacts are a student's parents' contacts, as the portal keeps them.
type Contacts struct {
	NIS  string
	Name string
	// WhatsApp is the number staff set ("" : the student's phone at the service).
	WhatsApp string
	Email    string
	// WhatsAppOptOut and EmailOptOut: the parents asked for no messages that way.
	WhatsAppOptOut, EmailOptOut bool
	UpdatedAt                   time.Time
	UpdatedBy                   string
}

// Recipient is where a message to the parents goes on one channel, or why it cannot.
type Recipient struct {
	// Address is the WhatsApp number in international digits (6281…) or the e-mail.
	Address string
	// Name is the parent's name ("" when unknown).
	Name string
	// FromStudent: the number is the student's phone at the service (none set here).
	FromStudent bool
	// Err says why nothing can be sent: ErrOptedOut, followups.ErrNoPhone,
	// followups.ErrNotMobile, ErrNoAddress.
	Err error
}

// Recipients are the parents' two channels.
type Recipients struct {
	WhatsApp, Email Recipient
}

// RecipientsOf are the channels of st's parents by c: the WhatsApp number (the one set,
// else the student's phone) by the students' rule, the e-mail, each unless opted out.
func RecipientsOf(st store.Student, c Contacts) Recipients {
	r := Recipients{WhatsApp: Recipient{Name: c.Name}, Email: Recipient{Name: c.Name}}
	phone := c.WhatsApp
	if phone == "" {
		phone, r.WhatsApp.FromStudent = st.Phone, true
	}
	switch n, err := followups.WhatsAppNumber(phone); {
	case c.WhatsAppOptOut:
		r.WhatsApp.Err = ErrOptedOut
	case err != nil:
		r.WhatsApp.Err = err
	default:
		r.WhatsApp.Address = n
	}
	email := c.Email
	if email == "" {
		email = st.Email
	}
	switch {
	case c.EmailOptOut:
		r.Email.Err = ErrOptedOut
	case email == "":
		r.Email.Err = ErrNoAddress
	default:
		r.Email.Address = email
	}
	return r
}

// Input is the contacts form as typed.
type Input struct {
	Name, WhatsApp, Email       string
	WhatsAppOptOut, EmailOptOut bool
}

// Check cleans in and checks it by the students' rules: the number a mobile number
// WhatsApp reaches (normalised like a student's phone), the e-mail an address.
func Check(nis string, in Input) (Contacts, problem.List) {
	var l problem.List
	c := Contacts{NIS: nis, Name: strings.Join(strings.Fields(in.Name), " "), WhatsApp: students.NormalizePhone(in.WhatsApp),
		Email: strings.TrimSpace(in.Email), WhatsAppOptOut: in.WhatsAppOptOut, EmailOptOut: in.EmailOptOut}
	if utf8.RuneCountInString(c.Name) > MaxName {
		l.Add(FieldName, "form.too_long", MaxName)
	}
	if c.WhatsApp != "" {
		var pl problem.List
		if !students.CheckPhone(&pl, c.WhatsApp) {
			l.Add(FieldWhatsApp, students.KeyPhone)
		} else if _, err := followups.WhatsAppNumber(c.WhatsApp); err != nil {
			l.Add(FieldWhatsApp, "parents.err.not_mobile")
		}
	}
	var el problem.List
	if !students.CheckEmail(&el, c.Email) {
		l.Add(FieldEmail, students.KeyEmail)
	}
	return c, l
}

// Service keeps parents' contacts and links and reads the parent page.
type Service struct {
	DB *store.DB
	// Ledger is where a student's components are read (the parent page).
	Ledger students.Components
	School *school.Service
	// Clock is the portal's clock. The zero Clock refuses to be read.
	Clock clock.Clock
	// Key signs the parent page links (at least 32 bytes).
	Key []byte
	// PublicURL is the portal's address (PORTAL_PUBLIC_URL) links are given under.
	PublicURL string
	Log       *slog.Logger
}

// Contacts reads nis's parents' contacts (a zero Contacts with the NIS when none were set).
func (s *Service) Contacts(ctx context.Context, nis string) (Contacts, error) {
	c, err := s.DB.ParentContacts(ctx, nis)
	if errors.Is(err, store.ErrNotFound) {
		return Contacts{NIS: nis}, nil
	}
	if err != nil {
		return Contacts{}, fmt.Errorf("parents: %w", err)
	}
	return Contacts(c), nil
}

// Recipients are where messages to st's parents go now (for the outbox: read once per
// message, so a change or an opt-out made meanwhile is honoured).
func (s *Service) Recipients(ctx context.Context, st store.Student) (Recipients, error) {
	c, err := s.Contacts(ctx, st.NIS)
	if err != nil {
		return Recipients{}, err
	}
	return RecipientsOf(st, c), nil
}

// RecipientsOfMany reads the contacts of many students at once (a bulk follow-up), keyed by
// NIS.
func (s *Service) RecipientsOfMany(ctx context.Context, roster []store.Student) (map[string]Recipients, error) {
	nis := make([]string, len(roster))
	for i, st := range roster {
		nis[i] = st.NIS
	}
	all, err := s.DB.ParentContactsOf(ctx, nis)
	if err != nil {
		return nil, fmt.Errorf("parents: %w", err)
	}
	out := make(map[string]Recipients, len(roster))
	for _, st := range roster {
		c, ok := all[st.NIS]
		if !ok {
			c.NIS = st.NIS
		}
		out[st.NIS] = RecipientsOf(st, Contacts(c))
	}
	return out, nil
}

// SetContacts checks in and stores it as nis's parents' contacts with its audit entry
// (both or neither). A mistake is a problem.List and nothing changes. The students sheet
// and the registration form call it too (FromRegistration).
func (s *Service) SetContacts(ctx context.Context, actor auth.Actor, nis string, in Input) (Contacts, error) {
	c, l := Check(nis, in)
	if len(l) > 0 {
		return c, l
	}
	return c, s.save(ctx, actor, auditContacts, c)
}

func (s *Service) save(ctx context.Context, actor auth.Actor, action *audit.Action, c Contacts) error {
	c.UpdatedAt, c.UpdatedBy = s.Clock.Now(), actor.Username
	optOut := []string{}
	if c.WhatsAppOptOut {
		optOut = append(optOut, "whatsapp")
	}
	if c.EmailOptOut {
		optOut = append(optOut, "email")
	}
	entry := action.With(audit.Student(c.NIS, c.Name), audit.ArgOf(keyPhone, c.WhatsApp), audit.ArgOf(keyEmail, c.Email),
		audit.ArgOf(keyOptOut, strings.Join(optOut, ",")))
	entry.Actor, entry.Target, entry.Outcome, entry.At = actor.Audit(), c.NIS, audit.OK, c.UpdatedAt
	entry.Detail = fmt.Sprintf("name=%q whatsapp=%q email=%q opt_out=%q", c.Name, c.WhatsApp, c.Email, strings.Join(optOut, ","))
	if err := entry.Check(); err != nil {
		return fmt.Errorf("parents: %w", err)
	}
	if err := s.DB.SaveParentContacts(ctx, store.ParentContacts(c), entry.Row()); err != nil {
		return fmt.Errorf("parents: %w", err)
	}
	return nil
}

// FromRegistration keeps the contact a registration form gave (the person who filled it
// in, their phone and e-mail) as nis's parents' contacts, filling only what staff have
// not set; a value the rules refuse is left out, not a failure of the registration.
func (s *Service) FromRegistration(ctx context.Context, actor auth.Actor, nis, name, phone, email string) error {
	cur, err := s.Contacts(ctx, nis)
	if err != nil {
		return err
	}
	in := Input{Name: cur.Name, WhatsApp: cur.WhatsApp, Email: cur.Email, WhatsAppOptOut: cur.WhatsAppOptOut, EmailOptOut: cur.EmailOptOut}
	if in.Name == "" {
		in.Name = name
	}
	if in.WhatsApp == "" {
		in.WhatsApp = phone
	}
	if in.Email == "" {
		in.Email = email
	}
	c, l := Check(nis, in)
	if l.Has(FieldWhatsApp) {
		c.WhatsApp = cur.WhatsApp
	}
	if l.Has(FieldEmail) {
		c.Email = cur.Email
	}
	if l.Has(FieldName) {
		c.Name = cur.Name
	}
	if c.Name == cur.Name && c.WhatsApp == cur.WhatsApp && c.Email == cur.Email {
		return nil
	}
	return s.save(ctx, actor, auditRegistered, c)
}
