package ledger

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/store"
)

// WriteResult counts what a write did.
type WriteResult struct {
	Inserted  int // components the ledger did not have
	Updated   int // components whose fields changed
	Unchanged int // components read again as they were
	Stale     int // records older than what the ledger holds, left alone
}

func (w *WriteResult) add(o WriteResult) {
	w.Inserted += o.Inserted
	w.Updated += o.Updated
	w.Unchanged += o.Unchanged
	w.Stale += o.Stale
}

// Changed is how many components the write changed.
func (w WriteResult) Changed() int { return w.Inserted + w.Updated }

// change is one component a write inserted or changed, for the reconcile's audit.
type change struct {
	old, new row
	inserted bool
}

// writeTx runs fn in a transaction that first takes the ledger's write lock (the one
// ledger_state row). Every ledger write reads the rows it is about to change and adjusts
// the summary totals by the difference: without the lock, a payment callback and a sync
// writing the same component at once would both read it unpaid and both count it paid
// (PostgreSQL's READ COMMITTED lets both read before either commits). After waiting for
// the lock, each statement sees what the previous writer committed; on SQLite the
// transaction becomes the writer at its first statement instead of failing to upgrade.
func (l *Ledger) writeTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return l.db.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE ledger_state SET change_seq = change_seq WHERE name = 'ledger'`); err != nil {
			return fmt.Errorf("ledger: take the write lock: %w", err)
		}
		return fn(tx)
	})
}

// Upsert writes component records as the service answered them (a search page, a
// payment, an update, a deletion) in one transaction, with the totals. A record older
// than what the ledger holds (see supersedes) is left out.
func (l *Ledger) Upsert(ctx context.Context, bills []billing.Bill) (WriteResult, error) {
	return l.upsertWith(ctx, bills, nil)
}

// upsertWith is Upsert with more work in the same transaction: also gets the changes
// made (for the audit log, or a fill's progress).
func (l *Ledger) upsertWith(ctx context.Context, bills []billing.Bill, also func(tx *sql.Tx, changes []change) error) (WriteResult, error) {
	var res WriteResult
	err := l.writeTx(ctx, func(tx *sql.Tx) error {
		var changes []change
		var err error
		if res, changes, err = l.upsertTx(ctx, tx, l.rows(bills), also != nil); err != nil {
			return err
		}
		if also != nil {
			return also(tx, changes)
		}
		return nil
	})
	if err != nil {
		return WriteResult{}, err
	}
	return res, nil
}

func (l *Ledger) rows(bills []billing.Bill) []row {
	out := make([]row, 0, len(bills))
	for _, b := range bills {
		if b.ComponentID == "" {
			continue // nothing to key it by; the service always sends one
		}
		out = append(out, rowOf(b, l.paidDay))
	}
	return out
}

// MarkDeleted records that the service deleted the components ids (the ledger keeps
// them as deleted, out of every figure); ids it does not know are left out.
func (l *Ledger) MarkDeleted(ctx context.Context, ids []string) (WriteResult, error) {
	var res WriteResult
	err := l.writeTx(ctx, func(tx *sql.Tx) error {
		var err error
		res, _, err = l.markDeletedTx(ctx, tx, ids, false)
		return err
	})
	return res, err
}

// StudentRemoved records that the service deleted student nis: as the contract has it,
// their open components are deleted with them (a student with paid ones cannot be
// deleted), and the roster entry goes, in one transaction. The portal's writer calls it
// once the service confirmed; a reconcile would find the same.
func (l *Ledger) StudentRemoved(ctx context.Context, nis string) (WriteResult, error) {
	var res WriteResult
	err := l.writeTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id FROM ledger_components WHERE nis = $1 AND kind = 0`, nis)
		if err != nil {
			return err
		}
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if res, _, err = l.markDeletedTx(ctx, tx, ids, false); err != nil {
			return err
		}
		if err := store.DeleteStudentTx(ctx, tx, nis); err != nil {
			return err
		}
		return bumpChanges(ctx, tx)
	})
	if err != nil {
		return WriteResult{}, fmt.Errorf("ledger: student %s removed: %w", nis, err)
	}
	return res, nil
}

