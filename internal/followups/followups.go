// Package followups is how finance staff follow up arrears the way Indonesian schools
// do: a WhatsApp message to the parents (a wa.me link with a polite Indonesian text
// naming the student, what is overdue and the total) or a printed reminder letter.
// Either is recorded (store.FollowUp, with its audit entry in the same transaction), so
// the arrears report shows each student's last follow-up. What is overdue is read from
// the ledger and priced by internal/component's day rule; the phone number by
// internal/students' rule.
package followups

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/students"
)

// Channel is how a follow-up reached the parents; its value is what the store keeps.
type Channel string

// The channels.
const (
	WhatsApp Channel = "whatsapp"
	Letter   Channel = "letter"
)

// ParseChannel reads a form's channel value.
func ParseChannel(s string) (Channel, bool) {
	switch c := Channel(strings.TrimSpace(s)); c {
	case WhatsApp, Letter:
		return c, true
	}
	return "", false
}

// The codes of a follow-up's audit entries, one per channel.
const (
	ActionWhatsApp = "followup.whatsapp"
	ActionLetter   = "followup.letter"
)

// A follow-up in the audit log: about the student, with the overdue items it named and
// their total.
var (
	auditWhatsApp = audit.Register(audit.Action{Code: ActionWhatsApp, About: audit.AboutStudent,
		Shows: []audit.Figure{audit.OverdueItems, audit.Money}, Needs: []audit.Key{audit.KeyNIS, audit.KeyOverdue, audit.KeyTotal}})
	auditLetter = audit.Register(audit.Action{Code: ActionLetter, About: audit.AboutStudent,
		Shows: []audit.Figure{audit.OverdueItems, audit.Money}, Needs: []audit.Key{audit.KeyNIS, audit.KeyOverdue, audit.KeyTotal}})
)

// auditAction is the audit action of a follow-up by c.
func (c Channel) auditAction() *audit.Action {
	if c == Letter {
		return auditLetter
	}
	return auditWhatsApp
}

var (
	// ErrNothingOverdue means the student has no overdue component: nothing to remind of.
	ErrNothingOverdue = errors.New("followups: nothing overdue")
	// ErrNoPhone means the student has no phone number at all.
	ErrNoPhone = errors.New("followups: no phone number")
	// ErrNotMobile means the phone number is not an Indonesian mobile number WhatsApp
	// could reach (a landline, or a number that does not read as one).
	ErrNotMobile = errors.New("followups: not a mobile number")
	// ErrOptedOut means the parents asked for no WhatsApp messages from the school.
	ErrOptedOut = errors.New("followups: the parents opted out of WhatsApp")
)

// Item is one overdue component as a reminder names it, priced today.
type Item struct {
	Name     string
	Due      time.Time // a UTC-midnight day
	DaysLate int
	Amount   int64
	Penalty  int64 // the penalty paying today adds
	Price    int64 // what paying it today costs
}

// Overdue is what a student owes past due today: the components, earliest due first,
// and their total (penalties included).
type Overdue struct {
	NIS, Name, Class, Phone string
	Today                   time.Time
	Items                   []Item
	Total, Penalty          int64
}

// OverdueOf picks the overdue components of bills on today (now in the service zone).
func OverdueOf(s store.Student, bills []billing.Bill, today time.Time) Overdue {
	o := Overdue{NIS: s.NIS, Name: s.Name, Class: s.Description, Phone: s.Phone, Today: today}
	for _, b := range bills {
		if o.Name == "" {
			o.Name = b.StudentName
		}
		t := component.On(b, today)
		if t.Status != component.StatusOverdue {
			continue
		}
		o.Items = append(o.Items, Item{Name: b.Name, Due: b.Due, DaysLate: t.DaysLate, Amount: b.Amount, Penalty: t.Penalty, Price: t.Price})
		o.Total += t.Price
		o.Penalty += t.Penalty
	}
	return o
}

// WhatsAppNumber is phone as wa.me wants it: international digits without "+"
// ("0812-3456-7890" and "+62 812 3456 7890" are both "6281234567890"). Only Indonesian
// mobile numbers (08…, +628…) are WhatsApp numbers: ErrNoPhone for none, ErrNotMobile
// for a landline or a number the students' rule refuses.
func WhatsAppNumber(phone string) (string, error) {
	n := students.NormalizePhone(phone)
	if n == "" {
		return "", ErrNoPhone
	}
	var probs problem.List
	if !students.CheckPhone(&probs, n) {
		return "", ErrNotMobile
	}
	switch {
	case strings.HasPrefix(n, "+62"):
		n = n[1:]
	case strings.HasPrefix(n, "0"):
		n = "62" + n[1:]
	}
	if !strings.HasPrefix(n, "628") {
		return "", ErrNotMobile
	}
	return n, nil
}

// maxItems bounds the components a WhatsApp message names one by one; the rest are
// counted, so the message stays short on a phone.
const maxItems = 6

