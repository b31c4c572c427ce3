package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"math"
	"strings"
	"time"

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
	case billing.StateProvisioned: // payable: the service's provisioned, late or not
		w.add(componentsOn("c", w.arg(today)).payable())
	case billing.StateExpired:
		w.add(componentsOn("c", w.arg(today)).expired())
	case billing.StatePaid:
		w.add("c.kind = 1")
	case billing.StateDeleted:
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

// All yields every component matching q, newest first, like the billing client's All
// over the service: the same filters (State "" leaves deleted ones out; provisioned and
// expired are decided by today), from q.Offset on. It reads a page at a time by key,
// one page ahead of the caller (pages.go), so no query stays open while the caller works.
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
		var read page[row]
		if r := rangeOf(q); r != nil && nis == "" {
			read = l.byDay(q, today, r)
		} else {
			read = func(ctx context.Context, last *row, into []row) ([]row, error) {
				return l.allPage(ctx, nis, q, today, last, "", into)
			}
		}
		for r, err := range readAhead(ctx, read) {
			if err != nil {
				yield(billing.Bill{}, err)
				return
			}
			if !yield(r.bill(today), nil) {
				return
			}
		}
	}
}

// allPage reads the page of All after last (nil: the first page, from q.Offset on), in
// the service's order, newest first: one range of the created index (or of one kind's:
// ledger_components_kind_created), or one student's components, which are few. A
// non-empty index is the one SQLite must read.
func (l *Ledger) allPage(ctx context.Context, nis string, q billing.Query, today int64, last *row, index string, into []row) ([]row, error) {
	query, args := l.allQuery(nis, q, today, last, index)
	page, err := queryRowsInto(ctx, l.sql, into, query, args...)
	if err != nil {
		return nil, fmt.Errorf("ledger: components: %w", err)
	}
	if nis != "" && last == nil && len(page) == 0 {
		// Like the service: a student it does not know is an error, not an empty list.
		known, err := l.studentKnown(ctx, nis)
		if err == nil && !known {
			err = fmt.Errorf("%w: student %s", billing.ErrNotFound, nis)
		}
		if err != nil {
			return nil, fmt.Errorf("ledger: components of %s: %w", nis, err)
		}
	}
	return page, nil
}

// allQuery is the query of allPage.
func (l *Ledger) allQuery(nis string, q billing.Query, today int64, last *row, index string) (string, []any) {
	var w where
	queryTerms(&w, q, today)
	if nis != "" {
		w.add("c.nis = ?", nis)
	}
	if last != nil {
		w.add("(c.created_us, c.id) < (?, ?)", last.CreatedUS, last.ID)
	}
	from := "ledger_components c"
	if index != "" {
		from += l.indexedBy(index)
	}
	query := `SELECT ` + prefixed("c") + ` FROM ` + from + w.sql() +
		` ORDER BY c.created_us DESC, c.id DESC LIMIT ` + w.arg(iterPage)
	if last == nil && q.Offset > 0 {
		query += ` OFFSET ` + w.arg(q.Offset)
	}
	return query, w.args
}

// dayRange is a range of due days or of payment days that a query of All names.
type dayRange struct {
	column   string // "due_day" or "paid_day"
	from, to int64  // inclusive; open ends are the extreme days
}

// rangeOf is the range of days q selects by (payment days before due days: a payment
// range is the narrower), or nil.
func rangeOf(q billing.Query) *dayRange {
	bounds := func(column string, from, to time.Time) *dayRange {
		if from.IsZero() && to.IsZero() {
			return nil
		}
		r := &dayRange{column: column, from: math.MinInt32, to: math.MaxInt32}
		if !from.IsZero() {
			r.from = dayNum(from)
		}
		if !to.IsZero() {
			r.to = dayNum(to)
		}
		return r
	}
	if r := bounds("paid_day", q.PaidFrom, q.PaidTo); r != nil {
		return r
	}
	return bounds("due_day", q.DueFrom, q.DueTo)
}