// RecordStudents writes students as the service confirmed them (a create, an update, a
// registration) into the roster, marked with source (store.SourcePortal, ...), and
// moves the change sequence on so live pages show the new names.
func (l *Ledger) RecordStudents(ctx context.Context, ss []billing.Student, source string) error {
	if len(ss) == 0 {
		return nil
	}
	now := l.now()
	entries := make([]store.Student, 0, len(ss))
	for _, s := range ss {
		entries = append(entries, store.Student{NIS: s.NIS, Name: s.Name, KeyName: cmp.Or(s.KeyName, billing.DefaultKeyName),
			Phone: s.Phone, Email: s.Email, Description: s.Description, Source: source, SyncedAt: now})
	}
	err := l.db.InTx(ctx, func(tx *sql.Tx) error {
		if err := l.db.UpsertStudentsTx(ctx, tx, entries); err != nil {
			return err
		}
		return bumpChanges(ctx, tx)
	})
	if err != nil {
		return fmt.Errorf("ledger: record students: %w", err)
	}
	return nil
}

// StudentTotal is what one student owes today: their open, payable components at what
// paying them costs today (the amount, plus the penalty once late), and how many of
// them are late.
type StudentTotal struct {
	Outstanding int64
	Overdue     int
}

// StudentTotals adds up what each of the students nis owes today (a page of the
// roster: one indexed range per student). Students who owe nothing are left out.
func (l *Ledger) StudentTotals(ctx context.Context, nis []string) (map[string]StudentTotal, error) {
	out := make(map[string]StudentTotal, len(nis))
	today := l.today()
	const chunk = 100
	for start := 0; start < len(nis); start += chunk {
		part := nis[start:min(start+chunk, len(nis))]
		args := []any{today}
		for _, n := range part {
			args = append(args, n)
		}
		d := componentsOn("", "$1")
		rows, err := l.sql.QueryContext(ctx, `SELECT nis, SUM(`+d.price()+`), SUM(CASE WHEN `+d.late()+` THEN 1 ELSE 0 END)
			FROM ledger_components WHERE nis IN (`+placeholders(2, len(part))+`) AND `+d.payable()+`
			GROUP BY nis`, args...)
		if err != nil {
			return nil, fmt.Errorf("ledger: student totals: %w", err)
		}
		for rows.Next() {
			var n string
			var owed, late int64
			if err := rows.Scan(&n, &owed, &late); err != nil {
				rows.Close()
				return nil, fmt.Errorf("ledger: student totals: %w", err)
			}
			out[n] = StudentTotal{Outstanding: owed, Overdue: int(late)}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("ledger: student totals: %w", err)
		}
	}
	return out, nil
}

func (l *Ledger) markDeletedTx(ctx context.Context, tx *sql.Tx, ids []string, keep bool) (WriteResult, []change, error) {
	old, err := loadRows(ctx, tx, ids)
	if err != nil {
		return WriteResult{}, nil, err
	}
	var in []row
	for _, id := range ids {
		r, ok := old[id]
		if !ok || r.Kind == kindDeleted {
			continue
		}
		r.Kind, r.State, r.RawState = kindDeleted, string(billing.StateDeleted), string(billing.StateDeleted)
		in = append(in, r)
	}
	return l.writeRows(ctx, tx, in, old, keep)
}

// upsertTx writes rows read from the service; keep asks for the list of changes.
func (l *Ledger) upsertTx(ctx context.Context, tx *sql.Tx, in []row, keep bool) (WriteResult, []change, error) {
	if len(in) == 0 {
		return WriteResult{}, nil, nil
	}
	ids := make([]string, len(in))
	for i, r := range in {
		ids[i] = r.ID
	}
	old, err := loadRows(ctx, tx, ids)
	if err != nil {
		return WriteResult{}, nil, err
	}
	return l.writeRows(ctx, tx, in, old, keep)
}

