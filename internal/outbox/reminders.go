package outbox

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/messaging"
)

// remindersLease is the named lease of the reminders' daily pass: one instance a day.
const remindersLease = "outbox.reminders"

// settingRemindersDay is the last school day whose reminders were written (YYYY-MM-DD).
const settingRemindersDay = "outbox.reminders_day"

// reminderLoop runs the reminders' daily pass: every ReminderEvery it looks whether the
// school's day moved on, and then writes that day's reminders, under a lease so two
// instances never both write them.
func (s *Service) reminderLoop() {
	w := s.jobs.Worker
	for {
		ctx := w.Context()
		_, err := s.reminders.Hold(ctx, remindersLease, func(ctx context.Context) error {
			_, err := s.RunReminders(ctx)
			return err
		})
		if err != nil && ctx.Err() == nil {
			s.log.Error("outbox: the reminders' daily pass", "err", err)
		}
		if !w.Sleep(ctx, s.cfg.ReminderEvery) {
			return
		}
	}
}

// RunReminders writes today's reminders unless they were written already: for each
// student, the components still unpaid whose due date is ReminderDays from today (and
// those of days the portal missed, still ahead), one message a due day naming them all,
// sent from the next sending hour on. The worker runs it once a school day; it reports
// how many messages it wrote.
func (s *Service) RunReminders(ctx context.Context) (int, error) {
	set, err := s.Settings(ctx)
	if err != nil {
		return 0, err
	}
	today := s.cfg.Clock.Day()
	last, done, err := s.cfg.DB.Setting(ctx, settingRemindersDay)
	if err != nil {
		return 0, fmt.Errorf("outbox: %w", err)
	}
	if done && last >= dayText(today) {
		return 0, nil
	}
	n := 0
	if set.ReminderDays > 0 && s.anyChannel() {
		first := today.AddDate(0, 0, set.ReminderDays)
		if lastDay, err := time.Parse(time.DateOnly, last); done && err == nil {
			// Days the portal did not run: their reminders, for due dates still ahead.
			if missed := lastDay.AddDate(0, 0, 1+set.ReminderDays); missed.Before(first) {
				first = missed
			}
			if tomorrow := today.AddDate(0, 0, 1); first.Before(tomorrow) {
				first = tomorrow
			}
		}
		if n, err = s.remind(ctx, first, today.AddDate(0, 0, set.ReminderDays), set.ReminderDays); err != nil {
			return 0, err
		}
	}
	if err := s.cfg.DB.SetSetting(ctx, settingRemindersDay, dayText(today)); err != nil {
		return n, fmt.Errorf("outbox: %w", err)
	}
	return n, nil
}

// remind writes the reminders of the unpaid components due from `from` to `to`.
func (s *Service) remind(ctx context.Context, from, to time.Time, days int) (int, error) {
	type group struct {
		nis, name string
		due       time.Time
		ids       []string
		names     []string
		amount    int64
	}
	var groups []*group
	byKey := map[string]*group{}
	for b, err := range s.cfg.Ledger.EachBill(ctx, ledger.BillsQuery{Tab: ledger.TabOutstanding, DueFrom: from, DueTo: to, Sort: ledger.SortDue}) {
		if err != nil {
			return 0, fmt.Errorf("outbox: reminders: %w", err)
		}
		due := b.Due.UTC().Truncate(24 * time.Hour)
		k := b.NIS + " " + dayText(due)
		g := byKey[k]
		if g == nil {
			g = &group{nis: b.NIS, name: b.StudentName, due: due}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.ids, g.names, g.amount = append(g.ids, b.ComponentID), append(g.names, b.Name), g.amount+b.Amount
	}
	at, err := s.startAt(ctx)
	if err != nil {
		return 0, err
	}
	p := s.printer()
	rows := make([]PlanRow, len(groups))
	for i, g := range groups {
		// Keyed by the component (the first of those due that day) and the days before.
		rows[i] = PlanRow{NIS: g.nis, Name: g.name, Amount: g.amount, Count: len(g.ids),
			Fields: []string{g.name, strings.Join(g.names, ", "), p.Day(g.due), i18n.Rupiah(g.amount), ""},
			Key:    "reminder:" + slices.Min(g.ids) + ":" + strconv.Itoa(days)}
	}
	if len(rows) == 0 {
		return 0, nil
	}
	plan, err := s.plan(ctx, messaging.KindReminder, at, rows)
	if err != nil {
		return 0, err
	}
	q, err := s.write(ctx, plan, "", Actor, true)
	if err != nil {
		return 0, err
	}
	s.recordBatch(ctx, auditReminders, audit.Actor{Username: Actor}, q, audit.ArgOf(keyDays, strconv.Itoa(days)))
	return q.Messages, nil
}
