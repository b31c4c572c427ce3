package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sekolah/portal/internal/store"
)

// MigratedPostgresURL returns the URL of a migrated PostgreSQL schema that only this test
// uses, with no rows but those the migrations insert, taken from a pool of such schemas
// in the database at PORTAL_TEST_POSTGRES_URL and given back when the test ends. The
// test is skipped when the variable is not set.
//
// Making a schema (the migrations' tables and indexes, and dropping them again) is most
// of what a short PostgreSQL test costs the server: 80–130 ms of CPU against about 13 to
// empty a used one. So the schemas outlive the tests and the test binaries: a test takes
// one no other test holds (a session advisory lock of its binary's), empties it, and at
// its end lets it go, rows and all, for the next. Between runs the schemas stay in the
// database, named tp_<migrations><role>_s_…, a pool for each role; a run of other
// migrations drops them when no binary of these migrations runs.
func MigratedPostgresURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(PostgresEnv)
	if base == "" {
		t.Skip(PostgresEnv + " not set")
	}
	p, err := poolFor(base)
	if err != nil {
		t.Fatalf("PostgreSQL test schemas: %v", err)
	}
	schema, err := p.take(context.Background())
	if err != nil {
		t.Fatalf("PostgreSQL test schema: %v", err)
	}
	// Registered before the pools that use the schema, so it runs after they are closed.
	t.Cleanup(func() { p.giveBack(schema) })
	u, err := withSchema(base, schema)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// schemaPool is this binary's part in the pool of schemas of one database.
type schemaPool struct {
	base     string
	prefix   string                                      // tp_<migrations><role>_: this build's schemas, for this role
	pristine string                                      // the migrated schema the others are emptied to
	tables   []string                                    // the migrations' tables, but goose's
	seeded   []string                                    // those with rows straight after the migrations
	migrate  func(ctx context.Context, url string) error // makes the tables in an empty schema
	mu       sync.Mutex
	db       *sql.DB
	keeper   *sql.Conn // the session holding this binary's advisory locks, open while it runs
	held     map[string]bool
}

var pools = struct {
	mu sync.Mutex
	m  map[string]*schemaPool
}{m: map[string]*schemaPool{}}

// poolFor returns this binary's pool for the database at base, joining it the first time.
func poolFor(base string) (*schemaPool, error) {
	pools.mu.Lock()
	defer pools.mu.Unlock()
	if p, ok := pools.m[base]; ok {
		return p, nil
	}
	p, err := joinPool(context.Background(), base, store.MigrationsSum()[:12], storeMigrate)
	if err != nil {
		return nil, err
	}
	pools.m[base] = p
	return p, nil
}

// poolLock is the advisory lock under which binaries make the pristine schema and drop
// the schemas of other migrations.
const poolLock = "storetest pool"

// lockKey is the advisory lock key of name.
func lockKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte("storetest\x00" + name))
	return int64(h.Sum64() >> 1)
}

// buildPrefix returns the tp_<migrations><role>_ a pool schema's name starts with, or "".
func buildPrefix(name string) string {
	rest, ok := strings.CutPrefix(name, "tp_")
	if !ok {
		return ""
	}
	sum, _, ok := strings.Cut(rest, "_")
	if !ok || sum == "" {
		return ""
	}
	return "tp_" + sum + "_"
}

