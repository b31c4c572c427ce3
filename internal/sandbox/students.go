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
		validateStudent(&list[i], i, true, &ps)
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

// studentUpdate replaces the fields of the student matched by bill_key_value.
func (s *Server) studentUpdate(w http.ResponseWriter, r *http.Request) error {
	var st student
	if err := decodeBody(w, r, &st); err != nil {
		return err
	}
	var ps problems
	validateStudent(&st, -1, true, &ps)
	if len(ps) > 0 {
		return errorf(http.StatusBadRequest, "%s: %s", ps[0].Field, ps[0].Message)
	}
	res, err := s.store.db.ExecContext(r.Context(), `UPDATE students SET name = ?, key_name = ?, phone = ?, email = ?, description = ?
		WHERE nis = ?`, st.Name, st.BillKeyName, st.Phone, st.Email, st.Description, st.BillKeyValue)
	if err != nil {
		return fmt.Errorf("update student: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("update student: %w", err)
	} else if n == 0 {
		return errorf(http.StatusNotFound, "unknown student %q", st.BillKeyValue)
	}
	writeJSON(w, http.StatusOK, "", st)
	return nil
}

// studentDelete removes a student and their unpaid components; a student
// with a paid component is kept, since payment history must stay.
func (s *Server) studentDelete(w http.ResponseWriter, r *http.Request) error {
	nis := r.PathValue("nis")
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
		if _, err := tx.ExecContext(r.Context(), `DELETE FROM components WHERE student_id = ?`, st.id); err != nil {
			return fmt.Errorf("delete components: %w", err)
		}
		if _, err := tx.ExecContext(r.Context(), `DELETE FROM students WHERE id = ?`, st.id); err != nil {
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
