package store_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/store/storetest"
)

// eachDB runs fn against a fresh SQLite file and, when PORTAL_TEST_POSTGRES_URL
// is set, against a fresh schema in that PostgreSQL database.
func eachDB(t *testing.T, fn func(t *testing.T, db *store.DB)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		fn(t, storetest.OpenTest(t))
	})
	t.Run("postgres", func(t *testing.T) {
		fn(t, storetest.OpenPostgres(t))
	})
}

// postgresSchemaURL creates an empty schema, dropped after the test, and
// returns a URL whose connections use it.
func postgresSchemaURL(t *testing.T) string { return storetest.PostgresURL(t) }

func TestOpenSQLiteURLForms(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name, url, file string
	}{
		{"sqlite prefix", "sqlite:" + filepath.Join(dir, "a", "portal.db"), filepath.Join(dir, "a", "portal.db")},
		{"sqlite triple slash", "sqlite://" + filepath.Join(dir, "b", "portal.db"), filepath.Join(dir, "b", "portal.db")},
		{"plain path", filepath.Join(dir, "c", "d", "portal.db"), filepath.Join(dir, "c", "d", "portal.db")},
		{"file URL", "file:" + filepath.Join(dir, "e", "portal.db") + "?cache=private", filepath.Join(dir, "e", "portal.db")},
		{"file URL with authority", "file://" + filepath.Join(dir, "f", "portal.db"), filepath.Join(dir, "f", "portal.db")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			for range 2 { // the second open finds the migrations applied
				db, err := store.Open(ctx, tt.url, time.Now)
				if err != nil {
					t.Fatalf("Open(%q): %v", tt.url, err)
				}
				if db.Dialect() != store.DialectSQLite {
					t.Errorf("Dialect() = %q", db.Dialect())
				}
				if _, err := db.CountUsers(ctx); err != nil {
					t.Errorf("CountUsers: %v", err)
				}
				if err := db.Close(); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := os.Stat(tt.file); err != nil {
				t.Errorf("database file: %v", err)
			}
		})
	}
}

func TestOpenRejects(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"", "file://otherhost/x.db"} {
		if db, err := store.Open(t.Context(), u, time.Now); err == nil {
			db.Close()
			t.Errorf("Open(%q) succeeded", u)
		}
	}
}

func TestSQLitePragmas(t *testing.T) {
	t.Parallel()
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "portal.db"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tests := []struct {
		pragma, want string
	}{
		{"journal_mode", "wal"},
		{"busy_timeout", "5000"},
		{"foreign_keys", "1"},
		{"synchronous", "1"}, // NORMAL
	}
	for _, tt := range tests {
		var got string
		if err := db.SQL().QueryRowContext(t.Context(), "PRAGMA "+tt.pragma).Scan(&got); err != nil {
			t.Fatalf("PRAGMA %s: %v", tt.pragma, err)
		}
		if got != tt.want {
			t.Errorf("PRAGMA %s = %q, want %q", tt.pragma, got, tt.want)
		}
	}
}

func TestPlaceholdersArePositional(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *store.DB) {
		var a, b, c string
		err := db.SQL().QueryRowContext(t.Context(),
			`SELECT CAST($2 AS TEXT), CAST($1 AS TEXT), CAST($2 AS TEXT)`, "one", "two").Scan(&a, &b, &c)
		if err != nil {
			t.Fatal(err)
		}
		if a != "two" || b != "one" || c != "two" {
			t.Errorf("got %q %q %q, want two one two", a, b, c)
		}
	})
}

func TestTimesReadBackUTC(t *testing.T) {
	t.Parallel()
	jakarta := time.FixedZone("WIB", 7*3600)
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		created := time.Date(2025, 7, 1, 8, 30, 15, 123456789, jakarta)
		u := store.User{Username: "clock", Role: "finance", PasswordHash: "x", CreatedAt: created}
		if err := db.CreateUser(ctx, &u); err != nil {
			t.Fatal(err)
		}
		got, err := db.UserByID(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := created.UTC().Truncate(time.Microsecond)
		for name, v := range map[string]time.Time{"CreatedAt": got.CreatedAt, "UpdatedAt": got.UpdatedAt, "PasswordChangedAt": got.PasswordChangedAt} {
			if v.Location() != time.UTC {
				t.Errorf("%s location = %v, want UTC", name, v.Location())
			}
		}
		if !got.CreatedAt.Equal(want) || got.CreatedAt != want {
			t.Errorf("CreatedAt = %v, want %v", got.CreatedAt, want)
		}
	})
}

