package sandbox

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/google/uuid"
)

// componentBatch uploads all components of bill_upload_list, or none.
func (s *Server) componentBatch(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		List []json.RawMessage `json:"bill_upload_list"`
	}
	if err := decodeBody(w, r, &req); err != nil {
		return err
	}
	var ps problems
	if !ps.checkList("bill_upload_list", len(req.List)) {
		return invalid("bill_upload_list", ps)
	}
	inputs, ok := decodeList[componentInput](req.List, &ps)
	valid := make([]validComponent, len(inputs))
	for i := range inputs {
		if ok[i] {
			valid[i] = s.validateComponent(&inputs[i], i, true, &ps)
		}
	}
	now := s.Now()
	var ids []string
	err := s.store.inTx(r.Context(), func(tx *sql.Tx) error {
		students := map[string]*studentRow{}
		for i, v := range valid {
			if !ok[i] || v.billKey == "" {
				continue
			}
			if _, seen := students[v.billKey]; !seen {
				st, err := studentByNIS(r.Context(), tx, v.billKey)
				switch {
				case errors.Is(err, errNotFound):
					students[v.billKey] = nil
				case err != nil:
					return err
				default:
					students[v.billKey] = &st
				}
			}
			if students[v.billKey] == nil {
				ps.add(i, "bill_key", "unknown student "+v.billKey)
			}
		}
		if len(ps) > 0 {
			slices.SortStableFunc(ps, func(a, b problem) int { return cmp.Compare(a.Index, b.Index) })
			return invalid("bill_upload_list", ps)
		}
		var err error
		ids, err = s.insertComponents(r.Context(), tx, valid, func(i int) *studentRow { return students[valid[i].billKey] }, now)
		return err
	})
	if err != nil {
		return err
	}
	recs, err := recordsByID(r.Context(), s.store.db, ids, dayOf(now.In(s.loc)))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, "", recs)
	return nil
}

// insertComponents stores validated components created now, and records the
// reminder at once for a component due two days from today, whose reminder
// day is today.
func (s *Server) insertComponents(ctx context.Context, tx *sql.Tx, list []validComponent, studentOf func(i int) *studentRow, now time.Time) ([]string, error) {
	ins, err := newComponentInserter(ctx, tx)
	if err != nil {
		return nil, err
	}
	defer ins.close()
	remindDay := addDays(dayOf(now.In(s.loc)), 2)
	ids := make([]string, len(list))
	for i, v := range list {
		id, err := uuid.NewV7()
		if err != nil {
			return nil, fmt.Errorf("component id: %w", err)
		}
		st := studentOf(i)
		ids[i] = id.String()
		row := componentRow{
			id: ids[i], studentID: st.id, accountCode: v.accountCode, name: v.name,
			amount: v.amount, penalty: v.penalty, active: v.active, due: v.due, expiry: v.expiry,
			notes: v.notes, createdAt: now,
		}
		if err := ins.insert(ctx, &row); err != nil {
			return nil, err
		}
		if dayOf(v.due) == remindDay {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO reminders (component_id, bill_key, due_at, sent_at, phone, email)
				VALUES (?, ?, ?, ?, ?, ?)`, ids[i], st.BillKeyValue, v.due.Unix(), now.UnixNano(), st.Phone, st.Email); err != nil {
				return nil, fmt.Errorf("record reminder: %w", err)
			}
		}
	}
	return ids, nil
}

// studentCheckout creates a student and their bill in one step, atomically.
func (s *Server) studentCheckout(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		student
		List []json.RawMessage `json:"bill_upload_list"`
	}
	if err := decodeBody(w, r, &req); err != nil {
		return err
	}
	st := req.student
	st.BillKeyName = "NIS"
	var ps problems
	validateStudent(&st, -1, false, &ps)
	var valid []validComponent
	if ps.checkList("bill_upload_list", len(req.List)) {
		inputs, ok := decodeList[componentInput](req.List, &ps)
		valid = make([]validComponent, len(inputs))
		for i := range inputs {
			if ok[i] {
				valid[i] = s.validateComponent(&inputs[i], i, false, &ps)
			}
		}
	}
	now := s.Now()
	var (
		row studentRow
		ids []string
	)
	err := s.store.inTx(r.Context(), func(tx *sql.Tx) error {
		if nisPattern.MatchString(st.BillKeyValue) {
			exists, err := existingNIS(r.Context(), tx, []string{st.BillKeyValue})
			if err != nil {
				return err
			}
			if exists[st.BillKeyValue] {
				ps = append(problems{{Index: -1, Field: "bill_key_value", Message: st.BillKeyValue + " already exists"}}, ps...)
			}
		}
		if len(ps) > 0 {
			return invalid("bill_upload_list", ps)
		}
		rows, err := insertStudents(r.Context(), tx, []student{st}, now.UnixNano(), uuid.NewString)
		if err != nil {
			return err
		}
		row = rows[0]
		ids, err = s.insertComponents(r.Context(), tx, valid, func(int) *studentRow { return &row }, now)
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, "", map[string]any{
		"bill_id":             row.billID,
		"bill_key_value":      row.BillKeyValue,
		"bill_component_list": ids,
	})
	return nil
}

// componentPay records a payment of the listed components of one student.
func (s *Server) componentPay(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		BillKey   string   `json:"bill_key"`
		RefNumber string   `json:"biller_ref_number"`
		IDs       []string `json:"bill_component_list"`
	}
	if err := decodeBody(w, r, &req); err != nil {
		return err
	}
	var ps problems
	if req.BillKey == "" {
		ps.add(-1, "bill_key", "required")
	}
	if blank(req.RefNumber) {
		ps.add(-1, "biller_ref_number", "required")
	}
	if ps.checkList("bill_component_list", len(req.IDs)) {
		first := map[string]int{}
		for i, id := range req.IDs {
			if j, dup := first[id]; dup {
				ps.add(i, "bill_component_list", fmt.Sprintf("repeated (first at index %d)", j))
			} else if id == "" {
				ps.add(i, "bill_component_list", "required")
			}
			first[id] = i
		}
	}
	if len(ps) > 0 {
		return invalid("bill_component_list", ps)
	}
	recs, err := s.store.pay(r.Context(), payment{nis: req.BillKey, refNumber: req.RefNumber, ids: req.IDs}, s.Now(), s.loc)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, "", recs)
	return nil
}
