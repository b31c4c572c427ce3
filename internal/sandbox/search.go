package sandbox

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
)

const (
	defaultLimit    = 50
	maxLimit        = 1000 // component searches
	maxStudentLimit = 1500 // student list
	// maxOffset is beyond any store the sandbox holds: a larger offset is
	// answered with an empty page without asking SQLite (and without offset
	// + limit overflowing).
	maxOffset = 1 << 40
)

// page is a parsed offset and limit; beyond is an offset past any data.
type page struct {
	offset, limit int
	beyond        bool
}

// parsePage reads offset (default 0) and limit (default 50, also for 0).
// A limit above most is a 400, or most when the sandbox caps silently (most
// is the search's own cap, lowered by Options.MaxLimit for the searches).
// Any whole offset is fine: one past the data gets an empty page.
func (s *Server) parsePage(q url.Values, most int) (page, error) {
	pg := page{limit: defaultLimit}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		switch {
		case err == nil && n >= 0:
			pg.offset = int(min(n, maxOffset))
			pg.beyond = n >= maxOffset
		case errors.Is(err, strconv.ErrRange) && allDigits(v):
			pg.beyond = true
		default:
			return pg, errorf(http.StatusBadRequest, "offset: must be a whole number, 0 or more")
		}
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		huge := errors.Is(err, strconv.ErrRange) && allDigits(v)
		switch {
		case err == nil && n == 0:
		case err == nil && n > 0 && n <= int64(most):
			pg.limit = int(n)
		case (huge || err == nil && n > 0) && s.capSilently:
			pg.limit = most
		default:
			return pg, errorf(http.StatusBadRequest, "limit: must be a whole number from 1 to %d", most)
		}
	}
	return pg, nil
}

// allDigits reports a plain unsigned number (one too large for int64).
func allDigits(v string) bool {
	for _, c := range []byte(v) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return v != ""
}

// parseSearch reads the filters shared by both searches.
func (s *Server) parseSearch(q url.Values) (searchFilter, page, error) {
	f := searchFilter{
		state:       q.Get("state"),
		accountCode: q.Get("account_code"),
		refNumber:   q.Get("ref_number"),
	}
	switch f.state {
	case "", statePaid, stateExpired, stateProvisioned, stateDeleted:
	default:
		return f, page{}, errorf(http.StatusBadRequest, "state: must be provisioned, expired, paid or deleted")
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
			return f, page{}, errorf(http.StatusBadRequest, "%s: must be a date like 20260110", d.name)
		}
		*d.dst = day
	}
	pg, err := s.parsePage(q, s.maxLimit)
	f.offset, f.limit = pg.offset, pg.limit
	return f, pg, err
}

// searchBiller searches the components of every student.
func (s *Server) searchBiller(w http.ResponseWriter, r *http.Request) error {
	f, pg, err := s.parseSearch(r.URL.Query())
	if err != nil {
		return err
	}
	if pg.beyond {
		writeJSON(w, http.StatusOK, "", []record{})
		return nil
	}
	recs, err := s.store.search(r.Context(), f, s.today(), s.stamps)
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
	f, pg, err := s.parseSearch(q)
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
	if pg.beyond {
		writeJSON(w, http.StatusOK, "", []record{})
		return nil
	}
	recs, err := s.store.search(r.Context(), f, s.today(), s.stamps)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, "", recs)
	return nil
}
