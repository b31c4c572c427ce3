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

// snapshot is a portal's two databases, the portal's and the sandbox's, copied right
// after Start made that portal ready: the school generated (a demo school, or none), the
// ledger's first fill and sync done, the three accounts created. That work is most of
// the CPU a demo portal costs (about a second) and a quarter of an empty one's (about
// 5 of 22 ms: the sandbox's schema, the accounts' hashes, the first sync), and it gives
// the same result for the same day; so the next portal with the same options starts
// from copies of these files instead, each test with files of its own. The first portal
// is made the ordinary way, by the test that asked first.
type snapshot struct {
	ready   chan struct{} // closed once the maker saved the files or gave up
	portal  []byte        // the portal's SQLite file; nil when the maker gave up
	sandbox []byte        // the sandbox's SQLite file
}

var snapshots = struct {
	mu sync.Mutex
	m  map[snapshotKey]*snapshot
}{m: map[snapshotKey]*snapshot{}}

type snapshotKey struct {
	demo bool
	now  int64
}

// snapshotFor returns the snapshot for a portal with opts, and whether the caller is
// to make it; nil when the portal must be made from scratch. Only a portal on a fixed
// day, with the demo school or none, and nothing else changed is shared (a Watch only
// looks; the upload runner's settings act once the portal runs): a sandbox, client,
// configuration or sync adjusted by the test could make another school or ledger,
// PostgreSQL is a schema of its own, and a portal started without its first sync is a
// test of that sync.
func snapshotFor(opts Options) (*snapshot, bool) {
	if opts.Now.IsZero() || opts.Postgres || opts.NoFirstSync || opts.Env != "" ||
		opts.Sandbox != nil || opts.Billing != nil || opts.Upstream != nil || opts.Config != nil || opts.Sync != nil {
		return nil, false
	}
	snapshots.mu.Lock()
	defer snapshots.mu.Unlock()
	key := snapshotKey{opts.Demo, opts.Now.UnixNano()}
	if s, ok := snapshots.m[key]; ok {
		return s, false
	}
	s := &snapshot{ready: make(chan struct{})}
	snapshots.m[key] = s
	return s, true
}

// wait waits for the maker and reports whether the files are there to copy.
func (s *snapshot) wait() bool {
	<-s.ready
	return s.portal != nil
}

// save copies the ready portal's databases. It runs while the portal runs: VACUUM INTO
// reads one consistent state of each, and nothing writes to the sandbox before the test
// does.
func (s *snapshot) save(t testing.TB, p *Portal) {
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
	cp, err := store.Open(ctx, "sqlite:"+portalPath, storetest.RealTime)
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
func (s *snapshot) done() { close(s.ready) }

// open writes this test's copies: it returns the portal's database, open and closed at
// cleanup, and the sandbox's file for sandbox.Options.DBPath.
func (s *snapshot) open(t testing.TB) (*store.DB, string) {
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