func TestUsers(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		if n, err := db.CountUsers(ctx); err != nil || n != 0 {
			t.Fatalf("CountUsers = %d, %v", n, err)
		}
		for _, name := range []string{"  Siti ", "budi", "ANI"} {
			u := store.User{Username: name, DisplayName: strings.TrimSpace(name), Role: "finance", PasswordHash: "h", Lang: "id"}
			if err := db.CreateUser(ctx, &u); err != nil {
				t.Fatalf("CreateUser(%q): %v", name, err)
			}
			if u.ID == "" || u.CreatedAt.IsZero() {
				t.Errorf("CreateUser did not fill ID/CreatedAt: %+v", u)
			}
		}
		dup := store.User{Username: "SITI", Role: "admin", PasswordHash: "h"}
		if err := db.CreateUser(ctx, &dup); !errors.Is(err, store.ErrConflict) {
			t.Errorf("duplicate username: err = %v, want ErrConflict", err)
		}

		siti, err := db.UserByUsername(ctx, "sItI")
		if err != nil {
			t.Fatal(err)
		}
		if siti.Username != "siti" || siti.DisplayName != "Siti" || siti.Lang != "id" || siti.Disabled {
			t.Errorf("UserByUsername = %+v", siti)
		}
		if byID, err := db.UserByID(ctx, siti.ID); err != nil || byID != siti {
			t.Errorf("UserByID = %+v, %v; want %+v", byID, err, siti)
		}
		if _, err := db.UserByUsername(ctx, "nobody"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown username: err = %v", err)
		}
		if _, err := db.UserByID(ctx, store.NewID()); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown id: err = %v", err)
		}

		users, err := db.ListUsers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, u := range users {
			names = append(names, u.Username)
		}
		if got := strings.Join(names, ","); got != "ani,budi,siti" {
			t.Errorf("ListUsers order = %s", got)
		}
		if n, _ := db.CountUsers(ctx); n != 3 {
			t.Errorf("CountUsers = %d, want 3", n)
		}

		display, role, disabled, lang := "Siti Aminah", "principal", true, "en"
		if err := db.UpdateUser(ctx, siti.ID, store.UserChange{DisplayName: &display, Role: &role, Disabled: &disabled, Lang: &lang}); err != nil {
			t.Fatal(err)
		}
		got, _ := db.UserByID(ctx, siti.ID)
		if got.DisplayName != display || got.Role != role || !got.Disabled || got.Lang != lang {
			t.Errorf("after UpdateUser: %+v", got)
		}
		if got.UpdatedAt.Before(siti.UpdatedAt) {
			t.Errorf("UpdatedAt went back: %v < %v", got.UpdatedAt, siti.UpdatedAt)
		}
		// A partial change leaves the other fields alone.
		lang = "id"
		if err := db.UpdateUser(ctx, siti.ID, store.UserChange{Lang: &lang}); err != nil {
			t.Fatal(err)
		}
		if got, _ := db.UserByID(ctx, siti.ID); got.Lang != "id" || got.DisplayName != display || !got.Disabled {
			t.Errorf("after partial UpdateUser: %+v", got)
		}
		if err := db.UpdateUser(ctx, store.NewID(), store.UserChange{Lang: &lang}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("UpdateUser unknown id: err = %v", err)
		}

		if err := db.SetPasswordHash(ctx, siti.ID, "new-hash"); err != nil {
			t.Fatal(err)
		}
		got, _ = db.UserByID(ctx, siti.ID)
		if got.PasswordHash != "new-hash" || got.PasswordChangedAt.Before(siti.PasswordChangedAt) {
			t.Errorf("after SetPasswordHash: %+v", got)
		}
		if err := db.SetPasswordHash(ctx, store.NewID(), "x"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("SetPasswordHash unknown id: err = %v", err)
		}
	})
}

