// Package letters makes the letters a school signs to parents: a bill letter (what is
// unpaid, priced today) and an arrears reminder (what is overdue), for one student, a
// class or a list of students (the arrears report's selection), each with what an
// Indonesian school letter carries: its number (Nomor, of the school's letter pattern),
// its subject (Perihal), the place and the school's date, and the bursar's and the
// principal's names and NIP from the school's profile.
//
// A bill letter's total adds up its own column: components that cannot be paid yet
// (their active day is to come) are listed apart with the day they open, and are not in
// today's total. What a student owes is read from the ledger and priced by
// internal/component's day rule, as every page does.
package letters

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/internal/followups"
	"github.com/sekolah/portal/internal/school"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/students"
)

// Kind is which letter.
type Kind string

// The kinds of letters.
const (
	// Bill tells parents what is unpaid and what it costs today.
	Bill Kind = "bill"
	// Reminder reminds them of what is overdue.
	Reminder Kind = "reminder"
)

// ParseKind reads a kind from a form or a URL ("" is a bill letter).
func ParseKind(s string) (Kind, bool) {
	switch k := Kind(strings.TrimSpace(s)); k {
	case "", Bill:
		return Bill, true
	case Reminder:
		return Reminder, true
	}
	return "", false
}

// MaxLetters bounds one printed set: a selection larger than this is refused
// (ErrTooMany), not printed in part.
const MaxLetters = 1000

var (
	// ErrNoStudents: the class or the list names no student on the roster.
	ErrNoStudents = errors.New("letters: no students")
	// ErrTooMany: more than MaxLetters students at once.
	ErrTooMany = errors.New("letters: too many students at once")
)

// Line is one component on a letter.
type Line struct {
	Name                string
	Due, Expiry, Active time.Time // UTC-midnight days
	// Amount is the component's amount; Penalty its late fee (the rule, on a bill letter;
	// what paying today adds, on a reminder).
	Amount, Penalty int64
	// Price is what paying it today costs; for a component not yet payable, what it will
	// cost on time once it opens.
	Price int64
	// DaysLate is today minus the due day (> 0: late).
	DaysLate int
	Late     bool
}

// Letter is one student's letter.
type Letter struct {
	Kind Kind
	// Number is the letter's number (Nomor); "" until a set is numbered.
	Number              string
	NIS, Student, Class string
	// Lines are what can be paid today (a bill letter) or is overdue (a reminder): the
	// total adds up exactly these.
	Lines []Line
	// Later are components not payable yet (a bill letter): each opens on its Active day.
	Later []Line
	// Total is what paying Lines costs today; Penalty the late fees in it.
	Total, Penalty int64
	// Expired counts unpaid components past their expiry: no longer payable.
	Expired int
}

// Empty reports a letter with nothing to ask for: nothing payable, nothing to come.
func (l Letter) Empty() bool { return len(l.Lines) == 0 && len(l.Later) == 0 }

// BillOf is st's bill letter on today (now in the school's zone) from their components.
func BillOf(st store.Student, bills []billing.Bill, today time.Time) Letter {
	l := Letter{Kind: Bill, NIS: st.NIS, Student: st.Name, Class: st.Description}
	for _, b := range bills {
		if l.Student == "" {
			l.Student = b.StudentName
		}
		t := component.On(b, today)
		line := Line{Name: b.Name, Due: b.Due, Expiry: b.Expiry, Active: b.Active, Amount: b.Amount, Penalty: b.Penalty,
			Price: t.Price, DaysLate: t.DaysLate, Late: t.Status == component.StatusOverdue}
		switch {
		case t.Status == component.StatusExpired:
			l.Expired++
		case t.NotYetActive:
			line.Price = b.Amount // what it will cost when it opens, on time
			l.Later = append(l.Later, line)
		case t.Payable():
			l.Lines = append(l.Lines, line)
			l.Total += t.Price
			l.Penalty += t.Penalty
		}
	}
	byDue := func(a, b Line) int {
		return cmp.Or(a.Due.Compare(b.Due), a.Active.Compare(b.Active), strings.Compare(a.Name, b.Name))
	}
	slices.SortStableFunc(l.Lines, byDue)
	slices.SortStableFunc(l.Later, func(a, b Line) int { return cmp.Or(a.Active.Compare(b.Active), byDue(a, b)) })
	return l
}

// ReminderOf is st's arrears reminder on today: the overdue components, priced today.
func ReminderOf(st store.Student, bills []billing.Bill, today time.Time) Letter {
	o := followups.OverdueOf(st, bills, today)
	l := Letter{Kind: Reminder, NIS: st.NIS, Student: o.Name, Class: st.Description, Total: o.Total, Penalty: o.Penalty}
	for _, it := range o.Items {
		l.Lines = append(l.Lines, Line{Name: it.Name, Due: it.Due, Amount: it.Amount, Penalty: it.Penalty, Price: it.Price,
			DaysLate: it.DaysLate, Late: true})
	}
	return l
}

// Batch is a set of letters printed together, with what they share.
type Batch struct {
	Kind Kind
	// Today is now in the school's zone: the letters' date.
	Today time.Time
	// School is the profile: the letterhead, the place, the signatories.
	School school.Profile
	// Letters are the students' letters, each numbered, in print order.
	Letters []Letter
	// Skipped counts the students of the selection left out: nothing to ask them for.
	Skipped int
	// Missing are NIS of a list that are not on the roster.
	Missing []string
}

