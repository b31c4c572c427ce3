package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"strings"

	"github.com/sekolah/portal/internal/billing"
)

// where builds a WHERE clause with $n parameters.
type where struct {
	terms []string
	args  []any
}

// add appends a term whose "?" marks are replaced by the next parameters.
func (w *where) add(term string, args ...any) {
	for _, a := range args {
		w.args = append(w.args, a)
		term = strings.Replace(term, "?", fmt.Sprintf("$%d", len(w.args)), 1)
	}
	w.terms = append(w.terms, term)
}

// arg adds one parameter and returns its placeholder.
func (w *where) arg(v any) string {
	w.args = append(w.args, v)
	return fmt.Sprintf("$%d", len(w.args))
}

func (w *where) sql() string {
	if len(w.terms) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.terms, " AND ")
}

// queryTerms adds the search filters of q as the service reads them, on day today.
func queryTerms(w *where, q billing.Query, today int64) {
	switch q.State {
	case "":
		w.add("c.kind <> 2")
	case billing.StateProvisioned:
		w.add("c.kind = 0")
		w.add("c.expiry_day >= ?", today)
	case billing.StateExpired:
		w.add("c.kind = 0")
		w.add("c.expiry_day < ?", today)
	case billing.StatePaid:
		w.add("c.kind = 1")
	case StateDeleted:
		w.add("c.kind = 2")
	default:
		w.add("1 = 0") // the service refuses an unknown state
	}
	if q.AccountCode != "" {
		w.add("c.account_code = ?", q.AccountCode)
	}
	if q.RefNumber != "" {
		w.add("c.ref_number = ?", q.RefNumber)
	}
	if q.Notes != "" {
		w.add("c.notes = ?", q.Notes)
	}
	if !q.PaidFrom.IsZero() || !q.PaidTo.IsZero() {
		w.add("c.paid_day IS NOT NULL")
		w.add("c.kind = 1") // only paid rows have a payment day; says so to SQLite's partial index
	}
	if !q.PaidFrom.IsZero() {
		w.add("c.paid_day >= ?", dayNum(q.PaidFrom))
	}
	if !q.PaidTo.IsZero() {
		w.add("c.paid_day <= ?", dayNum(q.PaidTo))
	}
	if !q.DueFrom.IsZero() {
		w.add("c.due_day >= ?", dayNum(q.DueFrom))
	}
	if !q.DueTo.IsZero() {
		w.add("c.due_day <= ?", dayNum(q.DueTo))
	}
}

// iterPage is how many rows each query of an iterator reads.
const iterPage = 1000

// All yields every component matching q, newest first, like the billing client's All
// over the service: the same filters (State "" leaves deleted ones out; provisioned and
// expired are decided by today), from q.Offset on. It reads a page at a time by key, so
// no query stays open while the caller works.
func (l *Ledger) All(ctx context.Context, q billing.Query) iter.Seq2[billing.Bill, error] {
	return l.all(ctx, "", q)
}

// AllForStudent is All over one student's components.
func (l *Ledger) AllForStudent(ctx context.Context, nis string, q billing.Query) iter.Seq2[billing.Bill, error] {
	return l.all(ctx, nis, q)
}

func (l *Ledger) all(ctx context.Context, nis string, q billing.Query) iter.Seq2[billing.Bill, error] {
	return func(yield func(billing.Bill, error) bool) {
		today := l.today()
		offset := max(q.Offset, 0)
		var after *row // the last row yielded: the next page starts below it
		for {
			var w where
			queryTerms(&w, q, today)
			if nis != "" {
				w.add("c.nis = ?", nis)
			}
			if after != nil {
				w.add("(c.created_us < ? OR c.created_us = ? AND c.id < ?)", after.CreatedUS, after.CreatedUS, after.ID)
			}
			query := `SELECT ` + prefixed("c") + ` FROM ledger_components c` + w.sql() +
				` ORDER BY c.created_us DESC, c.id DESC LIMIT ` + w.arg(iterPage)
			if offset > 0 {
				query += ` OFFSET ` + w.arg(offset)
				offset = 0
			}
			page, err := l.queryRows(ctx, query, w.args...)
			if err != nil {
				yield(billing.Bill{}, fmt.Errorf("ledger: components: %w", err))
				return
			}
			if nis != "" && after == nil && len(page) == 0 {
				// Like the service: a student it does not know is an error, not an empty list.
				if known, err := l.studentKnown(ctx, nis); err != nil || !known {
					if err == nil {
						err = fmt.Errorf("%w: student %s", billing.ErrNotFound, nis)
					}
					yield(billing.Bill{}, fmt.Errorf("ledger: components of %s: %w", nis, err))
					return
				}
			}
			for _, r := range page {
				if !yield(r.bill(today), nil) {
					return
				}
			}
			if len(page) < iterPage {
				return
			}
			after = &page[len(page)-1]
		}
	}
}

// queryRows runs a query of componentColumns (as prefixed) and reads every row.
func (l *Ledger) queryRows(ctx context.Context, query string, args ...any) ([]row, error) {
	return queryRowsOn(ctx, l.sql, query, args...)
}

func queryRowsOn(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string, args ...any) ([]row, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []row
	for rows.Next() {
		r, err := scanRow(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// studentKnown reports whether the roster or the ledger knows the student (a student
// whose components were all deleted is still known).
func (l *Ledger) studentKnown(ctx context.Context, nis string) (bool, error) {
	var n int
	err := l.sql.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM students WHERE nis = $1) +
		(SELECT COUNT(*) FROM (SELECT 1 FROM ledger_components WHERE nis = $1 LIMIT 1) x)`, nis).Scan(&n)
	return n > 0, err
}

// Component is one component by its id, deleted ones included (their State says so);
// billing.ErrNotFound when the ledger does not hold it.
func (l *Ledger) Component(ctx context.Context, id string) (billing.Bill, error) {
	rows, err := l.queryRows(ctx, `SELECT `+prefixed("c")+` FROM ledger_components c WHERE c.id = $1`, id)
	if err != nil {
		return billing.Bill{}, fmt.Errorf("ledger: component %s: %w", id, err)
	}
	if len(rows) == 0 {
		return billing.Bill{}, fmt.Errorf("ledger: component %s: %w", id, billing.ErrNotFound)
	}
	return rows[0].bill(l.today()), nil
}
