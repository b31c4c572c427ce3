package ledger

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
)

// tiedToday is the day the tied school is read on: 20 March 2027, 10:00 in Jakarta.
var tiedToday = time.Date(2027, time.March, 20, 3, 0, 0, 0, time.UTC)

// tiedBills is a school built to put ties on every key the iterators order by, across
// their page boundaries: n components by three students, created at one of five
// instants, due on one of three days; two in three paid at one of five instants over two
// days in Jakarta (one of them 23:30, the UTC day before), the others open (some
// expired by tiedToday), and one in fifty deleted. Ids and NIS are fixed-width digits,
// so every engine's collation orders them as Go does.
func tiedBills(n int) []billing.Bill {
	created := []time.Time{
		time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC), time.Date(2026, 12, 1, 8, 0, 0, 1000, time.UTC),
		time.Date(2027, 1, 5, 2, 0, 0, 0, time.UTC), time.Date(2027, 1, 5, 2, 0, 0, 0, time.UTC).Add(time.Hour),
		time.Date(2027, 2, 9, 4, 0, 0, 0, time.UTC),
	}
	paid := []time.Time{
		time.Date(2027, 3, 10, 16, 30, 0, 0, time.UTC), // 23:30 on 10 March in Jakarta
		time.Date(2027, 3, 10, 16, 30, 0, 0, time.UTC).Add(time.Microsecond),
		time.Date(2027, 3, 11, 1, 0, 0, 0, time.UTC),
		time.Date(2027, 3, 11, 1, 0, 0, 0, time.UTC).Add(time.Second),
		time.Date(2027, 3, 11, 9, 0, 0, 0, time.UTC),
	}
	due := []time.Time{time.Date(2027, 3, 5, 0, 0, 0, 0, time.UTC), time.Date(2027, 3, 6, 0, 0, 0, 0, time.UTC),
		time.Date(2027, 3, 25, 0, 0, 0, 0, time.UTC)}
	bills := make([]billing.Bill, n)
	for i := range bills {
		// Strides prime to each other spread every combination over the ids.
		d := due[(i/3)%len(due)]
		b := billing.Bill{
			ComponentID: fmt.Sprintf("%05d", i), NIS: fmt.Sprintf("300%d", (i/3+i)%3), StudentName: "Siswa",
			AccountCode: []string{"SPP", "BCA"}[i%2], Name: "SPP", Amount: 100_000, Penalty: 5_000,
			Due: d, Expiry: d.AddDate(0, 0, 10), State: billing.StateProvisioned,
			CreatedAt: created[i*3%len(created)], UpdatedAt: created[i*3%len(created)],
		}
		switch {
		case i%50 == 7:
			b.State = billing.StateDeleted
		case i%3 != 0:
			b.State, b.PaidAt, b.AmountPaid = billing.StatePaid, paid[i*13%len(paid)], b.Amount
			b.RefNumber = "R" + b.ComponentID // a payment row names its component only so
		}
		bills[i] = b
	}
	return bills
}

// openTied opens a ledger of the engine holding tiedBills(n), read on tiedToday.
func openTied(t testing.TB, engine string, n int) (*Ledger, []billing.Bill) {
	t.Helper()
	var db *store.DB
	if engine == "postgres" {
		db = storetest.OpenPostgres(t)
	} else {
		db = storetest.OpenTest(t)
	}
	ctx := context.Background()
	l, err := New(ctx, Config{DB: db, Clock: clock.Fixed(tiedToday, i18n.Jakarta())})
	if err != nil {
		t.Fatal(err)
	}
	bills := tiedBills(n)
	if _, err := l.Upsert(ctx, bills); err != nil {
		t.Fatal(err)
	}
	return l, bills
}

// The paged iterators return every row once, in order, across page boundaries that fall
// inside runs of rows equal on every key but the last: Payments by (day, instant, NIS,
// id), All by (created, id) newest first, over the created index, one kind's index and
// the merged days of a due or payment range.
func TestIteratorsReturnEveryRowOnceInOrder(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			testIteratorsReturnEveryRowOnceInOrder(t, engine)
		})
	}
}