func TestLastAdminGuard(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		a := store.User{Username: "a", Role: store.AdminRole, PasswordHash: "h"}
		b := store.User{Username: "b", Role: store.AdminRole, PasswordHash: "h"}
		for _, u := range []*store.User{&a, &b} {
			if err := db.CreateUser(ctx, u); err != nil {
				t.Fatal(err)
			}
		}
		finance, yes, no := "finance", true, false
		if err := db.UpdateUser(ctx, a.ID, store.UserChange{Role: &finance}); err != nil {
			t.Fatalf("demote one of two admins: %v", err)
		}
		if err := db.UpdateUser(ctx, b.ID, store.UserChange{Role: &finance}); !errors.Is(err, store.ErrLastAdmin) {
			t.Errorf("demote last admin: err = %v, want ErrLastAdmin", err)
		}
		if err := db.UpdateUser(ctx, b.ID, store.UserChange{Disabled: &yes}); !errors.Is(err, store.ErrLastAdmin) {
			t.Errorf("disable last admin: err = %v, want ErrLastAdmin", err)
		}
		if got, _ := db.UserByID(ctx, b.ID); got.Role != store.AdminRole || got.Disabled {
			t.Errorf("refused change was written: %+v", got)
		}
		// Unrelated changes to the last admin still work.
		if err := db.UpdateUser(ctx, b.ID, store.UserChange{Disabled: &no}); err != nil {
			t.Errorf("no-op enable: %v", err)
		}

		// Two admins demoting each other at once: exactly one may succeed.
		admin := store.AdminRole
		if err := db.UpdateUser(ctx, a.ID, store.UserChange{Role: &admin}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, id := range []string{a.ID, b.ID} {
			wg.Go(func() { errs[i] = db.UpdateUser(ctx, id, store.UserChange{Disabled: &yes}) })
		}
		wg.Wait()
		okCount := 0
		for _, err := range errs {
			switch {
			case err == nil:
				okCount++
			case !errors.Is(err, store.ErrLastAdmin):
				t.Errorf("concurrent disable: %v", err)
			}
		}
		if okCount != 1 {
			t.Errorf("concurrent disables succeeded %d times, want 1 (%v)", okCount, errs)
		}
	})
}

func TestSettings(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		if v, ok, err := db.Setting(ctx, "session.key"); err != nil || ok || v != "" {
			t.Fatalf("absent Setting = %q, %v, %v", v, ok, err)
		}
		v, err := db.EnsureSetting(ctx, "session.key", "first")
		if err != nil || v != "first" {
			t.Fatalf("EnsureSetting = %q, %v", v, err)
		}
		if v, err := db.EnsureSetting(ctx, "session.key", "second"); err != nil || v != "first" {
			t.Errorf("second EnsureSetting = %q, %v; want first", v, err)
		}
		if err := db.SetSetting(ctx, "session.key", "third"); err != nil {
			t.Fatal(err)
		}
		if err := db.SetSetting(ctx, "zone", "Asia/Jakarta"); err != nil {
			t.Fatal(err)
		}
		for key, want := range map[string]string{"session.key": "third", "zone": "Asia/Jakarta"} {
			if v, ok, err := db.Setting(ctx, key); err != nil || !ok || v != want {
				t.Errorf("Setting(%q) = %q, %v, %v; want %q", key, v, ok, err, want)
			}
		}

		// Instances racing to create one key all agree on a single value.
		var wg sync.WaitGroup
		got := make([]string, 8)
		for i := range got {
			wg.Go(func() {
				v, err := db.EnsureSetting(ctx, "race", string(rune('a'+i)))
				if err != nil {
					t.Errorf("EnsureSetting: %v", err)
				}
				got[i] = v
			})
		}
		wg.Wait()
		for _, v := range got {
			if v != got[0] {
				t.Errorf("EnsureSetting race gave %v", got)
				break
			}
		}
	})
}