// byDay reads All over a range of days in the service's order without sorting the
// range for every page. No index is in that order over a range of days, so reading
// pages of the range sorted the whole range again for each (or walked every component
// the ledger holds in created order): time in the square of the rows. Instead each day
// of the range with rows (and each kind, for due days: ledger_components_kind_due is in
// created order within one kind and one due day) is a stream of its own, read by keyset
// a few rows at a time, and the streams are merged in the service's order. A payment
// day has no such index: its stream sorts one day's payments, not the range's. A range
// of more than maxStreams such days is read in created order, filtered (ranges that
// wide hold a good part of the ledger anyway).
func (l *Ledger) byDay(q billing.Query, today int64, r *dayRange) page[row] {
	var streams *dayStreams
	walk := false
	skip := max(q.Offset, 0)
	return func(ctx context.Context, last *row, into []row) ([]row, error) {
		if streams == nil && !walk {
			var err error
			if streams, err = l.openStreams(ctx, q, today, r); err != nil {
				return nil, fmt.Errorf("ledger: components: %w", err)
			}
			walk = streams == nil
		}
		if walk {
			index := "ledger_components_created"
			if q.State != "" || r.column == "paid_day" {
				index = "ledger_components_kind_created" // one kind
			}
			return l.allPage(ctx, "", q, today, last, index, into)
		}
		out := into
		if out == nil {
			out = make([]row, 0, iterPage)
		}
		for len(out) < iterPage {
			next, ok, err := streams.next(ctx)
			if err != nil {
				return nil, fmt.Errorf("ledger: components: %w", err)
			}
			if !ok {
				break
			}
			if skip > 0 {
				skip--
				continue
			}
			out = append(out, next)
		}
		return out, nil
	}
}

// maxStreams is how many days (of one kind) a range may have for All to merge them.
const maxStreams = 128

// A stream is one kind's components of one day of a range, newest first, read by keyset.
type stream struct {
	kind, day int64
	buf       []row // read and not yet merged; buf[0] is the stream's next row
	done      bool  // the last read came back short: buf is all that is left
}

// dayStreams merges the streams of a range: a heap of the streams with rows, by their
// next row, newest first.
type dayStreams struct {
	l     *Ledger
	q     billing.Query
	today int64
	r     *dayRange
	size  int // how many rows a stream reads at a time
	heap  []*stream
}

// openStreams finds the days of r that have rows (one index seek per day) for each kind
// q selects, and reads the first rows of each; nil when there are more than maxStreams.
func (l *Ledger) openStreams(ctx context.Context, q billing.Query, today int64, r *dayRange) (*dayStreams, error) {
	kinds := []int64{kindOpen, kindPaid}
	switch {
	case r.column == "paid_day" || q.State == billing.StatePaid:
		kinds = []int64{kindPaid}
	case q.State == billing.StateProvisioned || q.State == billing.StateExpired:
		kinds = []int64{kindOpen}
	case q.State == billing.StateDeleted:
		kinds = []int64{kindDeleted}
	case q.State != "":
		kinds = nil // the service refuses an unknown state
	}
	ds := &dayStreams{l: l, q: q, today: today, r: r}
	// The index each seek reads: the day leads it, for one kind.
	index := "ledger_components_kind_due"
	if r.column == "paid_day" {
		index = "ledger_components_payments"
	}
	var all []*stream
	for _, k := range kinds {
		day := r.from - 1
		for {
			var next sql.NullInt64
			// The kind is written out: SQLite uses a partial index (kind = 1) only for a
			// query that says so itself.
			if err := l.sql.QueryRowContext(ctx, `SELECT MIN(c.`+r.column+`) FROM ledger_components c`+l.indexedBy(index)+
				fmt.Sprintf(` WHERE c.kind = %d AND c.`, k)+r.column+` > $1 AND c.`+r.column+` <= $2`, day, r.to).Scan(&next); err != nil {
				return nil, err
			}
			if !next.Valid {
				break
			}
			if len(all) == maxStreams {
				return nil, nil
			}
			day = next.Int64
			all = append(all, &stream{kind: k, day: day})
		}
	}
	// Each stream reads its share of a page at a time (at least 64 rows): what the
	// streams hold together stays about a page, however many days the range has.
	ds.size = max(iterPage/max(len(all), 1), 64)
	for _, s := range all {
		if err := ds.fill(ctx, s); err != nil {
			return nil, err
		}
		if len(s.buf) > 0 {
			ds.push(s)
		}
	}
	return ds, nil
}

