package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// PlanJobsTable is the table of fee plans' apply jobs (00067): store.JobLeases serves
// their leases.
const PlanJobsTable JobTable = "plan_jobs"

// PlanJob is a fee plan applied: the components a preview showed, created in chunks
// under a lease (internal/plans on internal/jobs).
type PlanJob struct {
	ID, PlanID, PlanCode string
	// Selection says what the person chose (classes, NIS), for the page.
	Selection                          string
	FromMonth, ToMonth                 string
	State                              string
	ActorID, Actor, ActorRole, ActorIP string
	// Total is the items (components to create and those a 100% discount waives);
	// Amount and Discount the rupiah to charge and given off; Existing the components
	// the preview found there already (not items).
	Total                             int
	Amount, Discount                  int64
	Existing                          int
	Done, Failed, Skipped, Recognised int
	// UndoJob is the correction job that cancelled what the apply made ("" until undone).
	UndoJob                          string
	WaitingSince, HurryAt            time.Time
	CreatedAt, UpdatedAt, FinishedAt time.Time
}

// PlanItem is one component of an apply job (or one waived by a 100% discount: skipped).
type PlanItem struct {
	JobID                                 string
	Seq, Chunk                            int
	NIS, StudentName, Class, Period, Name string
	FullAmount, Amount, Penalty           int64
	// Due, Expiry and Active are component days (UTC midnight; Active zero: none).
	Due, Expiry, Active time.Time
	DiscountID          string
	State, Problem      string
	// ComponentID is the component the service made for it, once known.
	ComponentID string
	Attempts    int
	UpdatedAt   time.Time
}

const planJobCols = `id, plan_id, plan_code, selection, from_month, to_month, state, actor_id, actor, actor_role, actor_ip,
	total, amount, discount, existing, done_count, failed_count, skipped_count, recognised, undo_job, waiting_since, hurry_at,
	created_at, updated_at, finished_at`

func scanPlanJob(row interface{ Scan(...any) error }) (PlanJob, error) {
	var j PlanJob
	var waiting, hurry, created, updated, finished nullTime
	err := row.Scan(&j.ID, &j.PlanID, &j.PlanCode, &j.Selection, &j.FromMonth, &j.ToMonth, &j.State, &j.ActorID, &j.Actor,
		&j.ActorRole, &j.ActorIP, &j.Total, &j.Amount, &j.Discount, &j.Existing, &j.Done, &j.Failed, &j.Skipped, &j.Recognised,
		&j.UndoJob, &waiting, &hurry, &created, &updated, &finished)
	j.WaitingSince, j.HurryAt = waiting.Time, hurry.Time
	j.CreatedAt, j.UpdatedAt, j.FinishedAt = created.Time, updated.Time, finished.Time
	return j, err
}

func dayString(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.DateOnly)
}

func parseDayString(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, _ := time.Parse(time.DateOnly, s)
	return t
}

