package outbox

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/problem"
)

// Settings are how the outbox sends, set on Settings → Messages (admins).
type Settings struct {
	// ReminderDays is how many days before a due date a reminder goes (0: none). The
	// payment service sends its own reminder 2 days before.
	ReminderDays int
	// Hours are the sending hours, school time, of everything but receipts.
	Hours Hours
	// PerMinute is the gateway's limit: at most so many messages a minute.
	PerMinute int
}

// DefaultSettings are a school's until an admin changes them: a reminder 3 days before
// (a day before the service's own), 06:00–20:00, one message a second (the Cloud API
// allows far more; a school's SMTP relay often not).
var DefaultSettings = Settings{ReminderDays: 3, Hours: Hours{From: 6 * 60, To: 20 * 60}, PerMinute: 60}

// The bounds of the settings.
const (
	MaxReminderDays = 30
	MaxPerMinute    = 6000
)

// Pace is the least time between two messages.
func (s Settings) Pace() time.Duration {
	if s.PerMinute <= 0 {
		return 0
	}
	return time.Minute / time.Duration(s.PerMinute)
}

// The settings form's fields, as problem fields.
const (
	FieldReminderDays = "reminder_days"
	FieldHoursFrom    = "hours_from"
	FieldHoursTo      = "hours_to"
	FieldPerMinute    = "per_minute"
)

const (
	settingReminderDays = "outbox.reminder_days"
	settingHours        = "outbox.hours"
	settingPerMinute    = "outbox.per_minute"
)

// Settings reads the outbox's settings (the defaults for those never set).
func (s *Service) Settings(ctx context.Context) (Settings, error) {
	out := DefaultSettings
	read := func(key string, into func(string) bool) error {
		v, ok, err := s.cfg.DB.Setting(ctx, key)
		if err != nil {
			return fmt.Errorf("outbox: %w", err)
		}
		if ok && !into(v) {
			s.log.Warn("outbox: a setting that does not read; its default applies", "setting", key, "value", v)
		}
		return nil
	}
	if err := read(settingReminderDays, func(v string) bool {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > MaxReminderDays {
			return false
		}
		out.ReminderDays = n
		return true
	}); err != nil {
		return out, err
	}
	if err := read(settingHours, func(v string) bool {
		h, ok := ParseHours(v)
		if ok {
			out.Hours = h
		}
		return ok
	}); err != nil {
		return out, err
	}
	err := read(settingPerMinute, func(v string) bool {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxPerMinute {
			return false
		}
		out.PerMinute = n
		return true
	})
	return out, err
}

// SettingsInput is the settings form as typed.
type SettingsInput struct {
	ReminderDays, HoursFrom, HoursTo, PerMinute string
}

// InputOf is s as the form shows it.
func InputOf(s Settings) SettingsInput {
	return SettingsInput{ReminderDays: strconv.Itoa(s.ReminderDays), HoursFrom: clockText(s.Hours.From), HoursTo: clockText(s.Hours.To),
		PerMinute: strconv.Itoa(s.PerMinute)}
}

// ActionSettings is the audit action of a change of the outbox's settings.
const ActionSettings = "settings.outbox"

var auditSettings = audit.Register(audit.Action{Code: ActionSettings})