// Service reads what students owe and numbers their letters.
type Service struct {
	DB     *store.DB
	Ledger students.Components
	School *school.Service
	// FollowUps records a printed reminder as a follow-up by letter.
	FollowUps *followups.Service
	// Clock is the portal's clock: the letters' day. The zero Clock refuses to be read.
	Clock clock.Clock
}

// One is st's letter of kind, numbered (a set of one), even when it has nothing to ask.
func (s *Service) One(ctx context.Context, kind Kind, st store.Student) (Batch, error) {
	return s.batch(ctx, kind, []store.Student{st}, true)
}

// Class is the letters of kind to every student of class with something to ask for,
// by name.
func (s *Service) Class(ctx context.Context, kind Kind, class string) (Batch, error) {
	class = strings.TrimSpace(class)
	if class == "" {
		return Batch{}, ErrNoStudents
	}
	roster, total, err := s.DB.ListStudents(ctx, store.StudentFilter{Class: class, Limit: MaxLetters + 1})
	if err != nil {
		return Batch{}, fmt.Errorf("letters: %w", err)
	}
	if total > MaxLetters {
		return Batch{}, ErrTooMany
	}
	slices.SortStableFunc(roster, func(a, b store.Student) int {
		return cmp.Or(strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), strings.Compare(a.NIS, b.NIS))
	})
	return s.batch(ctx, kind, roster, false)
}

// Students is the letters of kind to the students nis, in that order (the arrears
// report's selection), those with something to ask for; NIS not on the roster are named
// in Missing.
func (s *Service) Students(ctx context.Context, kind Kind, nis []string) (Batch, error) {
	var list []string
	seen := map[string]bool{}
	for _, n := range nis {
		if n = strings.TrimSpace(n); n != "" && !seen[n] {
			seen[n] = true
			list = append(list, n)
		}
	}
	if len(list) > MaxLetters {
		return Batch{}, ErrTooMany
	}
	known, err := s.DB.StudentsByNIS(ctx, list)
	if err != nil {
		return Batch{}, fmt.Errorf("letters: %w", err)
	}
	var roster []store.Student
	var missing []string
	for _, n := range list {
		if st, ok := known[n]; ok {
			roster = append(roster, st)
		} else {
			missing = append(missing, n)
		}
	}
	b, err := s.batch(ctx, kind, roster, false)
	b.Missing = missing
	return b, err
}

func (s *Service) batch(ctx context.Context, kind Kind, roster []store.Student, keepEmpty bool) (Batch, error) {
	if len(roster) == 0 {
		return Batch{Kind: kind}, ErrNoStudents
	}
	today := s.Clock.Today()
	prof, err := s.School.Profile(ctx)
	if err != nil {
		return Batch{}, fmt.Errorf("letters: %w", err)
	}
	b := Batch{Kind: kind, Today: today, School: prof}
	var nis []string
	for _, st := range roster {
		acc, err := students.LoadAccount(ctx, s.Ledger, st.NIS, today)
		if err != nil && !errors.Is(err, billing.ErrNotFound) {
			return Batch{}, fmt.Errorf("letters: %w", err)
		}
		l := BillOf(st, acc.Bills, today)
		if kind == Reminder {
			l = ReminderOf(st, acc.Bills, today)
		}
		if l.Empty() && !keepEmpty {
			b.Skipped++
			continue
		}
		b.Letters = append(b.Letters, l)
		nis = append(nis, st.NIS)
	}
	numbers, err := s.School.LetterNumbers(ctx, string(kind), nis)
	if err != nil {
		return Batch{}, fmt.Errorf("letters: %w", err)
	}
	for i := range b.Letters {
		b.Letters[i].Number = numbers[i]
	}
	return b, nil
}

// Recorded is what RecordReminders did.
type Recorded struct {
	// Recorded counts the follow-ups written; Nothing the students with nothing overdue
	// any more (not recorded).
	Recorded, Nothing int
}

// RecordReminders records each printed reminder of the students nis as a follow-up by
// letter (one entry each, audited, as the single reminder does), for actor (byName:
// how the arrears report names them). Students with nothing overdue now are counted,
// not recorded. It stops at the first failure, saying how many were recorded before.
func (s *Service) RecordReminders(ctx context.Context, actor auth.Actor, byName string, nis []string) (Recorded, error) {
	var r Recorded
	if len(nis) > MaxLetters {
		return r, ErrTooMany
	}
	known, err := s.DB.StudentsByNIS(ctx, nis)
	if err != nil {
		return r, fmt.Errorf("letters: %w", err)
	}
	for _, n := range nis {
		st, ok := known[n]
		if !ok {
			continue
		}
		_, err := s.FollowUps.Send(ctx, actor, byName, st, followups.Letter)
		switch {
		case errors.Is(err, followups.ErrNothingOverdue):
			r.Nothing++
		case err != nil:
			return r, fmt.Errorf("letters: record the reminder of %s: %w", n, err)
		default:
			r.Recorded++
		}
	}
	return r, nil
}