// fill reads the stream's next rows after the last one it holds (its buffer is empty
// or holds only the row the merge is taking).
func (ds *dayStreams) fill(ctx context.Context, s *stream) error {
	var after *row
	if len(s.buf) > 0 {
		after = &s.buf[len(s.buf)-1]
	}
	query, args := ds.l.streamQuery(ds.q, ds.today, ds.r.column, s.kind, s.day, after, ds.size)
	rows, err := ds.l.queryRows(ctx, query, args...)
	if err != nil {
		return err
	}
	s.buf, s.done = rows, len(rows) < ds.size
	return nil
}

// streamQuery is the query of the next n rows of kind on day of column, after after
// (nil: from the newest), with q's other filters.
func (l *Ledger) streamQuery(q billing.Query, today int64, column string, kind, day int64, after *row, n int) (string, []any) {
	var w where
	w.add(fmt.Sprintf("c.kind = %d", kind))
	w.add("c."+column+" = ?", day)
	q.DueFrom, q.DueTo, q.PaidFrom, q.PaidTo = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	queryTerms(&w, q, today)
	if after != nil {
		w.add("(c.created_us, c.id) < (?, ?)", after.CreatedUS, after.ID)
	}
	index := "ledger_components_kind_due"
	if column == "paid_day" {
		index = "ledger_components_payments"
	}
	return `SELECT ` + prefixed("c") + ` FROM ledger_components c` + l.indexedBy(index) + w.sql() +
		` ORDER BY c.created_us DESC, c.id DESC LIMIT ` + w.arg(n), w.args
}

// next is the newest row of all the streams' next rows (false when they are spent).
func (ds *dayStreams) next(ctx context.Context) (row, bool, error) {
	if len(ds.heap) == 0 {
		return row{}, false, nil
	}
	s := ds.heap[0]
	r := s.buf[0]
	if len(s.buf) > 1 {
		s.buf = s.buf[1:]
	} else if s.done {
		s.buf = nil
	} else if err := ds.fill(ctx, s); err != nil { // reads after r, kept in buf until now
		return row{}, false, err
	}
	if len(s.buf) == 0 {
		ds.pop()
	} else {
		ds.down(0)
	}
	return r, true, nil
}

// newer reports whether a's next row comes before b's in the service's order.
func newer(a, b *stream) bool {
	x, y := a.buf[0], b.buf[0]
	return x.CreatedUS > y.CreatedUS || x.CreatedUS == y.CreatedUS && x.ID > y.ID
}

func (ds *dayStreams) push(s *stream) {
	ds.heap = append(ds.heap, s)
	for i := len(ds.heap) - 1; i > 0; {
		p := (i - 1) / 2
		if !newer(ds.heap[i], ds.heap[p]) {
			break
		}
		ds.heap[i], ds.heap[p] = ds.heap[p], ds.heap[i]
		i = p
	}
}

func (ds *dayStreams) pop() {
	n := len(ds.heap) - 1
	ds.heap[0] = ds.heap[n]
	ds.heap = ds.heap[:n]
	if n > 0 {
		ds.down(0)
	}
}

func (ds *dayStreams) down(i int) {
	for {
		best := i
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < len(ds.heap) && newer(ds.heap[c], ds.heap[best]) {
				best = c
			}
		}
		if best == i {
			return
		}
		ds.heap[i], ds.heap[best] = ds.heap[best], ds.heap[i]
		i = best
	}
}

// queryRows runs a query of componentColumns (as prefixed) and reads every row.
func (l *Ledger) queryRows(ctx context.Context, query string, args ...any) ([]row, error) {
	return queryRowsOn(ctx, l.sql, query, args...)
}

func queryRowsOn(ctx context.Context, q querier, query string, args ...any) ([]row, error) {
	return queryRowsInto(ctx, q, nil, query, args...)
}

// querier runs queries: a *sql.DB or a *sql.Tx.
type querier interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

// queryRowsInto is queryRowsOn appending to out.
func queryRowsInto(ctx context.Context, q querier, out []row, query string, args ...any) ([]row, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
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