// joinPool opens the keeper session, makes the pristine schema if no binary of these
// migrations has, drops the unused schemas of other migrations, and reads what emptying
// a schema takes from the pristine one.
func joinPool(ctx context.Context, base, sum string, migrate func(ctx context.Context, url string) error) (*schemaPool, error) {
	p := &schemaPool{base: base, migrate: migrate, held: map[string]bool{}}
	db, err := sql.Open("pgx", base)
	if err != nil {
		return nil, err
	}
	db.SetMaxIdleConns(1)
	p.db = db
	if p.keeper, err = db.Conn(ctx); err != nil {
		db.Close()
		return nil, err
	}
	// Each role has a pool of its own: engineers sharing a database under roles of
	// their own cannot read, empty or drop each other's schemas.
	var role string
	if err := p.keeper.QueryRowContext(ctx, `SELECT current_user`).Scan(&role); err != nil {
		return nil, err
	}
	h := fnv.New32a()
	h.Write([]byte(role))
	p.prefix = fmt.Sprintf("tp_%s%08x_", sum, h.Sum32())
	p.pristine = p.prefix + "pristine"
	// The pristine schema is read by every binary of these migrations while it runs: a
	// shared lock, which a run of other migrations needs to have alone to drop it.
	if _, err := p.keeper.ExecContext(ctx, `SELECT pg_advisory_lock_shared($1)`, lockKey(p.pristine)); err != nil {
		return nil, err
	}
	if err := p.prepare(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// prepare makes the pristine schema when it is missing and drops what no run needs,
// under poolLock; then reads the tables.
func (p *schemaPool) prepare(ctx context.Context) (err error) {
	if _, err := p.keeper.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, lockKey(poolLock)); err != nil {
		return err
	}
	defer func() {
		_, uerr := p.keeper.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, lockKey(poolLock))
		err = errors.Join(err, uerr)
	}()
	names, err := p.schemas(ctx, "tp_")
	if err != nil {
		return err
	}
	// Other builds' schemas go when no binary of theirs runs: none holds their pristine
	// schema's shared lock. Making a pristine schema happens only under poolLock, so a
	// making_ schema found here was cut short.
	others := map[string][]string{} // build prefix: its schemas
	for _, name := range names {
		build := buildPrefix(name)
		switch {
		case build == "":
			continue // not the pool's
		case build == p.prefix:
			if strings.HasPrefix(name, p.prefix+"making_") {
				if _, err := p.keeper.ExecContext(ctx, `DROP SCHEMA `+ident(name)+` CASCADE`); err != nil {
					return err
				}
			}
		default:
			others[build] = append(others[build], name)
		}
	}
	for build, schemas := range others {
		var unused bool
		if err := p.keeper.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, lockKey(build+"pristine")).Scan(&unused); err != nil {
			return err
		}
		if !unused {
			continue
		}
		for _, name := range schemas {
			if _, err := p.keeper.ExecContext(ctx, `DROP SCHEMA `+ident(name)+` CASCADE`); err != nil {
				return err
			}
		}
		if _, err := p.keeper.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, lockKey(build+"pristine")); err != nil {
			return err
		}
	}
	if !slices.Contains(names, p.pristine) {
		// Made under another name and renamed once migrated: a binary killed meanwhile
		// leaves only a making_ schema, which the next one drops.
		making := p.prefix + "making_" + randomHex(4)
		if err := p.migrated(ctx, making); err != nil {
			return fmt.Errorf("make %s: %w", p.pristine, err)
		}
		if _, err := p.keeper.ExecContext(ctx, `ALTER SCHEMA `+ident(making)+` RENAME TO `+ident(p.pristine)); err != nil {
			return err
		}
	}
	rows, err := p.keeper.QueryContext(ctx,
		`SELECT tablename FROM pg_tables WHERE schemaname = $1 AND tablename <> 'goose_db_version' ORDER BY tablename`, p.pristine)
	if err != nil {
		return err
	}
	if p.tables, err = scanStrings(rows); err != nil {
		return err
	}
	if p.seeded, err = p.withRows(ctx, p.pristine); err != nil {
		return err
	}
	return nil
}

// migrated creates the schema name and runs the migrations in it.
func (p *schemaPool) migrated(ctx context.Context, name string) error {
	if _, err := p.keeper.ExecContext(ctx, `CREATE SCHEMA `+ident(name)); err != nil {
		return err
	}
	u, err := withSchema(p.base, name)
	if err != nil {
		return err
	}
	return p.migrate(ctx, u)
}

// storeMigrate runs the store's migrations at url.
func storeMigrate(ctx context.Context, url string) error {
	db, err := store.Open(ctx, url, RealTime)
	if err != nil {
		return err
	}
	return db.Close()
}