// SaveSettings checks in and stores it, audited; a mistake is a problem.List and nothing
// changes.
func (s *Service) SaveSettings(ctx context.Context, actor auth.Actor, in SettingsInput) (Settings, error) {
	var l problem.List
	var out Settings
	n, err := strconv.Atoi(strings.TrimSpace(in.ReminderDays))
	if err != nil || n < 0 || n > MaxReminderDays {
		l.Add(FieldReminderDays, "outbox.err.reminder_days", MaxReminderDays)
	}
	out.ReminderDays = n
	from, okFrom := parseClock(in.HoursFrom)
	to, okTo := parseClock(in.HoursTo)
	if !okFrom {
		l.Add(FieldHoursFrom, "outbox.err.clock")
	}
	if !okTo {
		l.Add(FieldHoursTo, "outbox.err.clock")
	}
	if okFrom && okTo && to <= from {
		l.Add(FieldHoursTo, "outbox.err.hours_order")
	}
	out.Hours = Hours{From: from, To: to}
	pm, err := strconv.Atoi(strings.TrimSpace(in.PerMinute))
	if err != nil || pm < 1 || pm > MaxPerMinute {
		l.Add(FieldPerMinute, "outbox.err.per_minute", MaxPerMinute)
	}
	out.PerMinute = pm
	if len(l) > 0 {
		return out, l
	}
	for k, v := range map[string]string{settingReminderDays: strconv.Itoa(out.ReminderDays), settingHours: out.Hours.String(),
		settingPerMinute: strconv.Itoa(out.PerMinute)} {
		if err := s.cfg.DB.SetSetting(ctx, k, v); err != nil {
			return out, fmt.Errorf("outbox: %w", err)
		}
	}
	s.jobs.Engine.SetPace(out.Pace())
	e := auditSettings.With()
	e.Actor, e.Outcome = actor.Audit(), audit.OK
	e.Detail = fmt.Sprintf("reminder_days=%d hours=%s per_minute=%d", out.ReminderDays, out.Hours, out.PerMinute)
	if err := (audit.Log{DB: s.cfg.DB, Clock: s.cfg.Clock}).Record(ctx, e); err != nil {
		s.log.Error("append audit entry", "action", ActionSettings, "err", err)
	}
	return out, nil
}

// Hours are the sending hours: from From to To, minutes after the school's midnight.
type Hours struct {
	From, To int
}

// String is "06:00-20:00".
func (h Hours) String() string { return clockText(h.From) + "-" + clockText(h.To) }

// ParseHours reads "06:00-20:00".
func ParseHours(s string) (Hours, bool) {
	a, b, ok := strings.Cut(s, "-")
	from, okFrom := parseClock(a)
	to, okTo := parseClock(b)
	if !ok || !okFrom || !okTo || to <= from {
		return Hours{}, false
	}
	return Hours{From: from, To: to}, true
}

func clockText(min int) string { return fmt.Sprintf("%02d:%02d", min/60, min%60) }

// parseClock reads "06:00" (or "6.00", as Indonesians write it) into minutes after
// midnight; 24:00 is the end of the day.
func parseClock(s string) (int, bool) {
	s = strings.TrimSpace(s)
	h, m, ok := strings.Cut(strings.ReplaceAll(s, ".", ":"), ":")
	if !ok {
		return 0, false
	}
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || hh < 0 || mm < 0 || mm > 59 || hh > 24 || hh == 24 && mm > 0 || len(m) != 2 {
		return 0, false
	}
	return hh*60 + mm, true
}

// minuteOf is t's minutes after midnight in loc.
func minuteOf(t time.Time, loc *time.Location) int {
	l := t.In(loc)
	return l.Hour()*60 + l.Minute()
}

// at is day's (t's date in loc) minute min, as an instant.
func at(t time.Time, loc *time.Location, min int) time.Time {
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d, 0, min, 0, 0, loc).UTC()
}

// Within reports whether t is within the hours.
func (h Hours) Within(t time.Time, loc *time.Location) bool {
	m := minuteOf(t, loc)
	return m >= h.From && m < h.To
}

// Next is the first instant at or after t within the hours: t itself, today's start, or
// tomorrow's.
func (h Hours) Next(t time.Time, loc *time.Location) time.Time {
	switch m := minuteOf(t, loc); {
	case m < h.From:
		return at(t, loc, h.From)
	case m < h.To:
		return t
	}
	return at(t.In(loc).AddDate(0, 0, 1), loc, h.From)
}

// End is when the hours that t is within end (t's day at To).
func (h Hours) End(t time.Time, loc *time.Location) time.Time { return at(t, loc, h.To) }
