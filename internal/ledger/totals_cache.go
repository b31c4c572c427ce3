package ledger

import (
	"context"
	"database/sql"
	"math"
	"sync"
	"time"
)

// The bills list's totals add up everything a filter keeps, whatever page is shown and
// however it is sorted: a finance officer paging through a class's outstanding bills, or
// sorting them by amount, asks for the same totals again and again. With a filter the
// totals tables cannot answer (a class, a search, a note, a reference, a student), that is
// a walk of every matching component per page: at a million components, seconds for
// each page of a note search. So each instance keeps the totals it computed, valid as
// long as nothing they depend on has changed since:
//
//   - the components and the roster (a class or a name is what a filter matches): every
//     write to either moves ledger_state's change_seq on, in the same transaction;
//   - the day (what is late, and what a late component costs, change at midnight): part
//     of the key.
//
// The stamp (change_seq and when the first fill started, read in the page's own read
// transaction) is shared by every instance on one database, so an instance never serves
// totals another instance's write has made stale.
const totalsCacheSize = 256

// totalsKey is what a bills query's totals depend on besides the data: its filter and
// tab (not its sort or page), how the search was answered and the day.
type totalsKey struct {
	tab                                           Tab
	account, notes, name, ref, nis, class, search string
	dueFrom, dueTo, paidFrom, paidTo              int64 // microseconds; math.MinInt64: no bound
	join                                          bool  // the search is joined in SQL (many students matched)
	found                                         int   // how many students the search named
	today                                         int64
}

// stamp is the ledger's state the cached totals were computed from.
type stamp struct {
	changeSeq int64
	fillStart time.Time
}

// totalsCache holds the totals computed from one stamp.
type totalsCache struct {
	mu    sync.Mutex
	stamp stamp
	m     map[totalsKey]BillTotals
}

func (c *totalsCache) get(s stamp, k totalsKey) (BillTotals, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stamp != s {
		return BillTotals{}, false
	}
	t, ok := c.m[k]
	return t, ok
}

// put keeps t for k at stamp s. A stamp other than the cache's empties it: whichever is
// newer, the totals of the older one are no use to later pages.
func (c *totalsCache) put(s stamp, k totalsKey, t BillTotals) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stamp != s || c.m == nil || len(c.m) >= totalsCacheSize {
		c.stamp = s
		c.m = make(map[totalsKey]BillTotals)
	}
	c.m[k] = t
}

// keyOf is q's totals key on today (q's search already answered).
func keyOf(q BillsQuery, today int64) totalsKey {
	return totalsKey{
		tab: q.Tab, account: q.Account, notes: q.Notes, name: q.Name, ref: q.Ref, nis: q.NIS, class: q.Class, search: q.Search,
		dueFrom: boundKey(q.DueFrom), dueTo: boundKey(q.DueTo), paidFrom: boundKey(q.PaidFrom), paidTo: boundKey(q.PaidTo),
		join: q.join, found: len(q.found), today: today,
	}
}

func boundKey(t time.Time) int64 {
	if t.IsZero() {
		return math.MinInt64
	}
	return t.UnixMicro()
}

// readStamp reads the ledger's stamp in tx.
func readStamp(ctx context.Context, tx *sql.Tx) (stamp, error) {
	var s stamp
	var fill nullTime
	err := tx.QueryRowContext(ctx, `SELECT change_seq, fill_started_at FROM ledger_state WHERE name = 'ledger'`).Scan(&s.changeSeq, &fill)
	s.fillStart = fill.t
	return s, err
}

// cachedTotals is billTotals, from the cache when nothing changed since they were
// computed.
func (l *Ledger) cachedTotals(ctx context.Context, tx *sql.Tx, q BillsQuery, today int64) (BillTotals, error) {
	s, err := readStamp(ctx, tx)
	if err != nil {
		return BillTotals{}, err
	}
	k := keyOf(q, today)
	if t, ok := l.totals.get(s, k); ok {
		return t, nil
	}
	t, err := billTotals(ctx, tx, q, today)
	if err != nil {
		return BillTotals{}, err
	}
	l.totals.put(s, k, t)
	return t, nil
}
