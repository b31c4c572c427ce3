package sandbox

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
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
	var recs []record
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
		recs, err = s.insertComponents(r.Context(), tx, valid, func(i int) *studentRow { return students[valid[i].billKey] }, now)
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, "", recs)
	return nil
}

// componentCreate uploads one component (POST /bill_component), the same
// fields as an item of the batch.
func (s *Server) componentCreate(w http.ResponseWriter, r *http.Request) error {
	var in componentInput
	if err := decodeBody(w, r, &in); err != nil {
		return err
	}
	var ps problems
	v := s.validateComponent(&in, -1, true, &ps)
	now := s.Now()
	var recs []record
	err := s.store.inTx(r.Context(), func(tx *sql.Tx) error {
		var st studentRow
		if v.billKey != "" {
			var err error
			st, err = studentByNIS(r.Context(), tx, v.billKey)
			switch {
			case errors.Is(err, errNotFound):
				ps.add(-1, "bill_key", "unknown student "+v.billKey)
			case err != nil:
				return err
			}
		}
		if len(ps) > 0 {
			return invalidOne(ps)
		}
		var err error
		recs, err = s.insertComponents(r.Context(), tx, []validComponent{v}, func(int) *studentRow { return &st }, now)
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, "", recs[0])
	return nil
}

// componentGet returns one component record, whatever its state
// (GET /bill_component/get/{id}).
func (s *Server) componentGet(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	recs, err := recordsByID(r.Context(), s.store.db, []string{id}, s.today(), s.stamps)
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		return errorf(http.StatusNotFound, "unknown component %q", id)
	}
	writeJSON(w, http.StatusOK, "", recs[0])
	return nil
}

// componentPatch is the body of PUT /bill_component: the component's id and
// any upload fields; absent ones keep their value. Other fields the
// provider's clients send (last_update_by, biller_code, batch_id, ...) are
// ignored.
type componentPatch struct {
	ID          *string         `json:"id"`
	ComponentID *string         `json:"bill_component_id"`
	BillKey     *string         `json:"bill_key"`
	AccountCode *string         `json:"account_code"`
	Name        *string         `json:"bill_component_name"`
	ExpiryDate  *string         `json:"expiry_date"`
	DueDate     *string         `json:"due_date"`
	ActiveDate  *string         `json:"active_date"`
	Amount      json.RawMessage `json:"amount"`
	Penalty     json.RawMessage `json:"penalty_amount"`
	Notes       *string         `json:"notes"`
}

// componentUpdate changes a provisioned or expired component
// (PUT /bill_component); a paid or deleted one is a 400.
func (s *Server) componentUpdate(w http.ResponseWriter, r *http.Request) error {
	var p componentPatch
	if err := decodeBody(w, r, &p); err != nil {
		return err
	}
	id := ""
	switch {
	case p.ID != nil && *p.ID != "":
		id = *p.ID
	case p.ComponentID != nil:
		id = *p.ComponentID
	}
	if id == "" {
		return errorf(http.StatusBadRequest, "id: required")
	}
	now := s.Now()
	err := s.store.inTx(r.Context(), func(tx *sql.Tx) error {
		cur, err := loadComponent(r.Context(), tx, id)
		if errors.Is(err, errNotFound) {
			return errorf(http.StatusNotFound, "unknown component %q", id)
		}
		if err != nil {
			return err
		}
		switch {
		case cur.deleted:
			return errorf(http.StatusBadRequest, "id: component %s is deleted and cannot be changed", id)
		case cur.paid:
			return errorf(http.StatusBadRequest, "id: component %s is paid and cannot be changed; payment history is kept", id)
		case p.BillKey != nil && *p.BillKey != "" && *p.BillKey != cur.BillKeyValue:
			return errorf(http.StatusBadRequest, "bill_key: a component cannot move to another student (it belongs to %s)", cur.BillKeyValue)
		}
		in := cur.input()
		overlay(&in.AccountCode, p.AccountCode)
		overlay(&in.Name, p.Name)
		overlay(&in.Notes, p.Notes)
		if p.ExpiryDate != nil {
			in.ExpiryDate = p.ExpiryDate
		}
		if p.DueDate != nil {
			in.DueDate = p.DueDate
		}
		if p.ActiveDate != nil {
			in.ActiveDate = p.ActiveDate
		}
		if len(p.Amount) > 0 {
			in.Amount = p.Amount
		}
		if len(p.Penalty) > 0 {
			in.Penalty = p.Penalty
		}
		var ps problems
		v := s.validateComponent(&in, -1, true, &ps)
		if len(ps) > 0 {
			return invalidOne(ps)
		}
		activeAt, activeDay := activeColumns(v.active)
		if _, err := tx.ExecContext(r.Context(), `UPDATE components SET account_code = ?, name = ?, amount = ?, penalty = ?,
			active_at = ?, active_day = ?, due_at = ?, due_day = ?, expiry_at = ?, expiry_day = ?, notes = ?, updated_at = ?
			WHERE id = ?`, v.accountCode, v.name, v.amount, v.penalty, activeAt, activeDay,
			v.due.Unix(), dayOf(v.due.UTC()), v.expiry.Unix(), dayOf(v.expiry.UTC()), v.notes, now.UnixNano(), id); err != nil {
			return fmt.Errorf("update component: %w", err)
		}
		return s.remindIfDue(r.Context(), tx, id, cur.studentRow, v.due, now)
	})
	if err != nil {
		return err
	}
	recs, err := recordsByID(context.WithoutCancel(r.Context()), s.store.db, []string{id}, dayOf(now.In(s.loc)), s.stamps)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, "", recs[0])
	return nil
}