// CreatePlanJob stores an apply job with its items and the audit entry of its
// submission, in one transaction.
func (db *DB) CreatePlanJob(ctx context.Context, j PlanJob, items []PlanItem, entry AuditEntry) error {
	now := db.Now()
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO plan_jobs (id, plan_id, plan_code, selection, from_month, to_month, state,
			actor_id, actor, actor_role, actor_ip, total, amount, discount, existing, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16)`,
			j.ID, j.PlanID, j.PlanCode, j.Selection, j.FromMonth, j.ToMonth, j.State, j.ActorID, j.Actor, j.ActorRole, j.ActorIP,
			len(items), j.Amount, j.Discount, j.Existing, now); err != nil {
			return err
		}
		if err := insertPlanItems(ctx, tx, db.dialect, j.ID, items, now); err != nil {
			return err
		}
		if err := recountPlanJob(ctx, tx, j.ID, now); err != nil {
			return err
		}
		return AppendAuditTx(ctx, tx, entry)
	})
	if err != nil {
		return fmt.Errorf("store: create plan job: %w", err)
	}
	return nil
}

// planItemRows is how many items one statement inserts (18 parameters each).
const planItemRows = 50

// insertPlanItems inserts a job's items, planItemRows a statement: 12,000 components
// are 240 statements, not 12,000. On SQLite the parameters are ?, not $n: the driver
// finds each $n's name by walking the statement's list of names, which for 900 of them
// costs more than the insert.
func insertPlanItems(ctx context.Context, tx *sql.Tx, dialect, jobID string, items []PlanItem, now time.Time) error {
	const cols = 18
	for start := 0; start < len(items); start += planItemRows {
		part := items[start:min(start+planItemRows, len(items))]
		values := make([]string, len(part))
		args := make([]any, 0, cols*len(part))
		for i, it := range part {
			values[i] = "(" + params(dialect, i*cols+1, cols) + ")"
			args = append(args, jobID, it.Seq, it.Chunk, it.NIS, it.StudentName, it.Class, it.Period, it.Name,
				it.FullAmount, it.Amount, it.Penalty, dayString(it.Due), dayString(it.Expiry), dayString(it.Active),
				it.DiscountID, it.State, it.Problem, now)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO plan_items (job_id, seq, chunk, nis, student_name, class, period,
			item_name, full_amount, amount, penalty, due_day, expiry_day, active_day, discount_id, state, problem, updated_at)
			VALUES `+strings.Join(values, ", "), args...); err != nil {
			return err
		}
	}
	return nil
}

// params is n parameters from the from-th: "$from, $from+1, …" on PostgreSQL, "?, ?, …"
// on SQLite (see insertPlanItems).
func params(dialect string, from, n int) string {
	if dialect != DialectPostgres {
		return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
	}
	p := make([]string, n)
	for i := range p {
		p[i] = fmt.Sprintf("$%d", from+i)
	}
	return strings.Join(p, ", ")
}

// recountPlanJob sets the job's counts from its items' states.
func recountPlanJob(ctx context.Context, tx *sql.Tx, id string, now time.Time) error {
	_, err := tx.ExecContext(ctx, `UPDATE plan_jobs SET updated_at = $2,
		done_count = (SELECT COUNT(*) FROM plan_items WHERE job_id = $1 AND state = 'done'),
		failed_count = (SELECT COUNT(*) FROM plan_items WHERE job_id = $1 AND state = 'failed'),
		skipped_count = (SELECT COUNT(*) FROM plan_items WHERE job_id = $1 AND state = 'skipped')
		WHERE id = $1`, id, now)
	return err
}

