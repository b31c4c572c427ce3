package sandbox

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Component states.
const (
	stateProvisioned = "provisioned"
	stateExpired     = "expired"
	statePaid        = "paid"
	stateDeleted     = "deleted"
)

// record is a bill component as the searches return it.
type record struct {
	ID          string  `json:"bill_component_id"`
	BillID      string  `json:"bill_id"`
	BillKey     string  `json:"bill_key"`
	BillName    string  `json:"bill_name"`
	AccountCode string  `json:"account_code"`
	Name        string  `json:"bill_component_name"`
	Amount      int64   `json:"amount"`
	Penalty     int64   `json:"penalty_amount"`
	ActiveDate  *string `json:"active_date"`
	DueDate     string  `json:"due_date"`
	ExpiryDate  string  `json:"expiry_date"`
	State       string  `json:"state"`
	AmountPaid  int64   `json:"amount_paid"`
	PaidDate    *string `json:"paid_date"`
	RefNumber   *string `json:"ref_number"`
	Notes       string  `json:"notes"`
	CreatedAt   string  `json:"created_at"`
	UpdatedAt   string  `json:"updated_at"`
}

// componentRow is one stored component as inserted; the demo school and the
// benchmark fill the payment fields directly.
type componentRow struct {
	id          string
	studentID   int64
	accountCode string
	name        string
	amount      int64
	penalty     int64
	active      *time.Time
	due         time.Time
	expiry      time.Time
	notes       string
	createdAt   time.Time
	paidAt      *time.Time // nil: unpaid
	paidDay     int        // service-zone date of paidAt
	amountPaid  int64
	refNumber   string
}

// componentInserter inserts components with one prepared statement.
type componentInserter struct{ stmt *sql.Stmt }

