package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"

	"github.com/sekolah/portal/internal/billing"
)

// A fee plan's components (internal/plans) carry their natural key in their notes at the
// service: "[plan CODE YYYY-MM]", the plan's code and the period (the month it starts).
// The ledger reads it from the notes on every write, whoever made the component and
// whichever way it reached the ledger (the portal's own write, the sync, a reconcile, a
// first fill after the portal's database was lost), into ledger_plan_components
// (migration 00068): a plan's components are one indexed range.

// PlanKey is the natural key of a fee plan's component, with the student.
type PlanKey struct {
	Code   string // the plan's code: 2–16 of A–Z, 0–9 and "-"
	Period string // "YYYY-MM"
}

// Notes is the key as a component's notes carry it (exactly this: the service's search
// matches notes exactly, so a component sent without an answer is found by it).
func (k PlanKey) Notes() string { return "[plan " + k.Code + " " + k.Period + "]" }

var planKeyPattern = regexp.MustCompile(`\[plan ([A-Z0-9][A-Z0-9-]{1,15}) ([0-9]{4}-(?:0[1-9]|1[0-2]))\]`)

// ParsePlanKey reads the key a component's notes carry, anywhere in them (a person may
// have added words around it since).
func ParsePlanKey(notes string) (PlanKey, bool) {
	if !strings.Contains(notes, "[plan ") {
		return PlanKey{}, false
	}
	m := planKeyPattern.FindStringSubmatch(notes)
	if m == nil {
		return PlanKey{}, false
	}
	return PlanKey{Code: m[1], Period: m[2]}, true
}

// planKeysTx keeps ledger_plan_components true to rows just written: a row whose notes
// carry a key is recorded under it; one that carried a key and no longer does (its notes
// changed) is taken out. known says which rows the ledger held before. A component's
// last row decides; the keys are written fifty a statement.
func planKeysTx(ctx context.Context, tx *sql.Tx, rows []row, known []bool, postgre bool) error {
	type keyed struct {
		id, nis string
		key     PlanKey
	}
	last := make(map[string]int, len(rows))
	for i, r := range rows {
		last[r.ID] = i
	}
	var put []keyed
	var drop []string
	for i, r := range rows {
		if last[r.ID] != i {
			continue
		}
		if k, ok := ParsePlanKey(r.Notes); ok {
			put = append(put, keyed{r.ID, r.NIS, k})
		} else if known[i] {
			drop = append(drop, r.ID)
		}
	}
	const perStatement = 50
	for start := 0; start < len(put); start += perStatement {
		part := put[start:min(start+perStatement, len(put))]
		values := make([]string, len(part))
		args := make([]any, 0, 4*len(part))
		for i, p := range part {
			values[i] = "(" + marks(postgre, 4*i+1, 4) + ")"
			args = append(args, p.id, p.key.Code, p.key.Period, p.nis)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO ledger_plan_components (component_id, plan_code, period, nis)
			VALUES `+strings.Join(values, ", ")+` ON CONFLICT (component_id) DO UPDATE SET plan_code = excluded.plan_code,
			period = excluded.period, nis = excluded.nis`, args...); err != nil {
			return fmt.Errorf("ledger: plan keys: %w", err)
		}
	}
	for start := 0; start < len(drop); start += perStatement {
		part := drop[start:min(start+perStatement, len(drop))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM ledger_plan_components WHERE component_id IN (`+
			marks(postgre, 1, len(part))+`)`, args...); err != nil {
			return fmt.Errorf("ledger: plan keys: %w", err)
		}
	}
	return nil
}

// PlanComponent is one component of a fee plan as the ledger holds it: its student and
// period (from its key), and the component as the billing client would read it today
// (deleted ones included: State says so).
type PlanComponent struct {
	NIS, Period string
	Bill        billing.Bill
}

// PlanComponents are the components of the plan code, deleted ones included, by student
// and period; only those of the students nis when nis is not nil.
func (l *Ledger) PlanComponents(ctx context.Context, code string, nis []string) ([]PlanComponent, error) {
	if nis != nil && len(nis) == 0 {
		return nil, nil
	}
	today := l.today()
	var out []PlanComponent
	read := func(extra string, args ...any) error {
		rows, err := l.sql.QueryContext(ctx, `SELECT `+prefixed("c")+`, k.period FROM ledger_plan_components k
			JOIN ledger_components c ON c.id = k.component_id WHERE k.plan_code = $1`+extra+`
			ORDER BY k.nis, k.period, c.created_us, c.id`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var period string
			r, err := scanRow(withPeriod{rows, &period})
			if err != nil {
				return err
			}
			out = append(out, PlanComponent{NIS: r.NIS, Period: period, Bill: r.bill(today)})
		}
		return rows.Err()
	}
	if nis == nil {
		if err := read("", code); err != nil {
			return nil, fmt.Errorf("ledger: components of plan %s: %w", code, err)
		}
		return out, nil
	}
	const chunk = 100
	for start := 0; start < len(nis); start += chunk {
		part := nis[start:min(start+chunk, len(nis))]
		args := []any{code}
		for _, n := range part {
			args = append(args, n)
		}
		if err := read(` AND k.nis IN (`+placeholders(2, len(part))+`)`, args...); err != nil {
			return nil, fmt.Errorf("ledger: components of plan %s: %w", code, err)
		}
	}
	return out, nil
}

// withPeriod scans a component's row followed by its key's period.
type withPeriod struct {
	rows   *sql.Rows
	period *string
}

func (w withPeriod) Scan(dest ...any) error { return w.rows.Scan(append(dest, w.period)...) }

// PlanCount is how many components of a plan the ledger holds (deleted ones left out),
// and how many of them are paid.
type PlanCount struct {
	Components, Paid int
}

// PlanCounts are the plans' counts, by code.
func (l *Ledger) PlanCounts(ctx context.Context) (map[string]PlanCount, error) {
	rows, err := l.sql.QueryContext(ctx, `SELECT k.plan_code, COUNT(*), SUM(CASE WHEN c.kind = 1 THEN 1 ELSE 0 END)
		FROM ledger_plan_components k JOIN ledger_components c ON c.id = k.component_id WHERE c.kind <> 2 GROUP BY k.plan_code`)
	if err != nil {
		return nil, fmt.Errorf("ledger: plans' counts: %w", err)
	}
	defer rows.Close()
	out := map[string]PlanCount{}
	for rows.Next() {
		var code string
		var n, paid int64
		if err := rows.Scan(&code, &n, &paid); err != nil {
			return nil, fmt.Errorf("ledger: plans' counts: %w", err)
		}
		out[code] = PlanCount{Components: int(n), Paid: int(paid)}
	}
	return out, rows.Err()
}