func testIteratorsReturnEveryRowOnceInOrder(t *testing.T, engine string) {
	const n = 3700 // 2,400 payments and 3,600 live components: several pages of each, runs across their ends
	l, bills := openTied(t, engine, n)
	ctx := t.Context()
	loc := l.Location()
	today := dayNum(billing.DayIn(tiedToday, loc))

	// Payments of March, as the order says.
	var want []string
	var paid []billing.Bill
	for _, b := range bills {
		if b.State == billing.StatePaid {
			paid = append(paid, b)
		}
	}
	slices.SortFunc(paid, func(a, b billing.Bill) int {
		return cmp.Or(billing.DayIn(a.PaidAt, loc).Compare(billing.DayIn(b.PaidAt, loc)), a.PaidAt.Compare(b.PaidAt),
			cmp.Compare(a.NIS, b.NIS), cmp.Compare(a.ComponentID, b.ComponentID))
	})
	for _, b := range paid {
		want = append(want, b.ComponentID)
	}
	march := func(d int) time.Time { return time.Date(2027, 3, d, 0, 0, 0, 0, time.UTC) }
	var got []string
	for p, err := range l.Payments(ctx, march(1), march(31), "") {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.TrimPrefix(p.Ref, "R"))
	}
	if len(want) <= 2*iterPage {
		t.Fatalf("only %d payments: not enough pages", len(want))
	}
	sameSequence(t, "payments of March", got, want)

	// All, newest first, with the filters that choose each way of reading.
	newest := func(keep func(b billing.Bill) bool) []string {
		var sel []billing.Bill
		for _, b := range bills {
			if keep(b) {
				sel = append(sel, b)
			}
		}
		slices.SortFunc(sel, func(a, b billing.Bill) int {
			return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ComponentID, a.ComponentID))
		})
		ids := make([]string, len(sel))
		for i, b := range sel {
			ids[i] = b.ComponentID
		}
		return ids
	}
	live := func(b billing.Bill) bool { return b.State != billing.StateDeleted }
	open := func(b billing.Bill) bool { return b.State == billing.StateProvisioned }
	expired := func(b billing.Bill) bool { return open(b) && dayNum(b.Expiry) < today }
	dueIn := func(from, to time.Time) func(billing.Bill) bool {
		return func(b billing.Bill) bool { return !b.Due.Before(from) && !b.Due.After(to) }
	}
	and := func(fs ...func(billing.Bill) bool) func(billing.Bill) bool {
		return func(b billing.Bill) bool {
			for _, f := range fs {
				if !f(b) {
					return false
				}
			}
			return true
		}
	}
	cases := []struct {
		name string
		q    billing.Query
		keep func(billing.Bill) bool
		skip int
	}{
		{"every live component", billing.Query{}, live, 0},
		{"from an offset", billing.Query{Offset: 1234}, live, 1234},
		{"expired", billing.Query{State: billing.StateExpired}, expired, 0},
		{"paid", billing.Query{State: billing.StatePaid}, func(b billing.Bill) bool { return b.State == billing.StatePaid }, 0},
		{"deleted", billing.Query{State: billing.StateDeleted}, func(b billing.Bill) bool { return b.State == billing.StateDeleted }, 0},
		{"due range, two days merged", billing.Query{DueFrom: march(1), DueTo: march(6)}, and(live, dueIn(march(1), march(6))), 0},
		{"due range from an offset", billing.Query{DueFrom: march(1), DueTo: march(31), Offset: 1500},
			and(live, dueIn(march(1), march(31))), 1500},
		{"payable due range", billing.Query{State: billing.StateProvisioned, DueFrom: march(4), DueTo: march(30)},
			and(open, func(b billing.Bill) bool { return !expired(b) }, dueIn(march(4), march(30))), 0},
		{"payment days", billing.Query{PaidFrom: march(11), PaidTo: march(11)}, func(b billing.Bill) bool {
			return b.State == billing.StatePaid && billing.DayIn(b.PaidAt, loc).Equal(march(11))
		}, 0},
	}
	for _, c := range cases {
		want := newest(c.keep)
		want = want[min(c.skip, len(want)):]
		var got []string
		for b, err := range l.All(ctx, c.q) {
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			got = append(got, b.ComponentID)
		}
		if len(want) == 0 {
			t.Fatalf("%s: the school has none: a case that tests nothing", c.name)
		}
		sameSequence(t, c.name, got, want)
	}
}