// writeRows writes each row of in that supersedes what old holds for it, adjusts the
// totals by the difference and bumps the change sequence when anything changed. The rows
// are written upsertRows at a statement (a batch's answer of 200 components is four
// statements, not 200: each statement's own cost, binding and stepping, was a third of
// the ledger's share of a plan's or an upload's chunk).
func (l *Ledger) writeRows(ctx context.Context, tx *sql.Tx, in []row, old map[string]row, keep bool) (WriteResult, []change, error) {
	var res WriteResult
	var changes []change
	var d deltas
	var noted []row  // inserted, or their notes changed: a plan's key is read from them
	var known []bool // of noted, those the ledger held before
	written := micros(l.now())
	var batch []row
	inBatch := map[string]bool{}
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := upsertRowsTx(ctx, tx, batch, written, l.postgre); err != nil {
			return err
		}
		batch = batch[:0]
		clear(inBatch)
		return nil
	}
	for _, r := range in {
		o, exists := old[r.ID]
		switch {
		case exists && !supersedes(r, o):
			res.Stale++
			continue
		case exists && sameRecord(r, o):
			res.Unchanged++
			continue
		}
		if inBatch[r.ID] {
			// A later record of a component already in the statement: written after it
			// (one statement may not change a row twice).
			if err := flush(); err != nil {
				return res, nil, err
			}
		}
		batch = append(batch, r)
		inBatch[r.ID] = true
		if len(batch) == upsertRows {
			if err := flush(); err != nil {
				return res, nil, err
			}
		}
		if exists {
			d.add(o, -1)
			res.Updated++
		} else {
			res.Inserted++
		}
		d.add(r, 1)
		if !exists || o.Notes != r.Notes {
			noted, known = append(noted, r), append(known, exists)
		}
		if keep {
			changes = append(changes, change{old: o, new: r, inserted: !exists})
		}
		old[r.ID] = r // a later record of the same component in this batch compares with this one
	}
	if err := flush(); err != nil {
		return res, nil, err
	}
	if res.Changed() == 0 {
		return res, changes, nil
	}
	if err := planKeysTx(ctx, tx, noted, known, l.postgre); err != nil {
		return res, nil, err
	}
	if err := d.apply(ctx, tx); err != nil {
		return res, nil, err
	}
	return res, changes, bumpChanges(ctx, tx)
}

// upsertRows is how many components one statement writes: 50 × 25 parameters, well
// under either engine's bound (SQLite's 32,766, PostgreSQL's 65,535).
const upsertRows = 50

// upsertRowsTx writes rows (no component twice) in one statement.
func upsertRowsTx(ctx context.Context, tx *sql.Tx, rows []row, written int64, postgre bool) error {
	args := make([]any, 0, len(rows)*upsertCols)
	for _, r := range rows {
		args = append(args, r.args(written)...)
	}
	if _, err := tx.ExecContext(ctx, upsertSQL(len(rows), postgre), args...); err != nil {
		if len(rows) == 1 {
			return fmt.Errorf("ledger: write component %s: %w", rows[0].ID, err)
		}
		return fmt.Errorf("ledger: write %d components from %s: %w", len(rows), rows[0].ID, err)
	}
	return nil
}

// upsertColumns are the columns a write sets, upsertCols their count.
var (
	upsertColumns = componentColumns + ", nis_key, written_us"
	upsertCols    = len(strings.Split(upsertColumns, ","))
)

// upsertStatements holds the statement writing n rows at [postgre][n] (built once each).
var upsertStatements [2][upsertRows + 1]struct {
	once sync.Once
	sql  string
}

