package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/billing"
)

// Tab is which components a bills query lists; the zero value is TabOutstanding. (How
// a page spells them in its URL is internal/billlist's.)
type Tab int

// The bills list's tabs.
const (
	TabOutstanding Tab = iota // open and payable today
	TabPaid
	TabExpired // open, past the expiry day
	TabAll     // all but deleted
)

// String names the tab, for errors and logs.
func (t Tab) String() string {
	switch t {
	case TabOutstanding:
		return "outstanding"
	case TabPaid:
		return "paid"
	case TabExpired:
		return "expired"
	case TabAll:
		return "all"
	}
	return fmt.Sprintf("Tab(%d)", int(t))
}

// Sort is the column a bills query orders by; the zero value is the service's order,
// newest first. Rows with equal values stay newest first; Desc reverses the whole order.
type Sort int

// The bills list's sort columns.
const (
	SortNewest Sort = iota
	SortDue
	SortAmount
	SortNIS // numeric NIS by value, before the others
	SortPaid
)

// String names the column, for errors and logs.
func (s Sort) String() string {
	switch s {
	case SortNewest:
		return "newest"
	case SortDue:
		return "due"
	case SortAmount:
		return "amount"
	case SortNIS:
		return "nis"
	case SortPaid:
		return "paid"
	}
	return fmt.Sprintf("Sort(%d)", int(s))
}

// BillsQuery selects a page of the bills list. Zero fields do not filter.
type BillsQuery struct {
	Tab            Tab
	Account        string
	Notes          string // part of the notes, any letter case
	Name           string // part of the item's name ("Iuran Pramuka"), any letter case
	Ref            string // exact reference number
	DueFrom, DueTo time.Time
	PaidFrom       time.Time // payment days in the ledger's zone, inclusive
	PaidTo         time.Time
	NIS            string // one student
	Class          string // the students of one class (the roster's class, exact)
	Search         string // part of a student's name, or the start of a NIS
	Sort           Sort
	Desc           bool
	Offset, Limit  int // Limit 0: 50

	// found is what the search found in the roster: the students' NIS, or join when so
	// many matched that the search is better joined in SQL.
	found []string
	join  bool
}

// BillTotals add up the whole result of a query on today, as the bills page shows them.
type BillTotals struct {
	Count        int
	Amount       int64 // face amounts
	PenaltyToday int64 // penalties that apply today to the late rows
	DueToday     int64 // what the open, payable rows cost today
	Paid         int64 // what was paid for the paid rows
}

// BillsPage is one page of the bills list and the totals of everything that matches.
type BillsPage struct {
	Bills  []billing.Bill
	Totals BillTotals
	Today  time.Time
}

// ErrBadQuery means a bills query names an unknown tab or sort.
var ErrBadQuery = fmt.Errorf("ledger: bad bills query")

// check fills in the defaults of q and refuses a tab or sort that is none of the
// constants.
func (q *BillsQuery) check() error {
	if q.Tab < TabOutstanding || q.Tab > TabAll {
		return fmt.Errorf("%w: tab %v", ErrBadQuery, q.Tab)
	}
	if q.Sort < SortNewest || q.Sort > SortPaid {
		return fmt.Errorf("%w: sort %v", ErrBadQuery, q.Sort)
	}
	if q.Limit <= 0 {
		q.Limit = 50
	}
	q.Offset = max(q.Offset, 0)
	q.Search = strings.TrimSpace(q.Search)
	q.Name = strings.TrimSpace(q.Name)
	return nil
}