func newComponentInserter(ctx context.Context, tx *sql.Tx) (*componentInserter, error) {
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO components (id, student_id, account_code, name, amount, penalty,
		active_at, active_day, due_at, due_day, expiry_at, expiry_day, paid_at, paid_day, amount_paid, ref_number, notes,
		created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	return &componentInserter{stmt: stmt}, nil
}

func (ci *componentInserter) close() { ci.stmt.Close() }

func (ci *componentInserter) insert(ctx context.Context, c *componentRow) error {
	var paidAt, paidDay, ref any
	activeAt, activeDay := activeColumns(c.active)
	updated := c.createdAt
	if c.paidAt != nil {
		paidAt, paidDay, ref = c.paidAt.UnixNano(), c.paidDay, c.refNumber
		updated = *c.paidAt
	}
	_, err := ci.stmt.ExecContext(ctx, c.id, c.studentID, c.accountCode, c.name, c.amount, c.penalty,
		activeAt, activeDay, c.due.Unix(), dayOf(c.due.UTC()), c.expiry.Unix(), dayOf(c.expiry.UTC()),
		paidAt, paidDay, c.amountPaid, ref, c.notes, c.createdAt.UnixNano(), updated.UnixNano())
	if err != nil {
		return fmt.Errorf("insert component: %w", err)
	}
	return nil
}

// activeColumns are the stored forms of an optional active date.
func activeColumns(active *time.Time) (at, day any) {
	if active == nil {
		return nil, nil
	}
	return active.Unix(), dayOf(active.UTC())
}

const recordColumns = `c.id, s.bill_id, s.nis, s.name, c.account_code, c.name, c.amount, c.penalty,
	c.active_at, c.due_at, c.expiry_at, c.expiry_day, c.paid_at, c.amount_paid, c.ref_number, c.notes, c.created_at,
	c.updated_at, c.deleted_at`

// scanRecords reads rows of recordColumns; today decides expired vs
// provisioned, f how timestamps are written.
func scanRecords(rows *sql.Rows, today int, f stamps) ([]record, error) {
	defer rows.Close()
	out := []record{}
	for rows.Next() {
		var (
			r                         record
			activeAt, paidAt, deleted sql.NullInt64
			dueAt, expiryAt, cr, upd  int64
			expiryDay                 int
			ref                       sql.NullString
		)
		if err := rows.Scan(&r.ID, &r.BillID, &r.BillKey, &r.BillName, &r.AccountCode, &r.Name, &r.Amount, &r.Penalty,
			&activeAt, &dueAt, &expiryAt, &expiryDay, &paidAt, &r.AmountPaid, &ref, &r.Notes, &cr, &upd, &deleted); err != nil {
			return nil, fmt.Errorf("scan component: %w", err)
		}
		if activeAt.Valid {
			v := f.unix(activeAt.Int64)
			r.ActiveDate = &v
		}
		r.DueDate, r.ExpiryDate, r.CreatedAt = f.unix(dueAt), f.unix(expiryAt), f.nanos(cr)
		r.UpdatedAt = f.nanos(max(upd, cr))
		switch {
		case deleted.Valid:
			r.State = stateDeleted
		case paidAt.Valid:
			r.State = statePaid
			v := f.nanos(paidAt.Int64)
			r.PaidDate = &v
			if ref.Valid {
				r.RefNumber = &ref.String
			}
		default:
			r.State = unpaidState(today, expiryDay)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read components: %w", err)
	}
	return out, nil
}

// unpaidState is the state of a component neither paid nor deleted: expired once today
// (YYYYMMDD, the service's zone) is past its expiry day.
func unpaidState(today, expiryDay int) string {
	if today > expiryDay {
		return stateExpired
	}
	return stateProvisioned
}

// newRecord is the record of c, a component just inserted (unpaid) for st, as
// recordsByID would read it back: a batch answers what it made without reading it again.
func newRecord(c *componentRow, st *studentRow, today int, f stamps) record {
	r := record{ID: c.id, BillID: st.billID, BillKey: st.BillKeyValue, BillName: st.Name, AccountCode: c.accountCode,
		Name: c.name, Amount: c.amount, Penalty: c.penalty, Notes: c.notes,
		DueDate: f.unix(c.due.Unix()), ExpiryDate: f.unix(c.expiry.Unix()),
		CreatedAt: f.nanos(c.createdAt.UnixNano()), UpdatedAt: f.nanos(c.createdAt.UnixNano()),
		State: unpaidState(today, dayOf(c.expiry.UTC()))}
	if c.active != nil {
		v := f.unix(c.active.Unix())
		r.ActiveDate = &v
	}
	return r
}

// recordsByID loads the given components in the given order.
func recordsByID(ctx context.Context, q querier, ids []string, today int, f stamps) ([]record, error) {
	if len(ids) == 0 {
		return []record{}, nil
	}
	out := make([]record, 0, len(ids))
	// Chunks keep the statement under SQLite's variable limit.
	for start := 0; start < len(ids); start += 500 {
		chunk := ids[start:min(start+500, len(ids))]
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		rows, err := q.QueryContext(ctx, `SELECT `+recordColumns+` FROM components c JOIN students s ON s.id = c.student_id
			WHERE c.id IN (?`+strings.Repeat(",?", len(chunk)-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("load components: %w", err)
		}
		recs, err := scanRecords(rows, today, f)
		if err != nil {
			return nil, err
		}
		byID := make(map[string]record, len(recs))
		for _, r := range recs {
			byID[r.ID] = r
		}
		for _, id := range chunk {
			if r, ok := byID[id]; ok {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// searchFilter holds the parsed search parameters; zero values mean "any".
type searchFilter struct {
	studentID   int64
	state       string
	accountCode string
	refNumber   string
	notes       string
	hasNotes    bool
	startPayDay int
	endPayDay   int
	startDueDay int
	endDueDay   int
	offset      int
	limit       int
}

// conditions renders the filter as SQL terms on the columns of c.
func (f searchFilter) conditions(today int) (terms []string, args []any) {
	add := func(term string, a ...any) {
		terms = append(terms, term)
		args = append(args, a...)
	}
	if f.studentID != 0 {
		add("c.student_id = ?", f.studentID)
	}
	if f.accountCode != "" {
		add("c.account_code = ?", f.accountCode)
	}
	switch f.state {
	case statePaid:
		add("c.paid_day IS NOT NULL")
		add("c.deleted_at IS NULL")
	case stateExpired:
		add("c.paid_day IS NULL")
		add("c.deleted_at IS NULL")
		add("c.expiry_day < ?", today)
	case stateProvisioned:
		add("c.paid_day IS NULL")
		add("c.deleted_at IS NULL")
		add("c.expiry_day >= ?", today)
	case stateDeleted:
		add("c.deleted_at IS NOT NULL")
	default: // no state: deleted components are left out
		add("c.deleted_at IS NULL")
	}
	if f.startPayDay != 0 || f.endPayDay != 0 {
		add("c.paid_day BETWEEN ? AND ?", f.startPayDay, orMax(f.endPayDay))
	}
	if f.startDueDay != 0 || f.endDueDay != 0 {
		add("c.due_day BETWEEN ? AND ?", f.startDueDay, orMax(f.endDueDay))
	}
	if f.refNumber != "" {
		add("c.ref_number = ?", f.refNumber)
	}
	if f.hasNotes {
		add("c.notes = ?", f.notes)
	}
	return terms, args
}

func orMax(day int) int {
	if day == 0 {
		return 99991231
	}
	return day
}

// probeWindow is how many of the newest components a probe looks at.
const probeWindow = 4000

// search returns the matching components, newest first.
//
// Most searches (state, account and date ranges) match many components spread
// over time, so the page is usually among the newest few thousand: a probe
// walks a created_at index that carries the filter columns and stops after
// probeWindow entries. Only when the probe cannot fill the page does the
// general query run, letting SQLite pick a range index and sort the matches.
func (st *store) search(ctx context.Context, f searchFilter, today int, sf stamps) ([]record, error) {
	terms, args := f.conditions(today)
	where := ""
	if len(terms) > 0 {
		where = " WHERE " + strings.Join(terms, " AND ")
	}
	want := f.offset + f.limit
	var seqs []int64
	if f.studentID == 0 && f.refNumber == "" && !f.hasNotes && want <= probeWindow/4 {
		index, prefix, prefixArgs := "components_created_v2", "", []any(nil)
		if f.accountCode != "" {
			index, prefix, prefixArgs = "components_account_created_v2", " WHERE account_code = ?", []any{f.accountCode}
		}
		q := `SELECT c.seq FROM (SELECT seq, created_at, id, account_code, paid_day, deleted_at, due_day, expiry_day
			FROM components INDEXED BY ` + index + prefix + `
			ORDER BY created_at DESC, id DESC LIMIT ` + itoa(probeWindow) + `) c` + where + ` LIMIT ?`
		var err error
		seqs, err = querySeqs(ctx, st.db, q, append(append(prefixArgs, args...), want)...)
		if err != nil {
			return nil, err
		}
		if len(seqs) < want {
			seqs = nil
		} else {
			seqs = seqs[f.offset:]
		}
	}
	if seqs == nil {
		q := `SELECT c.seq FROM components c` + where + ` ORDER BY c.created_at DESC, c.id DESC LIMIT ? OFFSET ?`
		var err error
		if seqs, err = querySeqs(ctx, st.db, q, append(args, f.limit, f.offset)...); err != nil {
			return nil, err
		}
	}
	if len(seqs) == 0 {
		return []record{}, nil
	}
	in := make([]any, len(seqs))
	for i, v := range seqs {
		in[i] = v
	}
	rows, err := st.db.QueryContext(ctx, `SELECT `+recordColumns+` FROM components c JOIN students s ON s.id = c.student_id
		WHERE c.seq IN (?`+strings.Repeat(",?", len(seqs)-1)+`) ORDER BY c.created_at DESC, c.id DESC`, in...)
	if err != nil {
		return nil, fmt.Errorf("search components: %w", err)
	}
	return scanRecords(rows, today, sf)
}

func querySeqs(ctx context.Context, q querier, query string, args ...any) ([]int64, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("search components: %w", err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("search components: %w", err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search components: %w", err)
	}
	return out, nil
}

// payment is a validated pay request.
type payment struct {
	nis       string
	refNumber string
	ids       []string
}

// pay records the payment of all listed components or of none.
func (st *store) pay(ctx context.Context, p payment, now time.Time, loc *time.Location, sf stamps) ([]record, error) {
	today := dayOf(now.In(loc))
	err := st.inTx(ctx, func(tx *sql.Tx) error {
		stu, err := studentByNIS(ctx, tx, p.nis)
		if errors.Is(err, errNotFound) {
			return errorf(404, "bill_key: unknown student %q", p.nis)
		}
		if err != nil {
			return err
		}
		get, err := tx.PrepareContext(ctx, `SELECT student_id, amount, penalty, active_day, due_day, expiry_day,
			paid_day IS NOT NULL, deleted_at IS NOT NULL FROM components WHERE id = ?`)
		if err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		defer get.Close()
		upd, err := tx.PrepareContext(ctx, `UPDATE components SET paid_at = ?, paid_day = ?, amount_paid = ?, ref_number = ?,
			updated_at = ? WHERE id = ?`)
		if err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		defer upd.Close()
		var problems []problem
		amounts := make([]int64, len(p.ids))
		for i, id := range p.ids {
			var (
				studentID, amount, penalty int64
				activeDay                  sql.NullInt64
				dueDay, expiryDay          int
				paid, deleted              bool
			)
			err := get.QueryRowContext(ctx, id).Scan(&studentID, &amount, &penalty, &activeDay, &dueDay, &expiryDay, &paid, &deleted)
			if errors.Is(err, sql.ErrNoRows) {
				return errorf(404, "bill_component_list[%d]: unknown component %q", i, id)
			}
			if err != nil {
				return fmt.Errorf("load component: %w", err)
			}
			msg := ""
			switch {
			case studentID != stu.id:
				msg = "component does not belong to bill_key " + p.nis
			case deleted:
				msg = "deleted, cannot be paid"
			case paid:
				msg = "already paid"
			case today > expiryDay:
				msg = "expired, cannot be paid"
			case activeDay.Valid && int(activeDay.Int64) > today:
				msg = "not active yet"
			}
			if msg != "" {
				problems = append(problems, problem{Index: i, Field: "bill_component_list", Message: msg})
				continue
			}
			amounts[i] = amount
			if today > dueDay {
				amounts[i] += penalty
			}
		}
		if problems != nil {
			return invalid("bill_component_list", problems)
		}
		for i, id := range p.ids {
			if _, err := upd.ExecContext(ctx, now.UnixNano(), today, amounts[i], p.refNumber, now.UnixNano(), id); err != nil {
				return fmt.Errorf("mark paid: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return recordsByID(ctx, st.db, p.ids, today, sf)
}

// storedComponent is one component as stored, with its student, for the
// writes that check its state first (update, delete).
type storedComponent struct {
	studentRow
	accountCode, name, notes string
	amount, penalty          int64
	activeAt                 sql.NullInt64
	dueAt, expiryAt          int64
	paid, deleted            bool
}

// loadComponent reads one component; errNotFound when unknown.
func loadComponent(ctx context.Context, q querier, id string) (storedComponent, error) {
	var c storedComponent
	err := q.QueryRowContext(ctx, `SELECT s.id, s.bill_id, s.nis, s.name, s.key_name, s.phone, s.email, s.description,
		c.account_code, c.name, c.notes, c.amount, c.penalty, c.active_at, c.due_at, c.expiry_at,
		c.paid_day IS NOT NULL, c.deleted_at IS NOT NULL
		FROM components c JOIN students s ON s.id = c.student_id WHERE c.id = ?`, id).Scan(
		&c.id, &c.billID, &c.BillKeyValue, &c.Name, &c.BillKeyName, &c.Phone, &c.Email, &c.Description,
		&c.accountCode, &c.name, &c.notes, &c.amount, &c.penalty, &c.activeAt, &c.dueAt, &c.expiryAt,
		&c.paid, &c.deleted)
	if errors.Is(err, sql.ErrNoRows) {
		return c, errNotFound
	}
	if err != nil {
		return c, fmt.Errorf("load component: %w", err)
	}
	return c, nil
}

// input is the component as an upload, so that an update validates the
// merged fields with the same rules as an upload.
func (c storedComponent) input() componentInput {
	ts := func(sec int64) *string {
		v := time.Unix(sec, 0).UTC().Format(timeLayout)
		return &v
	}
	in := componentInput{
		BillKey: c.BillKeyValue, AccountCode: c.accountCode, Name: c.name, Notes: c.notes,
		ExpiryDate: ts(c.expiryAt), DueDate: ts(c.dueAt),
		Amount:  json.RawMessage(strconv.FormatInt(c.amount, 10)),
		Penalty: json.RawMessage(strconv.FormatInt(c.penalty, 10)),
	}
	if c.activeAt.Valid {
		in.ActiveDate = ts(c.activeAt.Int64)
	}
	return in
}