// upsertSQL is the statement writing n components (1 ≤ n ≤ upsertRows): inserted, or
// replaced field by field. On SQLite its parameters are ?, not $n: the driver finds each
// $n's name by a walk of the statement's list of names, so binding 1,250 of them took
// longer than writing the rows.
func upsertSQL(n int, postgre bool) string {
	s := &upsertStatements[b2i(postgre)][n]
	s.once.Do(func() {
		var b strings.Builder
		b.WriteString(`INSERT INTO ledger_components (` + upsertColumns + `) VALUES `)
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(" + marks(postgre, i*upsertCols+1, upsertCols) + ")")
		}
		var set []string
		for _, c := range strings.Split(upsertColumns, ",") {
			if c = strings.TrimSpace(c); c != "id" {
				set = append(set, c+" = excluded."+c)
			}
		}
		b.WriteString(` ON CONFLICT (id) DO UPDATE SET ` + strings.Join(set, ", "))
		s.sql = b.String()
	})
	return s.sql
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// marks is n parameters from the from-th: "$from, $from+1, …" on PostgreSQL, "?, ?, …"
// on SQLite (many parameters a statement: see upsertSQL).
func marks(postgre bool, from, n int) string {
	if postgre {
		return placeholders(from, n)
	}
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// loadRows reads the ledger's rows of ids, a hundred at a time: the SQLite driver binds
// $n parameters in time that grows with the square of their count.
func loadRows(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, ids []string) (map[string]row, error) {
	out := make(map[string]row, len(ids))
	const chunk = 100
	for start := 0; start < len(ids); start += chunk {
		part := ids[start:min(start+chunk, len(ids))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		rows, err := q.QueryContext(ctx, `SELECT `+componentColumns+` FROM ledger_components WHERE id IN (`+placeholders(1, len(part))+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("ledger: read components: %w", err)
		}
		for rows.Next() {
			r, err := scanRow(rows)
			if err != nil {
				rows.Close()
				return nil, err
			}
			out[r.ID] = r
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("ledger: read components: %w", err)
		}
	}
	return out, nil
}

// placeholders is "$from, $from+1, …" for n parameters.
func placeholders(from, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "$%d", from+i)
	}
	return b.String()
}

// bumpChanges moves the change sequence on, so pages polling "what changed since" see it.
func bumpChanges(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `UPDATE ledger_state SET change_seq = change_seq + 1 WHERE name = 'ledger'`); err != nil {
		return fmt.Errorf("ledger: bump change sequence: %w", err)
	}
	return nil
}

// ChangeSeq is a number that moves on whenever the ledger changes: a page that saw n
// is out of date once ChangeSeq is not n. It is one indexed read, for polling.
func (l *Ledger) ChangeSeq(ctx context.Context) (int64, error) {
	var n int64
	if err := l.sql.QueryRowContext(ctx, `SELECT change_seq FROM ledger_state WHERE name = 'ledger'`).Scan(&n); err != nil {
		return 0, fmt.Errorf("ledger: change sequence: %w", err)
	}
	return n, nil
}

// The totals' keys and values; see migration 00007.
type (
	openKey struct {
		due, expiry   int64
		account, name string
	}
	openVal struct{ n, amount, penalty int64 }
	paidKey struct {
		paidDay int64
		account string
		due     int64
	}
	paidVal struct{ n, amount, amountPaid, penaltyPaid int64 }
)

// noPaidDay is the paid_day of the paid totals for a payment without a date.
const noPaidDay = -1

// deltas are what a transaction's writes add to and take from the totals.
type deltas struct {
	open map[openKey]openVal
	paid map[paidKey]paidVal
}

// penaltyPaid is the part of what was paid above the component's amount.
func penaltyPaid(amount, paid int64) int64 { return max(paid-amount, 0) }

// add counts r into the totals with sign +1, or takes it out with -1.
func (d *deltas) add(r row, sign int64) {
	switch r.Kind {
	case kindOpen:
		if d.open == nil {
			d.open = map[openKey]openVal{}
		}
		k := openKey{r.DueDay, r.ExpiryDay, r.Account, r.Name}
		v := d.open[k]
		v.n += sign
		v.amount += sign * r.Amount
		v.penalty += sign * r.Penalty
		d.open[k] = v
	case kindPaid:
		if d.paid == nil {
			d.paid = map[paidKey]paidVal{}
		}
		pd := int64(noPaidDay)
		if r.PaidUS != 0 {
			pd = r.PaidDay
		}
		k := paidKey{pd, r.Account, r.DueDay}
		v := d.paid[k]
		v.n += sign
		v.amount += sign * r.Amount
		v.amountPaid += sign * r.AmountPaid
		v.penaltyPaid += sign * penaltyPaid(r.Amount, r.AmountPaid)
		d.paid[k] = v
	}
}

