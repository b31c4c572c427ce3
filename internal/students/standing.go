package students

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/store"
)

// Standing is a student's status with the day it began and why: what the student page's
// status form sets. An active student has no day; their note is why they came back (kept
// in the audit entry only).
type Standing struct {
	Status Status
	On     time.Time
	Note   string
}

// StandingOf is the standing the roster keeps for s.
func StandingOf(s Student) Standing {
	return Standing{Status: StatusOf(s.Status), On: s.StatusOn, Note: s.StatusNote}
}

// The fields of the status form (problem fields).
const (
	FieldStatus     = "status"
	FieldStatusOn   = "on"
	FieldStatusNote = "note"
)

// MaxStatusNoteLen bounds why a student's status changed, in characters.
const MaxStatusNoteLen = 200

// KeyStatusUnknown is the problem of a status that is none of Statuses.
const KeyStatusUnknown = "students.standing.err.status"

// StandingForm is the status form as typed.
type StandingForm struct {
	Status, On, Note string
}

// ParseStanding checks the status form: a known status; for one that is not active the
// day it began (any day the portal can read, a past one when it is recorded late, a
// coming one when known ahead) and why; for active (back at school), an optional why.
func ParseStanding(f StandingForm) (Standing, problem.List) {
	var l problem.List
	st := Standing{Status: Status(strings.TrimSpace(f.Status)), Note: strings.TrimSpace(f.Note)}
	if !slices.Contains(Statuses, st.Status) {
		l.Add(FieldStatus, KeyStatusUnknown)
		return st, l
	}
	if !st.Status.Active() {
		st.On = component.ParseDay(&l, FieldStatusOn, f.On, true)
	}
	CheckText(&l, FieldStatusNote, st.Note, !st.Status.Active(), MaxStatusNoteLen)
	return st, l
}

// The audit of a standing set: the student, the new standing ("Keluar sejak 14 Juli
// 2026", "Aktif"), the one before, and why.
var (
	keyStatus     = audit.Key("status")
	keyStatusOn   = audit.Key("status_on")
	keyStatusFrom = audit.Key("status_from")
	standingShown = audit.NewFigure("standing", []audit.Key{keyStatus, keyStatusOn, keyStatusFrom}, func(p i18n.Printer, a audit.Args) string {
		to := a.Get(keyStatus)
		if to == "" {
			return ""
		}
		s := p.T(Status(to).Key())
		if on, err := time.Parse(time.DateOnly, a.Get(keyStatusOn)); err == nil {
			s = p.T("students.standing.since", s, p.Day(on))
		}
		if from := a.Get(keyStatusFrom); from != "" && from != to {
			s = p.T("students.standing.change", p.T(Status(from).Key()), s)
		}
		return s
	})
	auditStanding = audit.Register(audit.Action{Code: "students.status", About: audit.AboutStudent,
		Shows: []audit.Figure{standingShown, audit.Why}, Needs: []audit.Key{audit.KeyNIS, keyStatus}})
)

// SetStanding records st as the standing of student s (who is in the roster), with its
// audit entry in the same transaction: the change and its record, or neither.
func (s *Service) SetStanding(ctx context.Context, actor auth.Actor, st Student, to Standing) error {
	on := time.Time{}
	if !to.Status.Active() {
		on = to.On
	}
	note := to.Note
	if to.Status.Active() {
		note = "" // why they came back is the audit entry's
	}
	args := []audit.Arg{audit.Student(st.NIS, st.Name), audit.ArgOf(keyStatus, string(to.Status)),
		audit.ArgOf(keyStatusFrom, string(StatusOf(st.Status))), audit.Reason(to.Note)}
	if !on.IsZero() {
		args = append(args, audit.ArgOf(keyStatusOn, on.Format(time.DateOnly)))
	}
	e := auditStanding.With(args...)
	e.Actor, e.Target, e.Outcome, e.At = actor.Audit(), st.NIS, audit.OK, s.Clock.Now()
	err := s.DB.SetStudentStanding(ctx, st.NIS, string(to.Status), on, note, e.Row())
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("students: standing of %s: %w", st.NIS, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("students: standing of %s: %w", st.NIS, err)
	}
	return nil
}

// Former are the students whose standing is not active, by class then NIS.
func (s *Service) Former(ctx context.Context) ([]Student, error) {
	return s.DB.StudentsNotActive(ctx)
}