func TestInTx(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		insert := func(tx *sql.Tx, name string) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO settings (name, value, updated_at) VALUES ($1, $2, $3)`,
				name, "v", store.Time(time.Now()))
			return err
		}
		boom := errors.New("boom")
		if err := db.InTx(ctx, func(tx *sql.Tx) error {
			if err := insert(tx, "rolled.back"); err != nil {
				return err
			}
			return boom
		}); !errors.Is(err, boom) {
			t.Errorf("InTx err = %v, want boom", err)
		}
		if _, ok, _ := db.Setting(ctx, "rolled.back"); ok {
			t.Error("rolled-back write is visible")
		}
		func() {
			defer func() { recover() }()
			db.InTx(ctx, func(tx *sql.Tx) error {
				insert(tx, "panicked")
				panic("boom")
			})
		}()
		if _, ok, _ := db.Setting(ctx, "panicked"); ok {
			t.Error("write before a panic is visible")
		}
		if err := db.InTx(ctx, func(tx *sql.Tx) error { return insert(tx, "committed") }); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := db.Setting(ctx, "committed"); !ok {
			t.Error("committed write is missing")
		}
		if err := db.Ping(ctx); err != nil {
			t.Error(err)
		}
	})
}

func TestConcurrentWriters(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		const writers, each = 8, 25
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				for i := range each {
					var err error
					if i%2 == 0 {
						err = db.AppendAudit(ctx, store.AuditEntry{Actor: "w", Action: "test.write", Outcome: "ok"})
					} else {
						err = db.InTx(ctx, func(tx *sql.Tx) error {
							var n int
							if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM audit_log`).Scan(&n); err != nil {
								return err
							}
							_, err := tx.ExecContext(ctx, `INSERT INTO audit_log (id, at, actor, actor_role, action, target, outcome, detail, ip)
								VALUES ($1, $2, 'w', '', 'test.tx', '', 'ok', '', '')`, store.NewID(), store.Time(time.Now()))
							return err
						})
					}
					if err != nil {
						t.Errorf("writer %d: %v", w, err)
						return
					}
				}
			})
		}
		wg.Wait()
		if _, total, err := db.ListAudit(ctx, store.AuditFilter{}); err != nil || total != writers*each {
			t.Errorf("total = %d, %v; want %d", total, err, writers*each)
		}
	})
}

// TestSQLiteWritersTakeTurns: on SQLite a transaction waits for the one writer's turn
// (DB.writer) before it begins: one waiting while another writes starts once that one
// commits, and one whose context ends while it waits gives up with its context's error
// (a turn that ignored it would hang here). That the turn starts a waiting transaction
// sooner than SQLite's busy handler did is a matter of time: BenchmarkPlanApply shows it.
func TestSQLiteWritersTakeTurns(t *testing.T) {
	t.Parallel()
	db := openSQLite(t)
	ctx := t.Context()
	release := make(chan struct{})
	holding := make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- db.InTx(ctx, func(tx *sql.Tx) error {
			close(holding)
			<-release
			_, err := tx.ExecContext(ctx, `INSERT INTO settings (name, value, updated_at) VALUES ('first', 'v', $1)`, store.Time(time.Now()))
			return err
		})
	}()
	<-holding

	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	err := db.InTx(short, func(tx *sql.Tx) error {
		t.Error("ran while another transaction held the write lock")
		return nil
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a writer whose context ended while it waited: %v, want its context's error", err)
	}

	second := make(chan error, 1)
	go func() {
		second <- db.InTx(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO settings (name, value, updated_at) VALUES ('second', 'v', $1)`, store.Time(time.Now()))
			return err
		})
	}()
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err := <-second; err != nil {
		t.Fatalf("the writer waiting its turn: %v", err)
	}
	for _, name := range []string{"first", "second"} {
		if _, ok, _ := db.Setting(ctx, name); !ok {
			t.Errorf("%s write is missing", name)
		}
	}
}

func TestIsUniqueViolation(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		q := `INSERT INTO settings (name, value, updated_at) VALUES ($1, 'v', $2)`
		if _, err := db.SQL().ExecContext(ctx, q, "k", store.Time(time.Now())); err != nil {
			t.Fatal(err)
		}
		_, err := db.SQL().ExecContext(ctx, q, "k", store.Time(time.Now()))
		if !store.IsUniqueViolation(err) {
			t.Errorf("duplicate key: IsUniqueViolation(%v) = false", err)
		}
		if store.IsUniqueViolation(errors.New("other")) || store.IsUniqueViolation(nil) {
			t.Error("IsUniqueViolation true for a non-constraint error")
		}
	})
}

func TestNewIDTimeOrdered(t *testing.T) {
	t.Parallel()
	prev := store.NewID()
	for range 1000 {
		id := store.NewID()
		if id <= prev {
			t.Fatalf("NewID not increasing: %s after %s", id, prev)
		}
		prev = id
	}
}

// Several instances starting at once all migrate one database without error.
func TestOpenConcurrently(t *testing.T) {
	t.Parallel()
	urls := map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "portal.db") },
		"postgres": postgresSchemaURL,
	}
	for name, makeURL := range urls {
		t.Run(name, func(t *testing.T) {
			url := makeURL(t)
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					db, err := store.Open(t.Context(), url, time.Now)
					if err != nil {
						t.Errorf("Open: %v", err)
						return
					}
					db.Close()
				})
			}
			wg.Wait()
		})
	}
}