// Message is the WhatsApp text to the parents, always in Indonesian (the parents'
// language, whatever the staff member reads the portal in): a polite greeting, the
// student, each overdue component with its due date and price today, the total, how to
// pay and a thank-you, signed by the school's finance office.
func Message(o Overdue, school string) string {
	p := i18n.NewPrinter(i18n.Indonesian, time.UTC)
	if school == "" {
		school = p.T("followups.wa.school_fallback")
	}
	var b strings.Builder
	b.WriteString(p.T("followups.wa.greeting", o.Name))
	b.WriteString("\n\n")
	b.WriteString(p.T("followups.wa.intro", school, o.Name, o.NIS))
	b.WriteString("\n")
	for i, it := range o.Items {
		if i == maxItems {
			b.WriteString(p.T("followups.wa.more", len(o.Items)-maxItems))
			b.WriteString("\n")
			break
		}
		b.WriteString(p.T("followups.wa.item", it.Name, p.Day(it.Due), it.DaysLate, i18n.Rupiah(it.Price)))
		b.WriteString("\n")
	}
	b.WriteString("\n")
	if o.Penalty > 0 {
		b.WriteString(p.T("followups.wa.total_penalty", i18n.Rupiah(o.Total), i18n.Rupiah(o.Penalty)))
	} else {
		b.WriteString(p.T("followups.wa.total", i18n.Rupiah(o.Total)))
	}
	b.WriteString("\n\n")
	b.WriteString(p.T("followups.wa.how", o.NIS))
	b.WriteString("\n\n")
	b.WriteString(p.T("followups.wa.closing", school))
	return b.String()
}

// WhatsAppURL is the wa.me link that opens a chat with number with text typed in.
func WhatsAppURL(number, text string) string {
	return "https://wa.me/" + number + "?text=" + url.QueryEscape(text)
}

// Components is where the student's components are read (the ledger).
type Components = students.Components

// Service reads what a student owes and records follow-ups.
type Service struct {
	DB     *store.DB
	Ledger Components
	// Clock is the portal's clock: what is overdue is as of the school's today. The zero
	// Clock refuses to be read.
	Clock clock.Clock
	// School is the school's name for the message's signature; nil: none.
	School func(ctx context.Context) string
	// WhatsAppTo is the parents' WhatsApp number of st (international digits), or why
	// there is none (ErrNoPhone, ErrNotMobile, ErrOptedOut): internal/parents' reading,
	// their own number and opt-out. nil: the student's phone.
	WhatsAppTo func(ctx context.Context, st store.Student) (string, error)
}

// FollowUp is a follow-up as recorded: the student, the channel, when, by whom, and the
// overdue items it named with their total.
type FollowUp = store.FollowUp

// Last is the newest follow-up of student nis by c, and whether there is one.
func (s *Service) Last(ctx context.Context, nis string, c Channel) (FollowUp, bool, error) {
	f, err := s.DB.LastFollowUp(ctx, nis, string(c))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return FollowUp{}, false, nil
	case err != nil:
		return FollowUp{}, false, fmt.Errorf("followups: the last of %s: %w", nis, err)
	}
	return f, true, nil
}

func (s *Service) today() time.Time { return s.Clock.Today() }

// Overdue reads what st owes past due today from the ledger.
func (s *Service) Overdue(ctx context.Context, st store.Student) (Overdue, error) {
	acc, err := students.LoadAccount(ctx, s.Ledger, st.NIS, s.today())
	if err != nil && !errors.Is(err, billing.ErrNotFound) {
		return Overdue{}, fmt.Errorf("followups: %w", err)
	}
	return OverdueOf(st, acc.Bills, s.today()), nil
}

// Sent is a recorded follow-up: what it named, and for WhatsApp the link to open.
type Sent struct {
	Overdue  Overdue
	FollowUp FollowUp
	URL      string // the wa.me link (WhatsApp only)
}

// Send follows st's arrears up by c for actor (byName: how the report names them): it
// reads what is overdue now, checks there is something and, for WhatsApp, a mobile
// number, then records the follow-up with its audit entry. Nothing is recorded when it
// returns an error (ErrNothingOverdue, ErrNoPhone, ErrNotMobile or a store failure).
func (s *Service) Send(ctx context.Context, actor auth.Actor, byName string, st store.Student, c Channel) (Sent, error) {
	o, err := s.Overdue(ctx, st)
	if err != nil {
		return Sent{}, err
	}
	if len(o.Items) == 0 {
		return Sent{Overdue: o}, ErrNothingOverdue
	}
	out := Sent{Overdue: o}
	if c == WhatsApp {
		number, err := s.whatsAppTo(ctx, st)
		if err != nil {
			return out, err
		}
		school := ""
		if s.School != nil {
			school = s.School(ctx)
		}
		out.URL = WhatsAppURL(number, Message(o, school))
	}
	if byName == "" {
		byName = actor.Username
	}
	f := store.FollowUp{NIS: st.NIS, Channel: string(c), At: s.now(), Actor: actor.Username, ActorName: byName,
		Components: len(o.Items), Total: o.Total}
	entry := c.auditAction().With(audit.Student(st.NIS, o.Name), audit.Overdue(len(o.Items)), audit.Total(o.Total))
	entry.Actor, entry.Target, entry.Outcome = actor.Audit(), st.NIS, audit.OK
	if out.FollowUp, err = s.DB.RecordFollowUp(ctx, f, entry.Row()); err != nil {
		return out, fmt.Errorf("followups: %w", err)
	}
	return out, nil
}

func (s *Service) now() time.Time { return s.Clock.Now() }

func (s *Service) whatsAppTo(ctx context.Context, st store.Student) (string, error) {
	if s.WhatsAppTo != nil {
		return s.WhatsAppTo(ctx, st)
	}
	return WhatsAppNumber(st.Phone)
}