// apply adds the deltas to the totals tables.
func (d *deltas) apply(ctx context.Context, tx *sql.Tx) error {
	if len(d.open) > 0 {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO ledger_open_totals (due_day, expiry_day, account_code, name, components, amount, penalty)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (due_day, expiry_day, account_code, name) DO UPDATE SET
				components = ledger_open_totals.components + excluded.components,
				amount = ledger_open_totals.amount + excluded.amount,
				penalty = ledger_open_totals.penalty + excluded.penalty`)
		if err != nil {
			return fmt.Errorf("ledger: open totals: %w", err)
		}
		defer stmt.Close()
		for k, v := range d.open {
			if v == (openVal{}) {
				continue
			}
			if _, err := stmt.ExecContext(ctx, k.due, k.expiry, k.account, k.name, v.n, v.amount, v.penalty); err != nil {
				return fmt.Errorf("ledger: open totals: %w", err)
			}
		}
	}
	if len(d.paid) > 0 {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO ledger_paid_totals (paid_day, account_code, due_day, components, amount, amount_paid, penalty_paid)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (paid_day, account_code, due_day) DO UPDATE SET
				components = ledger_paid_totals.components + excluded.components,
				amount = ledger_paid_totals.amount + excluded.amount,
				amount_paid = ledger_paid_totals.amount_paid + excluded.amount_paid,
				penalty_paid = ledger_paid_totals.penalty_paid + excluded.penalty_paid`)
		if err != nil {
			return fmt.Errorf("ledger: paid totals: %w", err)
		}
		defer stmt.Close()
		for k, v := range d.paid {
			if v == (paidVal{}) {
				continue
			}
			if _, err := stmt.ExecContext(ctx, k.paidDay, k.account, k.due, v.n, v.amount, v.amountPaid, v.penaltyPaid); err != nil {
				return fmt.Errorf("ledger: paid totals: %w", err)
			}
		}
	}
	return nil
}

// rebuildTotals computes both totals tables again from the components, for a bulk load
// or a change of zone. Groups whose count fell to zero are dropped here (the writes
// leave them, and readers skip them).
func rebuildTotals(ctx context.Context, tx *sql.Tx) error {
	for _, q := range []string{
		`DELETE FROM ledger_open_totals`,
		`DELETE FROM ledger_paid_totals`,
		`INSERT INTO ledger_open_totals (due_day, expiry_day, account_code, name, components, amount, penalty)
			SELECT due_day, expiry_day, account_code, name, COUNT(*), SUM(amount), SUM(penalty)
			FROM ledger_components WHERE kind = 0 GROUP BY due_day, expiry_day, account_code, name`,
		`INSERT INTO ledger_paid_totals (paid_day, account_code, due_day, components, amount, amount_paid, penalty_paid)
			SELECT COALESCE(paid_day, -1), account_code, due_day, COUNT(*), SUM(amount), SUM(amount_paid),
				SUM(CASE WHEN amount_paid > amount THEN amount_paid - amount ELSE 0 END)
			FROM ledger_components WHERE kind = 1 GROUP BY COALESCE(paid_day, -1), account_code, due_day`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("ledger: rebuild totals: %w", err)
		}
	}
	return nil
}

// RebuildTotals computes the totals tables again from the components; the writes keep
// them right, so this is for repairs and bulk loads.
func (l *Ledger) RebuildTotals(ctx context.Context) error {
	return l.writeTx(ctx, func(tx *sql.Tx) error { return rebuildTotals(ctx, tx) })
}