// OpenNames are the names of the items still open (unpaid, expired or not), sorted: what
// the bills list's item-name filter suggests. They come from the open totals' groups, a
// few hundred rows at most.
func (l *Ledger) OpenNames(ctx context.Context) ([]string, error) {
	rows, err := l.sql.QueryContext(ctx, `SELECT DISTINCT name FROM ledger_open_totals WHERE components <> 0 AND name <> '' ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("ledger: open names: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("ledger: open names: %w", err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// Bills answers the bills list: the page asked for, in the order asked for, and the
// count and totals of the whole result, from one snapshot.
func (l *Ledger) Bills(ctx context.Context, q BillsQuery) (BillsPage, error) {
	if err := q.check(); err != nil {
		return BillsPage{}, err
	}
	today := l.today()
	page := BillsPage{Today: dayTime(today)}
	err := l.read(ctx, func(tx *sql.Tx) error {
		var err error
		if q.Search != "" {
			if q.found, q.join, err = searchStudents(ctx, tx, q.Search, l.maxFound); err != nil {
				return err
			}
		}
		if page.Totals, err = l.cachedTotals(ctx, tx, q, today); err != nil {
			return err
		}
		rows, err := billRows(ctx, tx, q, today)
		if err != nil {
			return err
		}
		page.Bills = make([]billing.Bill, len(rows))
		for i, r := range rows {
			page.Bills[i] = r.bill(today)
		}
		return nil
	})
	if err != nil {
		return BillsPage{}, fmt.Errorf("ledger: bills: %w", err)
	}
	return page, nil
}

// EachBill yields every component of the bills list's query q (its Offset and Limit
// aside), in the list's order: what a page of the list would show, all of it, for an
// export. The ids of the whole result are read in order once (one sort, however the list
// is sorted), then the components a thousand at a time; reading the list page after page
// instead costs each page the offset before it, time in the square of the rows.
func (l *Ledger) EachBill(ctx context.Context, q BillsQuery) iter.Seq2[billing.Bill, error] {
	return func(yield func(billing.Bill, error) bool) {
		if err := q.check(); err != nil {
			yield(billing.Bill{}, err)
			return
		}
		today := l.today()
		var ids []string
		err := l.read(ctx, func(tx *sql.Tx) error {
			var err error
			if q.Search != "" {
				if q.found, q.join, err = searchStudents(ctx, tx, q.Search, l.maxFound); err != nil {
					return err
				}
			}
			ids, err = billIDs(ctx, tx, q, today)
			return err
		})
		if err != nil {
			yield(billing.Bill{}, fmt.Errorf("ledger: bills: %w", err))
			return
		}
		for start := 0; start < len(ids); start += iterPage {
			part := ids[start:min(start+iterPage, len(ids))]
			byID, err := loadRows(ctx, l.sql, part)
			if err != nil {
				yield(billing.Bill{}, fmt.Errorf("ledger: bills: %w", err))
				return
			}
			for _, id := range part {
				r, ok := byID[id]
				if !ok {
					continue // deleted since the ids were read
				}
				if !yield(r.bill(today), nil) {
					return
				}
			}
		}
	}
}

// billIDs is the ids of q's whole result in the list's order: by payment date, the rows
// paid with a date first (as paidSortedRows pages them), then the rest newest first.
func billIDs(ctx context.Context, tx *sql.Tx, q BillsQuery, today int64) ([]string, error) {
	var ids []string
	read := func(w where, order string) error {
		rows, err := tx.QueryContext(ctx, `SELECT c.id FROM `+billSource(q)+w.sql()+` ORDER BY `+order, w.args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Err()
	}
	if q.Sort != SortPaid {
		var w where
		billTerms(&w, q, today, true)
		return ids, read(w, qualified(orderBy(q.Sort, q.Desc)))
	}
	if q.Tab == TabPaid || q.Tab == TabAll {
		var w where
		billTerms(&w, q, today, false)
		w.add("c.kind = 1")
		w.add("c.paid_us IS NOT NULL")
		if err := read(w, qualified(orderBy(SortPaid, q.Desc))); err != nil {
			return nil, err
		}
	}
	var w where
	billTerms(&w, q, today, true)
	w.add("c.paid_us IS NULL")
	return ids, read(w, qualified(orderBy(SortNewest, false)))
}

// rowFilter is whether a query needs the rows (a student, a search, notes, an item's
// name or a reference), or the totals tables can answer its count and sums.
func (q BillsQuery) rowFilter() bool {
	return q.NIS != "" || q.Search != "" || q.Notes != "" || q.Ref != "" || q.Class != "" || q.Name != ""
}

// billTotals is the count and sums of the whole result.
func billTotals(ctx context.Context, tx *sql.Tx, q BillsQuery, today int64) (BillTotals, error) {
	var t BillTotals
	if q.rowFilter() {
		var w where
		billTerms(&w, q, today, true)
		d := componentsOn("c", w.arg(today))
		err := tx.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(c.amount), 0),
			COALESCE(SUM(`+d.penalty()+`), 0), COALESCE(SUM(`+d.price()+`), 0),
			COALESCE(SUM(CASE WHEN c.kind = 1 THEN c.amount_paid ELSE 0 END), 0)
			FROM `+billSource(q)+w.sql(), w.args...).Scan(&t.Count, &t.Amount, &t.PenaltyToday, &t.DueToday, &t.Paid)
		return t, err
	}
	paidRange := !q.PaidFrom.IsZero() || !q.PaidTo.IsZero()
	if q.Tab != TabPaid && !paidRange {
		var w where
		g := groupsOn(w.arg(today))
		switch q.Tab {
		case TabOutstanding:
			w.add(g.payable())
		case TabExpired:
			w.add(g.expired())
		}
		totalsTerms(&w, q)
		var n int64
		var amount, penalty, due int64
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(SUM(components), 0), COALESCE(SUM(amount), 0),
			COALESCE(SUM(`+g.penalty()+`), 0), COALESCE(SUM(`+g.price()+`), 0)
			FROM ledger_open_totals`+w.sql(), w.args...).Scan(&n, &amount, &penalty, &due); err != nil {
			return t, err
		}
		t.Count += int(n)
		t.Amount += amount
		t.PenaltyToday += penalty
		t.DueToday += due
	}
	if q.Tab == TabPaid || q.Tab == TabAll {
		var w where
		totalsTerms(&w, q)
		if paidRange {
			w.add("paid_day <> ?", noPaidDay)
		}
		if !q.PaidFrom.IsZero() {
			w.add("paid_day >= ?", dayNum(q.PaidFrom))
		}
		if !q.PaidTo.IsZero() {
			w.add("paid_day <= ?", dayNum(q.PaidTo))
		}
		var n, amount, paid int64
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(SUM(components), 0), COALESCE(SUM(amount), 0), COALESCE(SUM(amount_paid), 0)
			FROM ledger_paid_totals`+w.sql(), w.args...).Scan(&n, &amount, &paid); err != nil {
			return t, err
		}
		t.Count += int(n)
		t.Amount += amount
		t.Paid += paid
	}
	return t, nil
}

