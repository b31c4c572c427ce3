package ledger

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
)

// benchComponents is the size of the benchmarks' ledger: 1,000,000, or
// PORTAL_LEDGER_BENCH_N for a quicker look.
func benchComponents() int {
	if v, err := strconv.Atoi(os.Getenv("PORTAL_LEDGER_BENCH_N")); err == nil && v > 0 {
		return v
	}
	return 1_000_000
}

// benchDir holds the generated SQLite file for the whole run; TestMain removes it.
var benchDir string

// TestMain runs six tests at once: half the work of the engine tests is PostgreSQL's,
// in a process of its own, while the test waits (storetest.SetParallel). Filling ledgers
// churns the heap: the tests collect less often (storetest.CollectLess).
func TestMain(m *testing.M) {
	storetest.SetParallel(6)
	storetest.CollectLess()
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	if benchPG.drop != nil {
		benchPG.drop()
	}
	os.Exit(code)
}

var benchPG struct {
	once sync.Once
	url  string
	drop func()
	err  error
	took time.Duration
}

// benchPostgresURL generates the benchmark school into a PostgreSQL schema once per run
// (dropped when the run ends) and returns a URL whose connections use it; it skips
// without PORTAL_TEST_POSTGRES_URL.
func benchPostgresURL(b *testing.B) string {
	b.Helper()
	base := os.Getenv(storetest.PostgresEnv)
	if base == "" {
		b.Skip(storetest.PostgresEnv + " not set")
	}
	benchPG.once.Do(func() {
		start := time.Now()
		admin, err := sql.Open("pgx", base)
		if err != nil {
			benchPG.err = err
			return
		}
		schema := fmt.Sprintf("bench_ledger_%d", time.Now().UnixNano())
		if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
			admin.Close()
			benchPG.err = err
			return
		}
		benchPG.drop = func() {
			admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`)
			admin.Close()
		}
		u, err := url.Parse(base)
		if err != nil {
			benchPG.err = err
			return
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		benchPG.url = u.String()
		ctx := context.Background()
		db, err := store.Open(ctx, benchPG.url, time.Now)
		if err != nil {
			benchPG.err = err
			return
		}
		defer db.Close()
		if _, err := New(ctx, Config{DB: db, Clock: clock.System(i18n.Jakarta())}); err != nil {
			benchPG.err = err
			return
		}
		if benchPG.err = generate(ctx, db, benchComponents(), i18n.Jakarta()); benchPG.err != nil {
			return
		}
		// What autovacuum does to a table after a bulk load, at once: statistics, and
		// the visibility map that lets index-only scans skip the table.
		_, benchPG.err = db.SQL().ExecContext(ctx, `VACUUM ANALYZE`)
		benchPG.took = time.Since(start)
	})
	if benchPG.err != nil {
		b.Fatal(benchPG.err)
	}
	b.Logf("generated %d components in PostgreSQL in %v", benchComponents(), benchPG.took.Round(time.Millisecond))
	return benchPG.url
}

var benchFile struct {
	once sync.Once
	path string
	err  error
	took time.Duration
}

// benchSQLitePath generates the benchmark school into a SQLite file once per run.
func benchSQLitePath(b *testing.B) string {
	b.Helper()
	benchFile.once.Do(func() {
		start := time.Now()
		if keep := os.Getenv("PORTAL_LEDGER_BENCH_DB"); keep != "" {
			// A file kept between runs (when looking at query plans): generated once.
			benchFile.path = keep
			if _, err := os.Stat(keep); err == nil {
				return
			}
		} else {
			if benchDir, benchFile.err = os.MkdirTemp("", "ledger-bench-"); benchFile.err != nil {
				return
			}
			benchFile.path = filepath.Join(benchDir, "ledger.db")
		}
		ctx := context.Background()
		db, err := store.Open(ctx, "sqlite:"+benchFile.path, time.Now)
		if err != nil {
			benchFile.err = err
			return
		}
		defer db.Close()
		if _, err := New(ctx, Config{DB: db, Clock: clock.System(i18n.Jakarta())}); err != nil {
			benchFile.err = err
			return
		}
		benchFile.err = generate(ctx, db, benchComponents(), i18n.Jakarta())
		if benchFile.err == nil {
			_, benchFile.err = db.SQL().ExecContext(ctx, `ANALYZE`)
		}
		benchFile.took = time.Since(start)
	})
	if benchFile.err != nil {
		b.Fatal(benchFile.err)
	}
	b.Logf("generated %d components in %v", benchComponents(), benchFile.took.Round(time.Millisecond))
	return benchFile.path
}

// benchLedger opens the generated school: the SQLite file, or a fresh PostgreSQL schema
// filled the same way.
func benchLedger(b *testing.B, engine string) *Ledger {
	b.Helper()
	ctx := context.Background()
	var db *store.DB
	switch engine {
	case "sqlite":
		var err error
		if db, err = store.Open(ctx, "sqlite:"+benchSQLitePath(b), time.Now); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
	case "postgres":
		var err error
		if db, err = store.Open(ctx, benchPostgresURL(b), time.Now); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
	}
	l, err := New(ctx, Config{DB: db, Clock: clock.New(func() time.Time { return genToday.Add(3 * time.Hour) }, i18n.Jakarta())})
	if err != nil {
		b.Fatal(err)
	}
	return l
}

// BenchmarkDashboardLedger computes every dashboard figure from the ledger, with no
// cache of its own, at a million components. The sqlite-new-connection case opens the
// database afresh for each dashboard, so SQLite's page cache starts empty too (the
// operating system's file cache stays warm).
func BenchmarkDashboardLedger(b *testing.B) {
	b.Run("sqlite-new-connection", func(b *testing.B) {
		path := benchSQLitePath(b)
		ctx := context.Background()
		now := func() time.Time { return genToday.Add(3 * time.Hour) }
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			db, err := store.Open(ctx, "sqlite:"+path, time.Now)
			if err != nil {
				b.Fatal(err)
			}
			l, err := New(ctx, Config{DB: db, Clock: clock.New(now, i18n.Jakarta())})
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			d, err := l.Dashboard(ctx)
			b.StopTimer()
			if err != nil || d.Bills < benchComponents()*9/10 {
				b.Fatalf("dashboard: %d components, %v", d.Bills, err)
			}
			db.Close()
			b.StartTimer()
		}
	})
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run(engine, func(b *testing.B) {
			l := benchLedger(b, engine)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				d, err := l.Dashboard(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if d.Bills < benchComponents()*9/10 {
					b.Fatalf("dashboard counted %d components", d.Bills)
				}
			}
		})
	}
}

// billsBenchCases are the bills lists the benchmarks read: the default tab, and the
// others with a sort, a filter or a search.
var billsBenchCases = []struct {
	name string
	q    BillsQuery
}{
	{"outstanding", BillsQuery{}},
	{"paid", BillsQuery{Tab: TabPaid}},
	{"expired", BillsQuery{Tab: TabExpired}},
	{"all-by-due", BillsQuery{Tab: TabAll, Sort: SortDue}},
	{"outstanding-by-due", BillsQuery{Sort: SortDue}},
	{"expired-by-due-desc", BillsQuery{Tab: TabExpired, Sort: SortDue, Desc: true}},
	{"all-by-amount-desc", BillsQuery{Tab: TabAll, Sort: SortAmount, Desc: true}},
	{"paid-by-nis", BillsQuery{Tab: TabPaid, Sort: SortNIS}},
	{"all-by-paid", BillsQuery{Tab: TabAll, Sort: SortPaid}},
	{"outstanding-SPP-march", BillsQuery{Account: "SPP", DueFrom: time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC), DueTo: time.Date(2027, 3, 31, 0, 0, 0, 0, time.UTC)}},
	{"paid-in-february", BillsQuery{Tab: TabPaid, PaidFrom: time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC), PaidTo: time.Date(2027, 2, 28, 0, 0, 0, 0, time.UTC)}},
	{"all-search-name", BillsQuery{Tab: TabAll, Search: "ayu pratama"}},
	{"all-search-nis", BillsQuery{Tab: TabAll, Search: "2021123"}},
	{"all-ref", BillsQuery{Tab: TabAll, Ref: "REF202400012300"}},
	{"outstanding-class", BillsQuery{Class: "Kelas 9C"}},
	{"all-notes", BillsQuery{Tab: TabAll, Notes: "cicilan"}},
}

// BenchmarkBillsFirstPage reads the bills list's first page with the count and totals
// of the whole result at a million components, each time as if the filter were new (the
// totals computed, not kept from the page before).
func BenchmarkBillsFirstPage(b *testing.B) { benchBillsPages(b, 0, true) }

// BenchmarkBillsNextPage reads the second page of the same lists: the totals are the
// first page's, kept while nothing changed.
func BenchmarkBillsNextPage(b *testing.B) { benchBillsPages(b, 50, false) }

func benchBillsPages(b *testing.B, offset int, fresh bool) {
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run(engine, func(b *testing.B) {
			l := benchLedger(b, engine)
			ctx := context.Background()
			for _, c := range billsBenchCases {
				b.Run(c.name, func(b *testing.B) {
					q := c.q
					q.Offset = offset
					first, err := l.Bills(ctx, c.q)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					for b.Loop() {
						if fresh {
							l.totals = totalsCache{}
						}
						p, err := l.Bills(ctx, q)
						if err != nil {
							b.Fatal(err)
						}
						if len(p.Bills) == 0 && first.Totals.Count > offset || p.Totals != first.Totals {
							b.Fatalf("%d rows, totals %+v; first page's %+v", len(p.Bills), p.Totals, first.Totals)
						}
					}
				})
			}
		})
	}
}

// BenchmarkReportsLedger answers each report (and the iterator shapes the statement, the
// student page and upcoming dues read) at a million components.
func BenchmarkReportsLedger(b *testing.B) {
	day := func(m time.Month, d int) time.Time { return time.Date(2027, m, d, 0, 0, 0, 0, time.UTC) }
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run(engine, func(b *testing.B) {
			l := benchLedger(b, engine)
			ctx := context.Background()
			drain := func(seq func(func(billing.Bill, error) bool)) int {
				n := 0
				for _, err := range seq {
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
				return n
			}
			cases := []struct {
				name string
				run  func() int
			}{
				{"outstanding", func() int {
					r, err := l.Outstanding(ctx, OutstandingFilter{})
					if err != nil {
						b.Fatal(err)
					}
					return len(r.Rows)
				}},
				{"outstanding-class", func() int {
					r, err := l.Outstanding(ctx, OutstandingFilter{Class: "Kelas 7A"})
					if err != nil {
						b.Fatal(err)
					}
					return len(r.Rows)
				}},
				{"payment-days-year", func() int {
					days, _, err := l.PaymentDays(ctx, time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC), day(3, 15), "")
					if err != nil {
						b.Fatal(err)
					}
					return len(days)
				}},
				{"payments-month-rows", func() int {
					n := 0
					for _, err := range l.Payments(ctx, day(2, 1), day(2, 28), "") {
						if err != nil {
							b.Fatal(err)
						}
						n++
					}
					return n
				}},
				{"payments-one-day-iterator", func() int {
					return drain(l.All(ctx, billing.Query{PaidFrom: day(2, 8), PaidTo: day(2, 8)}))
				}},
				{"accounts-year", func() int {
					r, err := l.Accounts(ctx, time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC), day(3, 15))
					if err != nil {
						b.Fatal(err)
					}
					return len(r.Rows)
				}},
				{"student-statement", func() int { return drain(l.AllForStudent(ctx, "20211234", billing.Query{})) }},
				{"upcoming-week", func() int {
					return drain(l.All(ctx, billing.Query{State: billing.StateProvisioned, DueFrom: day(3, 15), DueTo: day(3, 21)}))
				}},
			}
			for _, c := range cases {
				b.Run(c.name, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if c.run() == 0 && c.name != "upcoming-week" {
							b.Fatal("nothing read")
						}
					}
				})
			}
		})
	}
}
