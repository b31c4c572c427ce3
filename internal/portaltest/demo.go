package portaltest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
)

// demoSnapshot is a demo-school portal's two databases, the portal's and the sandbox's,
// copied right after Start made that portal ready: the school generated, the ledger's
// first fill and sync done, the three accounts created. Most of the CPU a demo portal
// costs is that work, and it gives the same result for the same day; so the next portal
// with the same options starts from copies of these files instead, each test with files
// of its own. The first portal is made the ordinary way, by the test that asked first.
type demoSnapshot struct {
	ready   chan struct{} // closed once the maker saved the files or gave up
	portal  []byte        // the portal's SQLite file; nil when the maker gave up
	sandbox []byte        // the sandbox's SQLite file
}

var demoSnapshots = struct {
	mu sync.Mutex
	m  map[int64]*demoSnapshot
}{m: map[int64]*demoSnapshot{}}

// demoSnapshotFor returns the snapshot for a portal with opts, and whether the caller is
// to make it; nil when the portal must be made from scratch. Only a demo school on a
// fixed day with nothing else changed is shared (a Watch only looks): a sandbox, client,
// configuration or sync adjusted by the test could make another school or ledger,
// PostgreSQL is a schema of its own, and a portal started without its first sync is a
// test of that sync.
func demoSnapshotFor(opts Options) (*demoSnapshot, bool) {
	if !opts.Demo || opts.Now.IsZero() || opts.Postgres || opts.NoFirstSync || opts.Env != "" ||
		opts.Sandbox != nil || opts.Billing != nil || opts.Upstream != nil || opts.Config != nil || opts.Sync != nil {
		return nil, false
	}
	demoSnapshots.mu.Lock()
	defer demoSnapshots.mu.Unlock()
	key := opts.Now.UnixNano()
	if s, ok := demoSnapshots.m[key]; ok {
		return s, false
	}
	s := &demoSnapshot{ready: make(chan struct{})}
	demoSnapshots.m[key] = s
	return s, true
}

// wait waits for the maker and reports whether the files are there to copy.
func (s *demoSnapshot) wait() bool {
	<-s.ready
	return s.portal != nil
}

// save copies the ready portal's databases. It runs while the portal runs: VACUUM INTO
// reads one consistent state of each, and nothing writes to the sandbox before the test
// does.
func (s *demoSnapshot) save(t testing.TB, p *Portal) {
	t.Helper()
	dir, err := os.MkdirTemp("", "portaltest-demo-")
	if err != nil {
		t.Fatalf("demo snapshot: %v", err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	portalPath, sandboxPath := filepath.Join(dir, "portal.db"), filepath.Join(dir, "sandbox.db")
	if _, err := p.DB.SQL().ExecContext(ctx, `VACUUM INTO ?`, portalPath); err != nil {
		t.Fatalf("demo snapshot of the portal's database: %v", err)
	}
	// The copies are of an instance that stopped: the leases it holds (the ledger's sync)
	// are free in them, as its Stop leaves them, or no copy could ever sync.
	cp, err := store.Open(ctx, "sqlite:"+portalPath)
	if err != nil {
		t.Fatalf("demo snapshot: %v", err)
	}
	_, err = cp.SQL().ExecContext(ctx, `UPDATE leases SET lease_owner = '', lease_until = NULL`)
	if cerr := cp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("demo snapshot: free the leases: %v", err)
	}
	if fi, err := os.Stat(portalPath + "-wal"); err == nil && fi.Size() > 0 {
		t.Fatal("demo snapshot: the portal's copy kept a write-ahead log; the file alone is not the database")
	}
	if err := p.Sandbox.SaveTo(ctx, sandboxPath); err != nil {
		t.Fatalf("demo snapshot: %v", err)
	}
	portal, err := os.ReadFile(portalPath)
	if err != nil {
		t.Fatalf("demo snapshot: %v", err)
	}
	sandbox, err := os.ReadFile(sandboxPath)
	if err != nil {
		t.Fatalf("demo snapshot: %v", err)
	}
	s.portal, s.sandbox = portal, sandbox
}

// done ends the maker's part: the waiting portals copy the files, or, when the maker
// failed before saving them, are made from scratch.
func (s *demoSnapshot) done() { close(s.ready) }

// open writes this test's copies: it returns the portal's database, open and closed at
// cleanup, and the sandbox's file for sandbox.Options.DBPath.
func (s *demoSnapshot) open(t testing.TB) (*store.DB, string) {
	t.Helper()
	dir := t.TempDir()
	portalPath, sandboxPath := filepath.Join(dir, "portal.db"), filepath.Join(dir, "sandbox.db")
	if err := os.WriteFile(portalPath, s.portal, 0o600); err != nil {
		t.Fatalf("copy the demo portal's database: %v", err)
	}
	if err := os.WriteFile(sandboxPath, s.sandbox, 0o600); err != nil {
		t.Fatalf("copy the demo sandbox's database: %v", err)
	}
	return storetest.Open(t, "sqlite:"+portalPath), sandboxPath
}