// take returns a schema of this build no test holds, emptied to the pristine one's rows,
// or a new one; the binary holds it until giveBack.
func (p *schemaPool) take(ctx context.Context) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	names, err := p.schemas(ctx, p.prefix+"s_")
	if err != nil {
		return "", err
	}
	for _, name := range names {
		if p.held[name] {
			continue // session locks nest: this session would get it again
		}
		var free bool
		if err := p.keeper.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, lockKey(name)).Scan(&free); err != nil {
			return "", err
		}
		if !free {
			continue
		}
		if err := p.empty(ctx, name); err != nil {
			// Not a whole schema of these migrations (a binary was killed making it):
			// dropped, and the next one tried.
			_, derr := p.keeper.ExecContext(ctx, `DROP SCHEMA `+ident(name)+` CASCADE`)
			if _, uerr := p.keeper.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, lockKey(name)); derr == nil {
				derr = uerr
			}
			if derr != nil {
				return "", errors.Join(err, derr)
			}
			continue
		}
		p.held[name] = true
		return name, nil
	}
	// None free: a new one, locked before it exists so no other binary takes it.
	name := p.prefix + "s_" + randomHex(6)
	if _, err := p.keeper.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, lockKey(name)); err != nil {
		return "", err
	}
	if err := p.migrated(ctx, name); err != nil {
		_, _ = p.keeper.ExecContext(ctx, `DROP SCHEMA IF EXISTS `+ident(name)+` CASCADE`)
		_, _ = p.keeper.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, lockKey(name))
		return "", err
	}
	p.held[name] = true
	return name, nil
}

// giveBack lets the schema go for the next test, of this binary or another.
func (p *schemaPool) giveBack(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.held, name)
	_, _ = p.keeper.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1)`, lockKey(name))
}

// empty leaves the schema name as the migrations left the pristine one: the tables that
// have rows are truncated (with what refers to them), in one transaction with putting
// back the migrations' own rows. Truncating, unlike deleting, leaves no dead rows for
// the next test to wade through.
func (p *schemaPool) empty(ctx context.Context, name string) error {
	full, err := p.withRows(ctx, name)
	if err != nil {
		return err
	}
	// One simple query: PostgreSQL runs its statements as one transaction.
	var b strings.Builder
	if len(full) > 0 {
		qualified := make([]string, len(full))
		for i, t := range full {
			qualified[i] = ident(name) + "." + ident(t)
		}
		b.WriteString("TRUNCATE " + strings.Join(qualified, ", ") + " CASCADE;")
	}
	for _, t := range p.seeded {
		if !slices.Contains(full, t) {
			b.WriteString("DELETE FROM " + ident(name) + "." + ident(t) + ";")
		}
		b.WriteString("INSERT INTO " + ident(name) + "." + ident(t) + " SELECT * FROM " + ident(p.pristine) + "." + ident(t) + ";")
	}
	if b.Len() == 0 {
		return nil
	}
	_, err = p.keeper.ExecContext(ctx, b.String())
	return err
}

// withRows returns the tables of schema (those of the pristine one) that have a row.
func (p *schemaPool) withRows(ctx context.Context, schema string) ([]string, error) {
	if len(p.tables) == 0 {
		return nil, nil
	}
	probes := make([]string, len(p.tables))
	for i, t := range p.tables {
		probes[i] = fmt.Sprintf(`SELECT %s::text WHERE EXISTS (SELECT 1 FROM %s.%s)`, quoteLiteral(t), ident(schema), ident(t))
	}
	rows, err := p.keeper.QueryContext(ctx, strings.Join(probes, " UNION ALL "))
	if err != nil {
		return nil, err
	}
	return scanStrings(rows)
}

// schemas lists the role's schemas whose names start with prefix.
func (p *schemaPool) schemas(ctx context.Context, prefix string) ([]string, error) {
	rows, err := p.keeper.QueryContext(ctx, `SELECT nspname FROM pg_namespace
		WHERE starts_with(nspname, $1) AND pg_get_userbyid(nspowner) = current_user ORDER BY nspname`, prefix)
	if err != nil {
		return nil, err
	}
	return scanStrings(rows)
}

func scanStrings(rows *sql.Rows) ([]string, error) {
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, s)
	}
	return out, errors.Join(rows.Err(), rows.Close())
}

// withSchema returns the URL base with connections whose search_path is schema.
func withSchema(base, schema string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("%s is not a URL: %w", PostgresEnv, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

func ident(name string) string { return pgx.Identifier{name}.Sanitize() }

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