func overlay(dst *string, v *string) {
	if v != nil {
		*dst = *v
	}
}

// componentDelete deletes all listed components or none
// (POST /bill_component/delete); paid or already deleted ones are a 400.
func (s *Server) componentDelete(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		IDs []string `json:"bill_component_id"`
		// transfer_ref and update_by are accepted and not kept.
	}
	if err := decodeBody(w, r, &req); err != nil {
		return err
	}
	var ps problems
	if ps.checkList("bill_component_id", len(req.IDs)) {
		checkIDs("bill_component_id", req.IDs, &ps)
	}
	if len(ps) > 0 {
		return invalid("bill_component_id", ps)
	}
	now := s.Now()
	err := s.store.inTx(r.Context(), func(tx *sql.Tx) error {
		for i, id := range req.IDs {
			cur, err := loadComponent(r.Context(), tx, id)
			if errors.Is(err, errNotFound) {
				return errorf(http.StatusNotFound, "bill_component_id[%d]: unknown component %q", i, id)
			}
			if err != nil {
				return err
			}
			switch {
			case cur.deleted:
				ps.add(i, "bill_component_id", "already deleted")
			case cur.paid:
				ps.add(i, "bill_component_id", "paid, cannot be deleted; payment history is kept")
			}
		}
		if len(ps) > 0 {
			return invalid("bill_component_id", ps)
		}
		stmt, err := tx.PrepareContext(r.Context(), `UPDATE components SET deleted_at = ?, updated_at = ? WHERE id = ?`)
		if err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		defer stmt.Close()
		for _, id := range req.IDs {
			if _, err := stmt.ExecContext(r.Context(), now.UnixNano(), now.UnixNano(), id); err != nil {
				return fmt.Errorf("delete component: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	recs, err := recordsByID(context.WithoutCancel(r.Context()), s.store.db, req.IDs, dayOf(now.In(s.loc)), s.stamps)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, "", recs)
	return nil
}

// checkIDs reports empty and repeated ids of a list.
func checkIDs(field string, ids []string, ps *problems) {
	first := map[string]int{}
	for i, id := range ids {
		if j, dup := first[id]; dup {
			ps.add(i, field, fmt.Sprintf("repeated (first at index %d)", j))
		} else if id == "" {
			ps.add(i, field, "required")
		}
		first[id] = i
	}
}

// insertComponents stores validated components created now, and records the
// reminder at once for a component due two days from today, whose reminder
// day is today. It returns their records, as a read would answer them.
func (s *Server) insertComponents(ctx context.Context, tx *sql.Tx, list []validComponent, studentOf func(i int) *studentRow, now time.Time) ([]record, error) {
	ins, err := newComponentInserter(ctx, tx)
	if err != nil {
		return nil, err
	}
	defer ins.close()
	today := dayOf(now.In(s.loc))
	remindDay := addDays(today, 2)
	recs := make([]record, len(list))
	for i, v := range list {
		id, err := uuid.NewV7()
		if err != nil {
			return nil, fmt.Errorf("component id: %w", err)
		}
		st := studentOf(i)
		row := componentRow{
			id: id.String(), studentID: st.id, accountCode: v.accountCode, name: v.name,
			amount: v.amount, penalty: v.penalty, active: v.active, due: v.due, expiry: v.expiry,
			notes: v.notes, createdAt: now,
		}
		if err := ins.insert(ctx, &row); err != nil {
			return nil, err
		}
		if dayOf(v.due) == remindDay {
			if err := recordReminder(ctx, tx, row.id, st, v.due, now); err != nil {
				return nil, err
			}
		}
		recs[i] = newRecord(&row, st, today, s.stamps)
	}
	return recs, nil
}

// remindIfDue records the reminder at once when a component is now due two
// days from today (its reminder day is today).
func (s *Server) remindIfDue(ctx context.Context, tx *sql.Tx, id string, st studentRow, due, now time.Time) error {
	if dayOf(due) != addDays(dayOf(now.In(s.loc)), 2) {
		return nil
	}
	return recordReminder(ctx, tx, id, &st, due, now)
}

func recordReminder(ctx context.Context, tx *sql.Tx, id string, st *studentRow, due, now time.Time) error {
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO reminders (component_id, bill_key, due_at, sent_at, phone, email)
		VALUES (?, ?, ?, ?, ?, ?)`, id, st.BillKeyValue, due.Unix(), now.UnixNano(), st.Phone, st.Email); err != nil {
		return fmt.Errorf("record reminder: %w", err)
	}
	return nil
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
	st.BillKeyName = defaultKeyName
	var ps problems
	validateStudent(&st, -1, &ps)
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
		recs, err := s.insertComponents(r.Context(), tx, valid, func(int) *studentRow { return &row }, now)
		ids = make([]string, 0, len(recs))
		for _, rec := range recs {
			ids = append(ids, rec.ID)
		}
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

// payRequest is the body of POST /bill_component/pay. biller_code and
// last_update_by, which the provider's clients send, are accepted whatever
// their JSON type and not kept.
type payRequest struct {
	BillKey   string   `json:"bill_key"`
	RefNumber string   `json:"biller_ref_number"`
	IDs       []string `json:"bill_component_list"`
}

// check validates the shape of a payment request.
func (req payRequest) check() error {
	var ps problems
	if req.BillKey == "" {
		ps.add(-1, "bill_key", "required")
	}
	if ps.checkList("bill_component_list", len(req.IDs)) {
		checkIDs("bill_component_list", req.IDs, &ps)
	}
	if len(ps) > 0 {
		return invalid("bill_component_list", ps)
	}
	return nil
}

// componentPay records a payment of the listed components of one student;
// an empty biller_ref_number gets a reference made up by the service.
func (s *Server) componentPay(w http.ResponseWriter, r *http.Request) error {
	var req payRequest
	if err := decodeBody(w, r, &req); err != nil {
		return err
	}
	if err := req.check(); err != nil {
		return err
	}
	now := s.Now()
	ref := strings.TrimSpace(req.RefNumber)
	if ref == "" {
		ref = s.makeRef("SBX", now)
	}
	recs, err := s.store.pay(r.Context(), payment{nis: req.BillKey, refNumber: ref, ids: req.IDs}, now, s.loc, s.stamps)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, "", recs)
	return nil
}

// makeRef makes a reference number: prefix, the service date, 8 random hex digits.
func (s *Server) makeRef(prefix string, now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return prefix + now.In(s.loc).Format("060102") + strings.ToUpper(hex.EncodeToString(b[:]))
}