// totalsTerms are the filters both totals tables can apply.
func totalsTerms(w *where, q BillsQuery) {
	w.add("components <> 0")
	if q.Account != "" {
		w.add("account_code = ?", q.Account)
	}
	if !q.DueFrom.IsZero() {
		w.add("due_day >= ?", dayNum(q.DueFrom))
	}
	if !q.DueTo.IsZero() {
		w.add("due_day <= ?", dayNum(q.DueTo))
	}
}

// defaultMaxFound is how many students a search names one by one; beyond it the search is
// joined in SQL.
const defaultMaxFound = 500

// searchStudents finds the students whose name contains the search (case and spacing
// aside) or whose NIS starts with it: their NIS, or join when more than maxFound match.
func searchStudents(ctx context.Context, tx *sql.Tx, search string, maxFound int) ([]string, bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT nis FROM students WHERE `+studentMatch+` LIMIT $3`,
		nameLike(search), nisLike(search), maxFound+1)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	found := []string{}
	for rows.Next() {
		var nis string
		if err := rows.Scan(&nis); err != nil {
			return nil, false, err
		}
		found = append(found, nis)
	}
	if len(found) > maxFound {
		return nil, true, rows.Err()
	}
	return found, false, rows.Err()
}

const studentMatch = `(name_search LIKE $1 ESCAPE '\' OR nis LIKE $2 ESCAPE '\')`

func nameLike(search string) string {
	return "%" + escapeLike(strings.ToLower(strings.Join(strings.Fields(search), " "))) + "%"
}

func nisLike(search string) string { return escapeLike(search) + "%" }

// billSource is the FROM clause: with a search that matched many students, the students
// drive the join (CROSS JOIN keeps SQLite from walking a million rows in sort order).
func billSource(q BillsQuery) string {
	if !q.join {
		return "ledger_components c"
	}
	return `(SELECT nis FROM students WHERE ` + studentMatch + `) s CROSS JOIN ledger_components c`
}

// billTerms adds the query's filters on the components c. A joined search's two
// parameters come first ($1, $2), as billSource names them.
func billTerms(w *where, q BillsQuery, today int64, withTab bool) {
	switch {
	case q.join:
		w.arg(nameLike(q.Search))
		w.arg(nisLike(q.Search))
		w.terms = append(w.terms, "c.nis = s.nis")
	case q.Search != "" && len(q.found) == 0:
		w.terms = append(w.terms, "1 = 0") // no student matches
	case q.Search != "":
		ph := make([]string, len(q.found))
		for i, nis := range q.found {
			ph[i] = w.arg(nis)
		}
		w.terms = append(w.terms, "c.nis IN ("+strings.Join(ph, ", ")+")")
	}
	if withTab {
		switch q.Tab {
		case TabOutstanding:
			w.add(componentsOn("c", w.arg(today)).payable())
		case TabExpired:
			w.add(componentsOn("c", w.arg(today)).expired())
		case TabPaid:
			w.add("c.kind = 1")
		case TabAll:
			w.add("c.kind <> 2")
		}
	}
	if q.Account != "" {
		w.add("c.account_code = ?", q.Account)
	}
	if q.Notes != "" {
		// Contains, case aside: what a finance officer remembers of a note is a word of it.
		w.add("c.notes <> ''")
		w.add(`lower(c.notes) LIKE ? ESCAPE '\'`, "%"+escapeLike(strings.ToLower(q.Notes))+"%")
	}
	if q.Name != "" {
		// Contains, case aside: "pramuka" finds "Iuran Pramuka Ganjil".
		w.add(`lower(c.name) LIKE ? ESCAPE '\'`, "%"+escapeLike(strings.ToLower(q.Name))+"%")
	}
	if q.Ref != "" {
		w.add("c.ref_number = ?", q.Ref)
		w.add("c.ref_number <> ''")
	}
	if q.NIS != "" {
		w.add("c.nis = ?", q.NIS)
	}
	if q.Class != "" {
		w.add("c.nis IN (SELECT nis FROM students WHERE description = ?)", q.Class)
	}
	if !q.DueFrom.IsZero() {
		w.add("c.due_day >= ?", dayNum(q.DueFrom))
	}
	if !q.DueTo.IsZero() {
		w.add("c.due_day <= ?", dayNum(q.DueTo))
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
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// sortColumn is the column a sort key orders by.
var sortColumn = map[Sort]string{SortDue: "due_day", SortAmount: "amount", SortNIS: "nis_key", SortPaid: "paid_us"}

// orderBy is the ORDER BY of a sort over output columns (no table prefix): the column,
// then newest first; desc reverses all of it.
func orderBy(sort Sort, desc bool) string {
	asc, dsc := "ASC", "DESC"
	if desc {
		asc, dsc = dsc, asc
	}
	tail := "created_us " + dsc + ", id " + dsc
	if col, ok := sortColumn[sort]; ok {
		return col + " " + asc + ", " + tail
	}
	return tail
}

// billRows reads the page. Each tab is one kind of row (open or paid) so one index per
// sort column serves it; the all tab merges the two kinds' first offset+limit rows;
// sorting by payment date puts rows without one last, whichever the direction.
func billRows(ctx context.Context, tx *sql.Tx, q BillsQuery, today int64) ([]row, error) {
	if q.Sort == SortPaid {
		return paidSortedRows(ctx, tx, q, today)
	}
	if q.Tab == TabAll && q.Sort != SortNewest && !q.rowFilter() {
		return mergedRows(ctx, tx, q, today)
	}
	var w where
	billTerms(&w, q, today, true)
	if err := boundDue(ctx, tx, &w, q, today); err != nil {
		return nil, err
	}
	query := `SELECT c.id FROM ` + billSource(q) + w.sql() +
		` ORDER BY ` + qualified(orderBy(q.Sort, q.Desc)) + ` LIMIT ` + w.arg(q.Limit) + ` OFFSET ` + w.arg(q.Offset)
	return rowsByID(ctx, tx, query, w.args...)
}

// rowsByID runs a query of ids and reads their rows in its order. Ordering and paging
// only ids lets SQLite sort index entries, not whole rows, when many rows match (a
// search, a payment period) and the page is a few of them.
func rowsByID(ctx context.Context, tx *sql.Tx, query string, args ...any) ([]row, error) {
	rs, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	var ids []string
	for rs.Next() {
		var id string
		if err := rs.Scan(&id); err != nil {
			rs.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return nil, err
	}
	byID, err := loadRows(ctx, tx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]row, 0, len(ids))
	for _, id := range ids {
		if r, ok := byID[id]; ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// qualified prefixes an orderBy's columns with the components' alias.
func qualified(order string) string { return qualifiedAs("c", order) }

func qualifiedAs(alias, order string) string {
	parts := strings.Split(order, ", ")
	for i, p := range parts {
		parts[i] = alias + "." + p
	}
	return strings.Join(parts, ", ")
}

// boundDue narrows a due-sorted open tab to the due days the totals say it has, so the
// scan of the due index starts where the tab's rows are, not among years of rows of the
// other state (expired rows are the oldest dues, payable ones the newest).
func boundDue(ctx context.Context, tx *sql.Tx, w *where, q BillsQuery, today int64) error {
	if q.Sort != SortDue || q.rowFilter() || (q.Tab != TabOutstanding && q.Tab != TabExpired) {
		return nil
	}
	cond := groupsOn("$1").payable()
	if q.Tab == TabExpired {
		cond = groupsOn("$1").expired()
	}
	var lo, hi sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT MIN(due_day), MAX(due_day) FROM ledger_open_totals WHERE components <> 0 AND `+cond,
		today).Scan(&lo, &hi); err != nil {
		return err
	}
	if lo.Valid {
		w.add("c.due_day >= ?", lo.Int64)
		w.add("c.due_day <= ?", hi.Int64)
	}
	return nil
}

// mergedRows is the all tab sorted by a column: the first offset+limit open rows and
// the first offset+limit paid rows, each read along its kind's index, merged.
func mergedRows(ctx context.Context, tx *sql.Tx, q BillsQuery, today int64) ([]row, error) {
	var w where
	billTerms(&w, q, today, false)
	n := w.arg(q.Offset + q.Limit)
	order := orderBy(q.Sort, q.Desc)
	part := func(kind int) string {
		terms := append([]string{fmt.Sprintf("c.kind = %d", kind)}, w.terms...)
		return `SELECT * FROM (SELECT ` + prefixed("c") + `, c.nis_key FROM ledger_components c WHERE ` + strings.Join(terms, " AND ") +
			` ORDER BY ` + qualified(order) + ` LIMIT ` + n + `) k` + fmt.Sprint(kind)
	}
	query := `SELECT ` + prefixed("u") + ` FROM (` + part(kindOpen) + ` UNION ALL ` + part(kindPaid) + `) u ORDER BY ` + qualifiedAs("u", order) +
		` LIMIT ` + w.arg(q.Limit) + ` OFFSET ` + w.arg(q.Offset)
	return queryRowsOn(ctx, tx, query, w.args...)
}

// paidSortedRows sorts by payment date: first the rows paid with a date, by date, then
// the rest (open rows, and paid ones without a date), newest first.
func paidSortedRows(ctx context.Context, tx *sql.Tx, q BillsQuery, today int64) ([]row, error) {
	var rows []row
	if q.Tab == TabPaid || q.Tab == TabAll {
		var w where
		billTerms(&w, q, today, false)
		w.add("c.kind = 1")
		w.add("c.paid_us IS NOT NULL")
		base := w
		query := `SELECT c.id FROM ` + billSource(q) + w.sql() + ` ORDER BY ` + qualified(orderBy(SortPaid, q.Desc)) +
			` LIMIT ` + w.arg(q.Limit) + ` OFFSET ` + w.arg(q.Offset)
		var err error
		if rows, err = rowsByID(ctx, tx, query, w.args...); err != nil {
			return nil, err
		}
		if len(rows) == q.Limit {
			return rows, nil
		}
		// The dated rows end on this page (or before it): the undated ones follow.
		dated := q.Offset + len(rows)
		if len(rows) == 0 {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+billSource(q)+base.sql(), base.args...).Scan(&n); err != nil {
				return nil, err
			}
			dated = n
		}
		q.Limit -= len(rows)
		q.Offset = max(q.Offset-dated, 0)
	}
	var w where
	billTerms(&w, q, today, true)
	w.add("c.paid_us IS NULL")
	query := `SELECT c.id FROM ` + billSource(q) + w.sql() + ` ORDER BY ` + qualified(orderBy(SortNewest, false)) +
		` LIMIT ` + w.arg(q.Limit) + ` OFFSET ` + w.arg(q.Offset)
	rest, err := rowsByID(ctx, tx, query, w.args...)
	if err != nil {
		return nil, err
	}
	return append(rows, rest...), nil
}
