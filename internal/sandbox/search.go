package sandbox

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
)

const (
	defaultLimit = 50
	maxLimit     = 1000
)

// parseSearch reads the filters shared by both searches.
func parseSearch(q url.Values) (searchFilter, error) {
	f := searchFilter{
		state:       q.Get("state"),
		accountCode: q.Get("account_code"),
		refNumber:   q.Get("ref_number"),
		limit:       defaultLimit,
	}
	switch f.state {
	case "", statePaid, stateExpired, stateProvisioned:
	default:
		return f, errorf(http.StatusBadRequest, "state: must be provisioned, expired or paid")
	}
	if q.Has("notes") {
		f.notes, f.hasNotes = q.Get("notes"), true
	}
	days := []struct {
		name string
		dst  *int
	}{
		{"start_payment_date", &f.startPayDay},
		{"end_payment_date", &f.endPayDay},
		{"start_due_date", &f.startDueDay},
		{"end_due_date", &f.endDueDay},
	}
	for _, d := range days {
		v := q.Get(d.name)
		if v == "" {
			continue
		}
		day, ok := parseDay(v)
		if !ok {
			return f, errorf(http.StatusBadRequest, "%s: must be a date like 20260110", d.name)
		}
		*d.dst = day
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return f, errorf(http.StatusBadRequest, "offset: must be a whole number, 0 or more")
		}
		f.offset = n
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxLimit {
			return f, errorf(http.StatusBadRequest, "limit: must be a whole number from 1 to %d", maxLimit)
		}
		f.limit = n
	}
	return f, nil
}

// searchBiller searches the components of every student.
func (s *Server) searchBiller(w http.ResponseWriter, r *http.Request) error {
	f, err := parseSearch(r.URL.Query())
	if err != nil {
		return err
	}
	recs, err := s.store.search(r.Context(), f, s.today())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, "", recs)
	return nil
}

// searchBill searches the components of the student named by bill_key.
func (s *Server) searchBill(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	nis := q.Get("bill_key")
	if nis == "" {
		return errorf(http.StatusBadRequest, "bill_key: required")
	}
	f, err := parseSearch(q)
	if err != nil {
		return err
	}
	st, err := studentByNIS(r.Context(), s.store.db, nis)
	if errors.Is(err, errNotFound) {
		return errorf(http.StatusNotFound, "unknown student %q", nis)
	}
	if err != nil {
		return err
	}
	f.studentID = st.id
	recs, err := s.store.search(r.Context(), f, s.today())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, "", recs)
	return nil
}
