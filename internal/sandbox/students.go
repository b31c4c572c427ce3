package sandbox

import (
	"cmp"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/google/uuid"
)

// studentBatch creates all students of bill_list, or none.
func (s *Server) studentBatch(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		BillList []json.RawMessage `json:"bill_list"`
	}
	if err := decodeBody(w, r, &req); err != nil {
		return err
	}
	var ps problems
	if !ps.checkList("bill_list", len(req.BillList)) {
		return invalid("bill_list", ps)
	}
	list, ok := decodeList[student](req.BillList, &ps)
	first := map[string]int{}
	var keys []string
	for i := range list {
		if !ok[i] {
			continue
		}
		before := len(ps)
		validateStudent(&list[i], i, &ps)
		if len(ps) > before {
			continue
		}
		nis := list[i].BillKeyValue
		if j, dup := first[nis]; dup {
			ps.add(i, "bill_key_value", fmt.Sprintf("%s is repeated in this batch (first at index %d)", nis, j))
			continue
		}
		first[nis] = i
		keys = append(keys, nis)
	}
	now := s.Now()
	err := s.store.inTx(r.Context(), func(tx *sql.Tx) error {
		exists, err := existingNIS(r.Context(), tx, keys)
		if err != nil {
			return err
		}
		for _, nis := range keys {
			if exists[nis] {
				ps.add(first[nis], "bill_key_value", nis+" already exists")
			}
		}
		if len(ps) > 0 {
			slices.SortStableFunc(ps, func(a, b problem) int { return cmp.Compare(a.Index, b.Index) })
			return invalid("bill_list", ps)
		}
		_, err = insertStudents(r.Context(), tx, list, now.UnixNano(), uuid.NewString)
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, "", list)
	return nil
}

// studentCreate creates one student (POST /bill).
func (s *Server) studentCreate(w http.ResponseWriter, r *http.Request) error {
	var st student
	if err := decodeBody(w, r, &st); err != nil {
		return err
	}
	var ps problems
	validateStudent(&st, -1, &ps)
	if len(ps) > 0 {
		return invalidOne(ps)
	}
	err := s.store.inTx(r.Context(), func(tx *sql.Tx) error {
		exists, err := existingNIS(r.Context(), tx, []string{st.BillKeyValue})
		if err != nil {
			return err
		}
		if exists[st.BillKeyValue] {
			return errorf(http.StatusBadRequest, "bill_key_value: %s already exists", st.BillKeyValue)
		}
		_, err = insertStudents(r.Context(), tx, []student{st}, s.Now().UnixNano(), uuid.NewString)
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, "", st)
	return nil
}

// studentList lists students, newest first (GET /bill?name=&bill_key=&offset=&limit=).
func (s *Server) studentList(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	pg, err := s.parsePage(q, maxStudentLimit)
	if err != nil {
		return err
	}
	if pg.beyond {
		writeJSON(w, http.StatusOK, "", []student{})
		return nil
	}
	list, err := s.store.listStudents(r.Context(), studentFilter{
		name: q.Get("name"), nis: q.Get("bill_key"), offset: pg.offset, limit: pg.limit,
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, "", list)
	return nil
}

// studentGet returns one student.
func (s *Server) studentGet(w http.ResponseWriter, r *http.Request) error {
	st, err := studentByNIS(r.Context(), s.store.db, r.PathValue("nis"))
	if errors.Is(err, errNotFound) {
		return errorf(http.StatusNotFound, "unknown student %q", r.PathValue("nis"))
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, "", st.student)
	return nil
}

// studentUpdate replaces the fields of the student matched by
// bill_key_value; an absent bill_key_name keeps the stored one.
func (s *Server) studentUpdate(w http.ResponseWriter, r *http.Request) error {
	var st student
	if err := decodeBody(w, r, &st); err != nil {
		return err
	}
	keepKeyName := blank(st.BillKeyName)
	var ps problems
	validateStudent(&st, -1, &ps)
	if len(ps) > 0 {
		return invalidOne(ps)
	}
	var out student
	err := s.store.inTx(r.Context(), func(tx *sql.Tx) error {
		cur, err := studentByNIS(r.Context(), tx, st.BillKeyValue)
		if errors.Is(err, errNotFound) {
			return errorf(http.StatusNotFound, "unknown student %q", st.BillKeyValue)
		}
		if err != nil {
			return err
		}
		if keepKeyName {
			st.BillKeyName = cur.BillKeyName
		}
		if _, err := tx.ExecContext(r.Context(), `UPDATE students SET name = ?, key_name = ?, phone = ?, email = ?, description = ?
			WHERE id = ?`, st.Name, st.BillKeyName, st.Phone, st.Email, st.Description, cur.id); err != nil {
			return fmt.Errorf("update student: %w", err)
		}
		out = st
		return nil
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, "", out)
	return nil
}

// studentDelete removes a student and marks their unpaid components
// deleted; a student with a paid component is kept, since payment history
// must stay. The rows stay, so the deleted components still name the student.
func (s *Server) studentDelete(w http.ResponseWriter, r *http.Request) error {
	nis := r.PathValue("nis")
	now := s.Now().UnixNano()
	err := s.store.inTx(r.Context(), func(tx *sql.Tx) error {
		st, err := studentByNIS(r.Context(), tx, nis)
		if errors.Is(err, errNotFound) {
			return errorf(http.StatusNotFound, "unknown student %q", nis)
		}
		if err != nil {
			return err
		}
		var paid int
		if err := tx.QueryRowContext(r.Context(), `SELECT count(*) FROM components WHERE student_id = ? AND paid_day IS NOT NULL`, st.id).Scan(&paid); err != nil {
			return fmt.Errorf("count paid components: %w", err)
		}
		if paid > 0 {
			return errorf(http.StatusBadRequest, "student %s has %d paid component(s); payment history is kept", nis, paid)
		}
		if _, err := tx.ExecContext(r.Context(), `UPDATE components SET deleted_at = ?, updated_at = ?
			WHERE student_id = ? AND deleted_at IS NULL`, now, now, st.id); err != nil {
			return fmt.Errorf("delete components: %w", err)
		}
		if _, err := tx.ExecContext(r.Context(), `UPDATE students SET deleted_at = ? WHERE id = ?`, now, st.id); err != nil {
			return fmt.Errorf("delete student: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, "", nil)
	return nil
}
