package storetest

import (
	"context"
	"database/sql"
	"os"
	"slices"
	"testing"
)

// fakeMigrate makes a small schema with what emptying one must mind: a table another
// refers to, and a row the migrations insert.
func fakeMigrate(ctx context.Context, url string) error {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, `
CREATE TABLE parents (id INT PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE children (id INT PRIMARY KEY, parent INT NOT NULL REFERENCES parents (id));
CREATE TABLE state (name TEXT PRIMARY KEY, seq INT NOT NULL DEFAULT 0);
INSERT INTO state (name) VALUES ('ledger');
CREATE TABLE goose_db_version (id INT PRIMARY KEY);
INSERT INTO goose_db_version VALUES (1);`)
	return err
}

// testPool joins a pool of its own, as a build of other migrations would (its schemas
// are named by a made-up sum, so no other test binary takes them), and drops its
// schemas at the end.
func testPool(t *testing.T) *schemaPool {
	t.Helper()
	base := os.Getenv(PostgresEnv)
	if base == "" {
		t.Skip(PostgresEnv + " not set")
	}
	// This binary is one of the build's own while it runs, or joining a made-up build's
	// pool would drop the build's schemas when no other binary holds them.
	if _, err := poolFor(base); err != nil {
		t.Fatal(err)
	}
	p, err := joinPool(context.Background(), base, "t"+randomHex(5), fakeMigrate)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.keeper.Close()
		p.db.Close()
		admin, err := sql.Open("pgx", base)
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close()
		rows, err := admin.Query(`SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)`, p.prefix)
		if err != nil {
			t.Fatal(err)
		}
		names, err := scanStrings(rows)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			if _, err := admin.Exec(`DROP SCHEMA ` + ident(name) + ` CASCADE`); err != nil {
				t.Error(err)
			}
		}
	})
	return p
}

// exec runs statements in the pool's schema name.
func exec(t *testing.T, p *schemaPool, name, query string) {
	t.Helper()
	u, err := withSchema(p.base, name)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(query); err != nil {
		t.Fatal(err)
	}
}

func mustSchemas(t *testing.T, p *schemaPool) []string {
	t.Helper()
	names, err := p.schemas(context.Background(), p.prefix+"s_")
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// A schema given back holds the last test's rows; the next test to take it finds only
// the rows the migrations inserted, as in a schema made for it.
func TestPooledSchemaComesBackEmpty(t *testing.T) {
	p := testPool(t)
	ctx := context.Background()
	first, err := p.take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	exec(t, p, first, `
INSERT INTO parents VALUES (1, 'a'), (2, 'b');
INSERT INTO children VALUES (10, 1);
DELETE FROM children; -- a table with rows that an empty one refers to
UPDATE state SET seq = 41;
INSERT INTO state (name) VALUES ('other')`)
	p.giveBack(first)
	// Another test of the binary takes it again: it is the only one in this pool.
	again, err := p.take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.giveBack(again)
	if again != first {
		t.Fatalf("took %s, not %s again", again, first)
	}
	if !slices.Equal(p.seeded, []string{"state"}) { // goose's table is never emptied
		t.Fatalf("the pristine schema's rows are in %v, want state", p.seeded)
	}
	for _, table := range []string{"parents", "children", "state", "goose_db_version"} {
		var extra, missing int
		diff := func(a, b string) string {
			return `SELECT count(*) FROM (SELECT * FROM ` + ident(a) + `.` + ident(table) +
				` EXCEPT ALL SELECT * FROM ` + ident(b) + `.` + ident(table) + `) d`
		}
		if err := p.keeper.QueryRowContext(ctx, diff(first, p.pristine)).Scan(&extra); err != nil {
			t.Fatal(err)
		}
		if err := p.keeper.QueryRowContext(ctx, diff(p.pristine, first)).Scan(&missing); err != nil {
			t.Fatal(err)
		}
		if extra != 0 || missing != 0 {
			t.Errorf("%s: %d rows the pristine schema does not have, %d of its rows missing", table, extra, missing)
		}
	}
}

// Two tests at once never get one schema, another session cannot take one a test holds,
// and a schema no test holds but that is not whole (a binary was killed making it) is
// dropped, not handed out.
func TestPooledSchemasAreTheirTestsAlone(t *testing.T) {
	p := testPool(t)
	ctx := context.Background()
	a, err := p.take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.giveBack(a)
	b, err := p.take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.giveBack(b)
	if a == b {
		t.Fatalf("two tests got %s", a)
	}
	other, err := sql.Open("pgx", p.base)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for _, name := range []string{a, b} {
		var free bool
		if err := other.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, lockKey(name)).Scan(&free); err != nil || free {
			t.Errorf("another session could take %s (%v)", name, err)
		}
	}

	broken := p.prefix + "s_" + randomHex(6)
	if _, err := p.keeper.ExecContext(ctx, `CREATE SCHEMA `+ident(broken)); err != nil {
		t.Fatal(err)
	}
	got, err := p.take(ctx) // a and b are held: broken is the only other one
	if err != nil {
		t.Fatal(err)
	}
	defer p.giveBack(got)
	if got == broken {
		t.Errorf("%s, with no tables, was handed out", broken)
	}
	if slices.Contains(mustSchemas(t, p), broken) {
		t.Errorf("%s, with no tables, is still there", broken)
	}
}

// A build's schemas stay while a binary of it runs, and a binary of another build drops
// them once none does.
func TestOtherBuildsSchemasGoWhenUnused(t *testing.T) {
	old := testPool(t)
	ctx := context.Background()
	name, err := old.take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	old.giveBack(name)

	newer := testPool(t) // another build, while old's binary runs
	if got := mustSchemas(t, old); !slices.Contains(got, name) {
		t.Fatalf("%s dropped while a binary of its build runs: %v", name, got)
	}
	// Old's binary ends, and its session's locks with it. Given back here rather than
	// left to the end of the session, which the server sees a moment after the close.
	if _, err := old.keeper.ExecContext(ctx, `SELECT pg_advisory_unlock_all()`); err != nil {
		t.Fatal(err)
	}
	old.keeper.Close()
	old.db.Close()
	if err := newer.prepare(ctx); err != nil { // as the next binary to join does
		t.Fatal(err)
	}
	left, err := newer.schemas(ctx, old.prefix)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("an ended build's schemas stay: %v", left)
	}
}
