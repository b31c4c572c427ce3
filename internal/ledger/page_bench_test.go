package ledger_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/app"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/config"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/web"
)

var pageBenchDB struct {
	once sync.Once
	path string
	err  error
	took time.Duration
}

// pageBenchPath is a SQLite file holding the generated school of the ledger's benchmarks
// (PORTAL_LEDGER_BENCH_N components, a million by default): PORTAL_LEDGER_BENCH_DB when
// set (generated there once, shared with the ledger's own benchmarks), else a file of
// this run.
func pageBenchPath(b *testing.B) string {
	b.Helper()
	pageBenchDB.once.Do(func() {
		start := time.Now()
		path := os.Getenv("PORTAL_LEDGER_BENCH_DB")
		if path != "" {
			if _, err := os.Stat(path); err == nil {
				pageBenchDB.path = path
				return
			}
		} else {
			dir, err := os.MkdirTemp("", "ledger-page-bench-")
			if err != nil {
				pageBenchDB.err = err
				return
			}
			path = filepath.Join(dir, "ledger.db")
		}
		ctx := context.Background()
		db, err := store.Open(ctx, "sqlite:"+path, time.Now)
		if err != nil {
			pageBenchDB.err = err
			return
		}
		defer db.Close()
		if _, err := ledger.New(ctx, ledger.Config{DB: db, Clock: clock.System(jakarta)}); err != nil {
			pageBenchDB.err = err
			return
		}
		n := 1_000_000
		if v := os.Getenv("PORTAL_LEDGER_BENCH_N"); v != "" {
			n = envInt("PORTAL_LEDGER_BENCH_N", n)
		}
		if pageBenchDB.err = ledger.Generate(ctx, db, n, jakarta); pageBenchDB.err == nil {
			_, pageBenchDB.err = db.SQL().ExecContext(ctx, `ANALYZE`)
		}
		pageBenchDB.path, pageBenchDB.took = path, time.Since(start)
	})
	if pageBenchDB.err != nil {
		b.Fatal(pageBenchDB.err)
	}
	if pageBenchDB.took > 0 {
		b.Logf("generated the school in %v", pageBenchDB.took.Round(time.Millisecond))
	}
	return pageBenchDB.path
}

var csrfMeta = regexp.MustCompile(`<meta name="csrf-token" content="([^"]+)"`)

// BenchmarkPages asks the portal's own pages, over HTTP, what a person asks at a million
// components: the whole handler (session, the ledger's queries, the view, the HTML)
// with nothing cached between requests. The billing service is never called (its
// address answers nothing): every page is the ledger's. The account is a principal's: a
// finance account's student page also asks the service whether a delete is allowed.
func BenchmarkPages(b *testing.B) {
	ctx := context.Background()
	db, err := store.Open(ctx, "sqlite:"+pageBenchPath(b), time.Now)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	cfg, err := config.Load(func(string) string { return "" })
	if err != nil {
		b.Fatal(err)
	}
	cfg.Location, cfg.DataDir = jakarta, b.TempDir()
	now := func() time.Time { return ledger.GenToday.Add(3 * time.Hour) }
	client, err := billing.New(billing.Config{BaseURL: "http://127.0.0.1:9", Username: "bench", Password: "bench", Location: jakarta, Now: now})
	if err != nil {
		b.Fatal(err)
	}
	a, err := app.New(ctx, app.Options{Config: cfg, DB: db, Billing: client, Now: now, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	auth.SetBcryptCostForTests(4)
	if _, err := a.Auth.CreateUser(ctx, auth.SystemActor, "bench", "Bench", auth.Principal, "bench-password-long"); err != nil &&
		!strings.Contains(err.Error(), "exist") && !strings.Contains(err.Error(), "taken") {
		b.Logf("create the bench account: %v", err)
	}
	srv := httptest.NewServer(web.New(web.Deps{App: a, SessionKeys: [2][]byte{[]byte(strings.Repeat("k", 32)), []byte(strings.Repeat("b", 32))}}))
	b.Cleanup(srv.Close)
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string, headers ...string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		res, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res.StatusCode, string(body)
	}
	_, login := get("/login")
	m := csrfMeta.FindStringSubmatch(login)
	if m == nil {
		b.Fatal("no CSRF token on the sign-in page")
	}
	res, err := hc.PostForm(srv.URL+"/login", url.Values{"username": {"bench"}, "password": {"bench-password-long"}, "csrf_token": {m[1]}})
	if err != nil || res.StatusCode != http.StatusSeeOther {
		b.Fatalf("sign in: %v %v", res, err)
	}
	res.Body.Close()
	_, dash := get("/")
	live := regexp.MustCompile(`id="dashboard"[^>]*hx-get="([^"]+)"`).FindStringSubmatch(dash)
	if live == nil {
		b.Fatal("no live address on the dashboard")
	}
	cases := []struct {
		name, path string
		status     int
		headers    []string
	}{
		{"dashboard", "/", http.StatusOK, nil},
		{"dashboard-unchanged", strings.ReplaceAll(live[1], "&amp;", "&"), http.StatusNoContent, []string{"HX-Request", "true"}},
		{"bills-first-page", "/bills", http.StatusOK, nil},
		{"bills-all-by-amount", "/bills?state=all&sort=-amount", http.StatusOK, nil},
		{"bills-search-name", "/bills?state=all&q=ayu+pratama", http.StatusOK, nil},
		{"report-outstanding", "/reports/outstanding", http.StatusOK, nil},
		{"report-payments-month", "/reports/payments?from=2027-02-01&to=2027-02-28", http.StatusOK, nil},
		{"report-accounts-year", "/reports/accounts?from=2026-07-01&to=2027-03-15", http.StatusOK, nil},
		{"students", "/students", http.StatusOK, nil},
		{"student-page", "/students/20210042", http.StatusOK, nil},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if status, body := get(c.path, c.headers...); status != c.status {
					b.Fatalf("GET %s: %d\n%.500s", c.path, status, body)
				}
			}
		})
	}
}
