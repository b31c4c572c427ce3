package sandbox

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// Reminder is a payment reminder the service recorded for a component.
type Reminder struct {
	BillComponentID string    `json:"bill_component_id"`
	BillKey         string    `json:"bill_key"`
	DueDate         time.Time `json:"due_date"`
	SentAt          time.Time `json:"sent_at"`
	Phone           string    `json:"phone"`
	Email           string    `json:"email"`
}

// evaluateReminders records the reminders of the service's current date:
// every unpaid component due two days from today, once per component. Unless
// forced it runs only when the date differs from the last evaluated one, so a
// request costs one atomic load.
func (s *Server) evaluateReminders(ctx context.Context, force bool) error {
	now := s.Now()
	today := dayOf(now.In(s.loc))
	if !force && s.remindedDay.Load() == int64(today) {
		return nil
	}
	s.remindMu.Lock()
	defer s.remindMu.Unlock()
	if !force && s.remindedDay.Load() == int64(today) {
		return nil
	}
	_, err := s.store.db.ExecContext(ctx, `INSERT OR IGNORE INTO reminders (component_id, bill_key, due_at, sent_at, phone, email)
		SELECT c.id, s.nis, c.due_at, ?, s.phone, s.email
		FROM components c JOIN students s ON s.id = c.student_id
		WHERE c.due_day = ? AND c.paid_day IS NULL AND c.deleted_at IS NULL`, now.UnixNano(), addDays(today, 2))
	if err != nil {
		return fmt.Errorf("record reminders: %w", err)
	}
	s.remindedDay.Store(int64(today))
	return nil
}

// Reminders lists the recorded reminders, oldest first (same data as GET /_sandbox/reminders).
func (s *Server) Reminders() []Reminder {
	list, err := s.reminders(context.Background())
	if err != nil {
		s.log.Error("sandbox: list reminders", "err", err)
	}
	return list
}

func (s *Server) reminders(ctx context.Context) ([]Reminder, error) {
	rows, err := s.store.db.QueryContext(ctx, `SELECT component_id, bill_key, due_at, sent_at, phone, email FROM reminders ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list reminders: %w", err)
	}
	defer rows.Close()
	list := []Reminder{}
	for rows.Next() {
		var (
			r             Reminder
			dueAt, sentAt int64
		)
		if err := rows.Scan(&r.BillComponentID, &r.BillKey, &dueAt, &sentAt, &r.Phone, &r.Email); err != nil {
			return nil, fmt.Errorf("list reminders: %w", err)
		}
		r.DueDate = time.Unix(dueAt, 0).UTC()
		r.SentAt = time.Unix(0, sentAt).UTC().Truncate(time.Second)
		list = append(list, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list reminders: %w", err)
	}
	return list, nil
}

// clockView is the answer of the clock routes.
type clockView struct {
	Now   string `json:"now"`
	Today string `json:"today"` // service date, YYYYMMDD
	Fixed bool   `json:"fixed"`
}

func (s *Server) clockView() clockView {
	now := s.Now()
	s.clockMu.RLock()
	fixed := !s.fixed.IsZero()
	s.clockMu.RUnlock()
	return clockView{Now: now.UTC().Format(time.RFC3339Nano), Today: now.In(s.loc).Format("20060102"), Fixed: fixed}
}

func (s *Server) clockGet(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, "", s.clockView())
	return nil
}

// clockSet fixes the clock ({"now": RFC 3339}); an empty or null "now"
// returns it to real time.
func (s *Server) clockSet(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Now *string `json:"now"`
	}
	if err := decodeBody(w, r, &req); err != nil {
		return err
	}
	var t time.Time
	if req.Now != nil && *req.Now != "" {
		var err error
		if t, err = time.Parse(time.RFC3339Nano, *req.Now); err != nil {
			return errorf(http.StatusBadRequest, "now: must be an RFC 3339 time like 2026-11-22T08:00:00+07:00")
		}
	}
	if err := s.setClock(r.Context(), t); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, "", s.clockView())
	return nil
}

func (s *Server) remindersList(w http.ResponseWriter, r *http.Request) error {
	list, err := s.reminders(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, "", list)
	return nil
}

func (s *Server) faultsGet(w http.ResponseWriter, r *http.Request) error {
	s.faultMu.Lock()
	f := s.faults
	s.faultMu.Unlock()
	writeJSON(w, http.StatusOK, "", f)
	return nil
}

// faultsSet replaces the fault configuration.
func (s *Server) faultsSet(w http.ResponseWriter, r *http.Request) error {
	var f Faults
	if err := decodeBody(w, r, &f); err != nil {
		return err
	}
	switch {
	case f.ErrorRate < 0 || f.ErrorRate > 1:
		return errorf(http.StatusBadRequest, "error_rate: must be between 0 and 1")
	case f.TimeoutRate < 0 || f.TimeoutRate > 1:
		return errorf(http.StatusBadRequest, "timeout_rate: must be between 0 and 1")
	case f.Status != 0 && (f.Status < 400 || f.Status > 599):
		return errorf(http.StatusBadRequest, "status: must be an error status from 400 to 599")
	case f.LatencyMS < 0 || f.LatencyMS > 600_000:
		return errorf(http.StatusBadRequest, "latency_ms: must be from 0 to 600000")
	}
	s.SetFaults(f)
	return s.faultsGet(w, r)
}