// PlanJobByID reads one apply job (ErrNotFound when there is none).
func (db *DB) PlanJobByID(ctx context.Context, id string) (PlanJob, error) {
	j, err := scanPlanJob(db.sql.QueryRowContext(ctx, `SELECT `+planJobCols+` FROM plan_jobs WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return j, fmt.Errorf("store: plan job %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return j, fmt.Errorf("store: plan job %s: %w", id, err)
	}
	return j, nil
}

// PlanJobs lists apply jobs, oldest first: those in any of states, or, with planID set,
// that plan's (newest first, at most limit).
func (db *DB) PlanJobs(ctx context.Context, planID string, limit int, states ...string) ([]PlanJob, error) {
	var where []string
	var args []any
	order := ` ORDER BY created_at, id`
	if planID != "" {
		args = append(args, planID)
		where = append(where, fmt.Sprintf("plan_id = $%d", len(args)))
		order = ` ORDER BY created_at DESC, id DESC`
	}
	if len(states) > 0 {
		ph := make([]string, len(states))
		for i, s := range states {
			args = append(args, s)
			ph[i] = fmt.Sprintf("$%d", len(args))
		}
		where = append(where, `state IN (`+strings.Join(ph, ", ")+`)`)
	}
	q := `SELECT ` + planJobCols + ` FROM plan_jobs`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	q += order
	if limit > 0 {
		args = append(args, limit)
		q += fmt.Sprintf(" LIMIT $%d", len(args))
	}
	rows, err := db.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: plan jobs: %w", err)
	}
	defer rows.Close()
	var out []PlanJob
	for rows.Next() {
		j, err := scanPlanJob(rows)
		if err != nil {
			return nil, fmt.Errorf("store: plan jobs: %w", err)
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// PlanItems lists a job's items in any of states (all when none), in order.
func (db *DB) PlanItems(ctx context.Context, jobID string, states ...string) ([]PlanItem, error) {
	where := ` WHERE job_id = $1`
	args := []any{jobID}
	if len(states) > 0 {
		ph := make([]string, len(states))
		for i, s := range states {
			args = append(args, s)
			ph[i] = fmt.Sprintf("$%d", len(args))
		}
		where += ` AND state IN (` + strings.Join(ph, ", ") + `)`
	}
	return db.planItems(ctx, where, args...)
}

// PlanItemStudents lists the students (NIS) of a job's items in state, each once, in
// the order of their first item.
func (db *DB) PlanItemStudents(ctx context.Context, jobID, state string) ([]string, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT nis FROM plan_items WHERE job_id = $1 AND state = $2
		GROUP BY nis ORDER BY MIN(seq)`, jobID, state)
	if err != nil {
		return nil, fmt.Errorf("store: students of plan job %s: %w", jobID, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var nis string
		if err := rows.Scan(&nis); err != nil {
			return nil, fmt.Errorf("store: students of plan job %s: %w", jobID, err)
		}
		out = append(out, nis)
	}
	return out, rows.Err()
}

// PlanChunk lists the items of one chunk of a job, in order.
func (db *DB) PlanChunk(ctx context.Context, jobID string, chunk int) ([]PlanItem, error) {
	return db.planItems(ctx, ` WHERE job_id = $1 AND chunk = $2`, jobID, chunk)
}

func (db *DB) planItems(ctx context.Context, where string, args ...any) ([]PlanItem, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT job_id, seq, chunk, nis, student_name, class, period, item_name, full_amount,
		amount, penalty, due_day, expiry_day, active_day, discount_id, state, problem, component_id, attempts, updated_at
		FROM plan_items`+where+` ORDER BY seq`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: plan items: %w", err)
	}
	defer rows.Close()
	var out []PlanItem
	for rows.Next() {
		var it PlanItem
		var due, expiry, active string
		var updated nullTime
		if err := rows.Scan(&it.JobID, &it.Seq, &it.Chunk, &it.NIS, &it.StudentName, &it.Class, &it.Period, &it.Name,
			&it.FullAmount, &it.Amount, &it.Penalty, &due, &expiry, &active, &it.DiscountID, &it.State, &it.Problem,
			&it.ComponentID, &it.Attempts, &updated); err != nil {
			return nil, fmt.Errorf("store: plan items: %w", err)
		}
		it.Due, it.Expiry, it.Active, it.UpdatedAt = parseDayString(due), parseDayString(expiry), parseDayString(active), updated.Time
		out = append(out, it)
	}
	return out, rows.Err()
}

// PlanOpenChunks lists the chunks of a job with items pending or sent, in order.
func (db *DB) PlanOpenChunks(ctx context.Context, jobID string) ([]int, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT DISTINCT chunk FROM plan_items WHERE job_id = $1 AND state IN ('pending', 'sent')
		ORDER BY chunk`, jobID)
	if err != nil {
		return nil, fmt.Errorf("store: open chunks of plan job %s: %w", jobID, err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("store: open chunks of plan job %s: %w", jobID, err)
		}
		out = append(out, int(n))
	}
	return out, rows.Err()
}

// PlanItemChange is a new state of one item: its problem, the time it carries (for one
// sent: when its call left or ended without an answer), the state it leaves (From: the
// job's counts move by it) and, when known, its component.
type PlanItemChange struct {
	Seq                  int
	From, State, Problem string
	At                   time.Time
	ComponentID          string
}

// SavePlanItems records the changes of a job's items, and moves the job's counts by
// them, in one transaction. Items sharing a state, a problem and a time are updated by
// runs of consecutive seq (a chunk's items are mostly one run): a chunk of 200 is a
// statement or two, not 200. Those whose component is now known are updated fifty a
// statement, each given its own (a chunk's answer is four statements, not 200). An item
// moving to sent counts an attempt; a component id, once known, is kept.
func (db *DB) SavePlanItems(ctx context.Context, jobID string, changes []PlanItemChange) error {
	if len(changes) == 0 {
		return nil
	}
	type group struct {
		state, problem string
		at             time.Time
	}
	var order, madeOrder []group
	seqs := map[group][]int{}
	made := map[group][]PlanItemChange{}
	delta := map[string]int{}
	for _, c := range changes {
		if c.From != c.State {
			delta[c.From]--
			delta[c.State]++
		}
		g := group{c.State, c.Problem, Time(c.At)}
		if c.ComponentID != "" {
			// Its state and its component together.
			if _, ok := made[g]; !ok {
				madeOrder = append(madeOrder, g)
			}
			made[g] = append(made[g], c)
			continue
		}
		if _, ok := seqs[g]; !ok {
			order = append(order, g)
		}
		seqs[g] = append(seqs[g], c.Seq)
	}
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		for _, g := range order {
			list := seqs[g]
			slices.Sort(list)
			for i := 0; i < len(list); {
				j := i
				for j+1 < len(list) && list[j+1] == list[j]+1 {
					j++
				}
				if _, err := tx.ExecContext(ctx, `UPDATE plan_items SET
					attempts = attempts + CASE WHEN $3 = 'sent' AND state <> 'sent' THEN 1 ELSE 0 END,
					state = $3, problem = $4, updated_at = $5
					WHERE job_id = $1 AND seq BETWEEN $2 AND $6`, jobID, list[i], g.state, g.problem, g.at, list[j]); err != nil {
					return err
				}
				i = j + 1
			}
		}
		for _, g := range madeOrder {
			if err := setPlanItemsMade(ctx, tx, jobID, g.state, g.problem, g.at, made[g]); err != nil {
				return err
			}
		}
		if delta["done"] == 0 && delta["failed"] == 0 && delta["skipped"] == 0 {
			return nil
		}
		_, err := tx.ExecContext(ctx, `UPDATE plan_jobs SET updated_at = $2, done_count = done_count + $3,
			failed_count = failed_count + $4, skipped_count = skipped_count + $5 WHERE id = $1`,
			jobID, db.Now(), delta["done"], delta["failed"], delta["skipped"])
		return err
	})
	if err != nil {
		return fmt.Errorf("store: plan items of %s: %w", jobID, err)
	}
	return nil
}