// sameSequence fails unless got is want: every row once, in want's order.
func sameSequence(t *testing.T, what string, got, want []string) {
	t.Helper()
	count := map[string]int{}
	for _, id := range got {
		count[id]++
	}
	for id, n := range count {
		if n > 1 {
			t.Errorf("%s: %s yielded %d times", what, id, n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("%s: row %d is %s, want %s (rows %d-%d: %v, want %v)", what, i, got[i], want[i],
				max(i-2, 0), min(i+3, len(got)), got[max(i-2, 0):min(i+3, len(got))], want[max(i-2, 0):min(i+3, len(want))])
			return
		}
	}
}

// Every page query of the iterators is one range of an index in the iterator's own
// order, starting at the last row read, whatever SQLite's statistics say (none, as after
// a bulk load, or an ANALYZE's): EXPLAIN QUERY PLAN shows a SEARCH of the index with the
// keyset bound, and no TEMP B-TREE (a sort of everything the filters select, for every
// page). A payment day's stream may sort that one day; a student's components, which are
// few, are sorted.
func TestIteratorQueriesAreIndexRanges(t *testing.T) {
	t.Parallel()
	l, _ := openTied(t, "sqlite", 1200)
	ctx := t.Context()
	today := l.today()
	day := func(d int) time.Time { return time.Date(2027, 3, d, 0, 0, 0, 0, time.UTC) }
	last := &row{CreatedUS: micros(day(1)), ID: "00500"}
	lastPay := &payment{day: dayNum(day(11)), paid: micros(day(11)), id: "00500", PaymentRow: PaymentRow{NIS: "3001"}}
	type plan struct {
		name   string
		query  string
		args   []any
		search string // what the SEARCH must say: the index and the keyset bound
		sorts  bool   // a TEMP B-TREE is expected
	}
	plans := func() []plan {
		var ps []plan
		add := func(name, search string, sorts bool, query string, args []any) {
			ps = append(ps, plan{name, query, args, search, sorts})
		}
		q, a := l.paymentsQuery(dayNum(day(1)), dayNum(day(31)), "", nil)
		add("payments, first page", "ledger_components_payments (paid_day>? AND paid_day<?)", false, q, a)
		q, a = l.paymentsQuery(dayNum(day(1)), dayNum(day(31)), "", lastPay)
		add("payments, next page", "ledger_components_payments ((paid_day,paid_us,nis,id)>(?,?,?,?) AND paid_day<?)", false, q, a)
		q, a = l.paymentsQuery(dayNum(day(1)), dayNum(day(31)), "SPP", lastPay)
		add("payments of an account", "ledger_components_payments ((paid_day,paid_us,nis,id)>(?,?,?,?) AND paid_day<?)", false, q, a)
		q, a = l.allQuery("", billing.Query{}, today, last, "")
		add("all, next page", "ledger_components_created ((created_us,id)<(?,?))", false, q, a)
		for _, st := range []billing.State{billing.StateProvisioned, billing.StateExpired, billing.StatePaid, billing.StateDeleted} {
			q, a = l.allQuery("", billing.Query{State: st}, today, last, "")
			add("all "+string(st)+", next page", "ledger_components_kind_created (kind=? AND (created_us,id)<(?,?))", false, q, a)
		}
		q, a = l.allQuery("", billing.Query{DueFrom: day(1), DueTo: day(31)}, today, last, "ledger_components_created")
		add("a wide due range, walked", "ledger_components_created ((created_us,id)<(?,?))", false, q, a)
		q, a = l.allQuery("", billing.Query{PaidFrom: day(1), PaidTo: day(31)}, today, last, "ledger_components_kind_created")
		add("a wide payment range, walked", "ledger_components_kind_created (kind=? AND (created_us,id)<(?,?))", false, q, a)
		for _, k := range []int64{kindOpen, kindPaid} {
			q, a = l.streamQuery(billing.Query{}, today, "due_day", k, dayNum(day(5)), last, 64)
			add(fmt.Sprintf("a due day's stream of kind %d", k), "ledger_components_kind_due (kind=? AND due_day=? AND (created_us,id)<(?,?))", false, q, a)
		}
		q, a = l.streamQuery(billing.Query{State: billing.StateProvisioned, AccountCode: "SPP"}, today, "due_day", kindOpen, dayNum(day(5)), last, 64)
		add("a due day's payable stream of an account", "ledger_components_kind_due (kind=? AND due_day=? AND (created_us,id)<(?,?))", false, q, a)
		q, a = l.streamQuery(billing.Query{}, today, "paid_day", kindPaid, dayNum(day(11)), last, 64)
		add("a payment day's stream", "ledger_components_payments (paid_day=?)", true, q, a)
		return ps
	}
	// One connection, made to read the statistics again after Optimize (a connection
	// reads them when it loads the schema), and each EXPLAIN spelled apart from the last
	// (connections keep the statements they ran, plans included).
	conn, err := l.sql.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	check := func(stats string) {
		for _, p := range plans() {
			rows, err := conn.QueryContext(ctx, "EXPLAIN QUERY PLAN "+p.query+" -- "+stats, p.args...)
			if err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
			var details []string
			for rows.Next() {
				var id, parent, unused int
				var detail string
				if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
					t.Fatal(err)
				}
				details = append(details, detail)
			}
			rows.Close()
			got := strings.Join(details, " | ")
			if !strings.Contains(got, "SEARCH c USING INDEX "+p.search) && !strings.Contains(got, "SEARCH c USING COVERING INDEX "+p.search) {
				t.Errorf("%s (%s): plan %q, want a SEARCH of %s", p.name, stats, got, p.search)
			}
			if strings.Contains(got, "TEMP B-TREE") != p.sorts {
				t.Errorf("%s (%s): plan %q sorts: %v, want %v", p.name, stats, got, !p.sorts, p.sorts)
			}
		}
	}
	check("no statistics")
	if err := l.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	var analysed int
	if err := conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_stat1 WHERE tbl = 'ledger_components'`).Scan(&analysed); err != nil || analysed == 0 {
		t.Fatalf("Optimize left no statistics of ledger_components (%d rows, %v)", analysed, err)
	}
	if _, err := conn.ExecContext(ctx, `ANALYZE sqlite_schema`); err != nil {
		t.Fatal(err)
	}
	check("analysed")
}

// EachBill yields what the bills list's pages show, one after another, for every tab and
// sort: the same rows once each, in the same order.
func TestEachBillIsTheListsPages(t *testing.T) {
	t.Parallel()
	l, _ := openTied(t, "sqlite", 1500)
	ctx := t.Context()
	for _, tab := range []Tab{TabOutstanding, TabExpired, TabPaid, TabAll} {
		for _, sort := range []Sort{SortNewest, SortDue, SortAmount, SortNIS, SortPaid} {
			for _, desc := range []bool{false, true} {
				q := BillsQuery{Tab: tab, Sort: sort, Desc: desc, Account: "SPP"}
				name := fmt.Sprintf("%v by %v desc=%v", tab, sort, desc)
				var want []string
				for q.Offset = 0; ; q.Offset += 97 {
					q.Limit = 97
					p, err := l.Bills(ctx, q)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					for _, b := range p.Bills {
						want = append(want, b.ComponentID)
					}
					if len(p.Bills) < q.Limit {
						break
					}
				}
				var got []string
				for b, err := range l.EachBill(ctx, BillsQuery{Tab: tab, Sort: sort, Desc: desc, Account: "SPP", Offset: 40, Limit: 3}) {
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					got = append(got, b.ComponentID)
				}
				if len(want) == 0 {
					t.Fatalf("%s: an empty list tests nothing", name)
				}
				sameSequence(t, name, got, want)
			}
		}
	}
}

// An iterator whose context ends says so: the caller gets the context's error (never a
// short list that looks whole), and nothing after it. A caller that stops early stops
// the reading ahead with it.
func TestIteratorsEndWithTheirContext(t *testing.T) {
	t.Parallel()
	// Enough rows that the reading, a page or two ahead, is not done by row 1500.
	l, _ := openTied(t, "sqlite", 8000)
	march := func(d int) time.Time { return time.Date(2027, 3, d, 0, 0, 0, 0, time.UTC) }
	payments := func(ctx context.Context) iter.Seq2[PaymentRow, error] {
		return l.Payments(ctx, march(1), march(31), "")
	}
	all := func(ctx context.Context) iter.Seq2[billing.Bill, error] { return l.All(ctx, billing.Query{}) }
	byDue := func(ctx context.Context) iter.Seq2[billing.Bill, error] {
		return l.All(ctx, billing.Query{DueFrom: march(1), DueTo: march(31)})
	}
	for range 10 {
		checkEnds(t, "payments", payments)
		checkEnds(t, "all", all)
		checkEnds(t, "a due range", byDue)
	}
}

func checkEnds[R any](t *testing.T, name string, seq func(context.Context) iter.Seq2[R, error]) {
	t.Helper()
	whole := 0
	for _, err := range seq(t.Context()) {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		whole++
	}
	// Ended before the first page.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	n, failed := 0, false
	for _, err := range seq(ctx) {
		if failed {
			t.Fatalf("%s: a row after the error", name)
		}
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%s: %v, want the context's error", name, err)
			}
			failed = true
			continue
		}
		n++
	}
	if !failed || n != 0 {
		t.Fatalf("%s with its context ended: %d rows and no error", name, n)
	}
	// Ended in the middle: the rows read so far, then the error.
	ctx, cancel = context.WithCancel(t.Context())
	n, failed = 0, false
	for _, err := range seq(ctx) {
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%s: %v, want the context's error", name, err)
			}
			failed = true
			break
		}
		if n++; n == 1500 {
			cancel()
		}
	}
	cancel()
	if !failed || n >= whole {
		t.Fatalf("%s ended after 1500 of %d rows: %d rows, error %v", name, whole, n, failed)
	}
	// Stopped by the caller, then read again whole.
	for range seq(t.Context()) {
		break
	}
	again := 0
	for _, err := range seq(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
		again++
	}
	if again != whole {
		t.Fatalf("%s read again: %d rows, want %d", name, again, whole)
	}
}

// On a ledger already analysed, an index a migration adds gets statistics of its own at
// the syncer's start, without the whole table analysed again (what PRAGMA optimize would
// do, holding the write lock for seconds at a million components).
func TestNewIndexesAreAnalysedAlone(t *testing.T) {
	t.Parallel()
	l, _ := openTied(t, "sqlite", 600)
	ctx := t.Context()
	stat := func(idx string) string {
		var s string
		if err := l.sql.QueryRowContext(ctx, `SELECT COALESCE(MAX(stat), '') FROM sqlite_stat1 WHERE idx = $1`, idx).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	l.analyzeNewIndexes(ctx) // never analysed: left to the first fill
	var analysed int
	if err := l.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE name = 'sqlite_stat1'`).Scan(&analysed); err != nil || analysed != 0 {
		t.Fatalf("a ledger never analysed was analysed at start (%d, %v)", analysed, err)
	}
	if err := l.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	before := stat("ledger_components_created")
	if !strings.HasPrefix(before, "600 ") {
		t.Fatalf("statistics of the created index after Optimize: %q", before)
	}
	if _, err := l.Upsert(ctx, tiedBills(900)[600:]); err != nil { // the ledger grows by half
		t.Fatal(err)
	}
	if _, err := l.sql.ExecContext(ctx, `CREATE INDEX ledger_components_test_new ON ledger_components (notes, id)`); err != nil {
		t.Fatal(err)
	}
	l.analyzeNewIndexes(ctx)
	if s := stat("ledger_components_test_new"); !strings.HasPrefix(s, "900 ") {
		t.Errorf("the new index's statistics: %q, want those of 900 rows", s)
	}
	if after := stat("ledger_components_created"); after != before {
		t.Errorf("the created index was analysed again: %q, was %q", after, before)
	}
}