// setPlanItemsMade gives items of one state, problem and time their components: fifty
// a statement (a hundred parameters and a few: the SQLite driver binds $n parameters in
// time that grows with the square of their count), each item its own component by a
// CASE on its seq.
func setPlanItemsMade(ctx context.Context, tx *sql.Tx, jobID, state, problem string, at time.Time, list []PlanItemChange) error {
	const rows = 50
	for start := 0; start < len(list); start += rows {
		part := list[start:min(start+rows, len(list))]
		args := make([]any, 0, 4+2*len(part))
		args = append(args, jobID, state, problem, at)
		var cases strings.Builder
		in := make([]string, len(part))
		for i, c := range part {
			args = append(args, c.Seq, c.ComponentID)
			fmt.Fprintf(&cases, " WHEN $%d THEN $%d", len(args)-1, len(args))
			in[i] = fmt.Sprintf("$%d", len(args)-1)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE plan_items SET
			attempts = attempts + CASE WHEN $2 = 'sent' AND state <> 'sent' THEN 1 ELSE 0 END,
			state = $2, problem = $3, updated_at = $4, component_id = CASE seq`+cases.String()+` ELSE component_id END
			WHERE job_id = $1 AND seq IN (`+strings.Join(in, ", ")+`)`, args...); err != nil {
			return err
		}
	}
	return nil
}

// SetPlanItemComponents records the components the service made for items (by seq).
func (db *DB) SetPlanItemComponents(ctx context.Context, jobID string, ids map[int]string) error {
	if len(ids) == 0 {
		return nil
	}
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `UPDATE plan_items SET component_id = $3 WHERE job_id = $1 AND seq = $2`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for seq, id := range ids {
			if _, err := stmt.ExecContext(ctx, jobID, seq, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: components of plan job %s: %w", jobID, err)
	}
	return nil
}

// SetPlanJobState moves the job to state (recognised is the items a check found at the
// service, added up by the runner); a finished job gets its finishing time.
func (db *DB) SetPlanJobState(ctx context.Context, id, state string, recognised int, finished bool) error {
	now := db.Now()
	var fin any
	if finished {
		fin = now
	}
	if _, err := db.sql.ExecContext(ctx, `UPDATE plan_jobs SET state = $2, updated_at = $3, recognised = recognised + $4,
		finished_at = CASE WHEN $5 THEN COALESCE(finished_at, $3) ELSE NULL END, waiting_since = NULL WHERE id = $1`,
		id, state, now, recognised, fin != nil); err != nil {
		return fmt.Errorf("store: plan job %s: %w", id, err)
	}
	return nil
}

// SetPlanWaiting records since when the job waits for the service (zero: it answers).
func (db *DB) SetPlanWaiting(ctx context.Context, id string, since time.Time) error {
	if _, err := db.sql.ExecContext(ctx, `UPDATE plan_jobs SET waiting_since = $2 WHERE id = $1`, id, nullable(since)); err != nil {
		return fmt.Errorf("store: plan job %s: %w", id, err)
	}
	return nil
}

// HurryPlanJob records that a person asked a waiting job to try again now.
func (db *DB) HurryPlanJob(ctx context.Context, id string) error {
	if _, err := db.sql.ExecContext(ctx, `UPDATE plan_jobs SET hurry_at = $2 WHERE id = $1`, id, db.Now()); err != nil {
		return fmt.Errorf("store: plan job %s: %w", id, err)
	}
	return nil
}

// RetryPlanJob makes a finished job's items that were given up unsent (problem unsent)
// pending again and queues the job; it reports how many. Items the service refused stay.
func (db *DB) RetryPlanJob(ctx context.Context, id, unsentPrefix string) (int, error) {
	var n int64
	now := db.Now()
	err := db.InTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE plan_items SET state = 'pending', problem = '', updated_at = $2
			WHERE job_id = $1 AND state = 'failed' AND problem LIKE $3`, id, now, unsentPrefix+"%")
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE plan_jobs SET state = 'queued', finished_at = NULL WHERE id = $1`, id); err != nil {
			return err
		}
		return recountPlanJob(ctx, tx, id, now)
	})
	if err != nil {
		return 0, fmt.Errorf("store: retry plan job %s: %w", id, err)
	}
	return int(n), nil
}

// ClaimPlanUndo marks the job as being undone by correction job undoJob, once: false when
// it was undone (or is being undone) already.
func (db *DB) ClaimPlanUndo(ctx context.Context, id, undoJob string) (bool, error) {
	res, err := db.sql.ExecContext(ctx, `UPDATE plan_jobs SET undo_job = $2 WHERE id = $1 AND undo_job = ''`, id, undoJob)
	if err != nil {
		return false, fmt.Errorf("store: undo of plan job %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// SwapPlanUndo replaces the job's undo from `from` to `to` (a claim made with
// ClaimPlanUndo becomes the correction job's id, or "" when it could not be made).
func (db *DB) SwapPlanUndo(ctx context.Context, id, from, to string) error {
	if _, err := db.sql.ExecContext(ctx, `UPDATE plan_jobs SET undo_job = $3 WHERE id = $1 AND undo_job = $2`, id, from, to); err != nil {
		return fmt.Errorf("store: undo of plan job %s: %w", id, err)
	}
	return nil
}
