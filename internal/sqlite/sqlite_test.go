package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // the plain driver, for the benchmark's comparison
)

// open opens a database file in the test's directory on one connection, so every
// statement runs on the connection kept statements are looked for on.
func open(t testing.TB) *sql.DB {
	t.Helper()
	c, err := Connector("file:" + filepath.Join(t.TempDir(), "t.db") + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, amount INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	return db
}

// kept returns the statements the database's one connection keeps.
func kept(t *testing.T, db *sql.DB) map[string]*statement {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var m map[string]*statement
	if err := c.Raw(func(dc any) error {
		m = dc.(*conn).stmts
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestAQueryRunsOnItsKeptStatement(t *testing.T) {
	db := open(t)
	const insert = `
		INSERT INTO items (name, amount) VALUES ($1, $2);
	`
	for i := range 3 {
		if _, err := db.Exec(insert, fmt.Sprint("item ", i), 1000*(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	const sum = "SELECT count(*), sum(amount) FROM items WHERE amount >= ?"
	var first *statement
	for i := range 3 {
		var n, total int64
		if err := db.QueryRow(sum, 2000).Scan(&n, &total); err != nil {
			t.Fatal(err)
		}
		if n != 2 || total != 5000 {
			t.Fatalf("run %d: count %d, sum %d; want 2, 5000", i, n, total)
		}
		s := kept(t, db)[sum]
		if s == nil {
			t.Fatal("the query's statement is not kept")
		}
		if first == nil {
			first = s
		} else if s != first {
			t.Fatal("the query was prepared again")
		}
		if s.busy {
			t.Fatal("the statement is still marked in use after its rows were closed")
		}
	}
	if kept(t, db)[insert] == nil {
		t.Error("the insert with its blanks and semicolon is not kept")
	}
}

// Inside a transaction the same query can run while its rows are open; the second run
// must not reset the first's statement under it.
func TestTheSameQueryInsideItsOwnRows(t *testing.T) {
	db := open(t)
	for i := range 5 {
		if _, err := db.Exec(`INSERT INTO items (name, amount) VALUES (?, ?)`, fmt.Sprint("item ", i), i); err != nil {
			t.Fatal(err)
		}
	}
	const q = `SELECT name, amount FROM items WHERE amount >= ? ORDER BY amount`
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	rows, err := tx.Query(q, 0)
	if err != nil {
		t.Fatal(err)
	}
	var outer []string
	for rows.Next() {
		var name string
		var amount int
		if err := rows.Scan(&name, &amount); err != nil {
			t.Fatal(err)
		}
		outer = append(outer, name)
		var inner int
		if err := tx.QueryRow(`SELECT count(*) FROM (`+q+`)`, amount).Scan(&inner); err != nil {
			t.Fatal(err)
		}
		// The very same text, while the outer rows are open.
		in, err := tx.Query(q, amount)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for in.Next() {
			got++
		}
		if err := in.Close(); err != nil {
			t.Fatal(err)
		}
		if got != inner || got != 5-amount {
			t.Fatalf("amount %d: the nested query saw %d rows (count %d), want %d", amount, got, inner, 5-amount)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if want := "item 0,item 1,item 2,item 3,item 4"; strings.Join(outer, ",") != want {
		t.Fatalf("the outer rows were %q, want %q", outer, want)
	}
}

func TestScriptsRunWholeAndAreNotKept(t *testing.T) {
	db := open(t)
	const script = `INSERT INTO items (name, amount) VALUES ('a', 1); INSERT INTO items (name, amount) VALUES ('b', 2);`
	if _, err := db.Exec(script); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM items`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("after the script: %d rows (%v), want 2", n, err)
	}
	if kept(t, db)[script] != nil {
		t.Error("a script of two statements is kept")
	}
}

func TestFailuresLeaveTheStatementUsable(t *testing.T) {
	db := open(t)
	const insert = `INSERT INTO items (name, amount) VALUES (?, ?)`
	if _, err := db.Exec(insert, "a", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(insert, "a", 2); err == nil || !strings.Contains(err.Error(), "UNIQUE") {
		t.Fatalf("a duplicate name: %v, want a UNIQUE failure", err)
	}
	if _, err := db.Exec(insert, "b", 2); err != nil {
		t.Fatalf("the statement after a failure: %v", err)
	}
	if _, err := db.Exec(`SELEC nothing`); err == nil {
		t.Fatal("a query that does not parse ran")
	}
	if kept(t, db)[`SELEC nothing`] != nil {
		t.Error("a query that does not parse is kept")
	}

	// A query ended by its context mid-way frees its statement.
	ctx, cancel := context.WithCancel(context.Background())
	const q = `SELECT name FROM items ORDER BY name`
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	rows.Next()
	cancel()
	rows.Close()
	var names []string
	rows, err = db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		rows.Scan(&s)
		names = append(names, s)
	}
	rows.Close()
	if strings.Join(names, ",") != "a,b" {
		t.Fatalf("after a cancelled run the query read %q, want a,b", names)
	}
}

// A kept statement sees the schema as it is now: SQLite prepares it again after a change.
func TestAKeptStatementFollowsTheSchema(t *testing.T) {
	db := open(t)
	if _, err := db.Exec(`INSERT INTO items (name, amount) VALUES ('a', 1)`); err != nil {
		t.Fatal(err)
	}
	const q = `SELECT * FROM items`
	columns := func() []string {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		c, _ := rows.Columns()
		return c
	}
	if got := strings.Join(columns(), ","); got != "id,name,amount" {
		t.Fatalf("columns %q", got)
	}
	if _, err := db.Exec(`ALTER TABLE items ADD COLUMN note TEXT`); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(columns(), ","); got != "id,name,amount,note" {
		t.Fatalf("after adding a column the kept statement reads %q", got)
	}
}

func TestKeptStatementsAreBounded(t *testing.T) {
	db := open(t)
	for i := range maxStatements + 20 {
		var v int
		if err := db.QueryRow(fmt.Sprintf("SELECT %d", i)).Scan(&v); err != nil || v != i {
			t.Fatalf("SELECT %d read %d (%v)", i, v, err)
		}
	}
	if n := len(kept(t, db)); n > maxStatements {
		t.Fatalf("%d statements kept, at most %d", n, maxStatements)
	}
}

// BenchmarkQuery compares a page-like query (an indexed range, a join, ordered, a page
// of five) through this package with the plain driver, which parses it on every run.
func BenchmarkQuery(b *testing.B) {
	const q = `
		SELECT i.id, i.name, i.amount, o.name AS owner
		FROM items i
		LEFT JOIN items o ON o.id = i.amount % 7 + 1
		WHERE i.amount BETWEEN ? AND ? AND i.name LIKE ? ESCAPE '\'
		ORDER BY i.amount DESC, i.id
		LIMIT 5`
	for _, kind := range []string{"kept", "plain"} {
		b.Run(kind, func(b *testing.B) {
			var db *sql.DB
			if kind == "kept" {
				db = open(b)
			} else {
				var err error
				db, err = sql.Open("sqlite", "file:"+filepath.Join(b.TempDir(), "p.db"))
				if err != nil {
					b.Fatal(err)
				}
				defer db.Close()
				db.SetMaxOpenConns(1)
				if _, err := db.Exec(`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, amount INTEGER NOT NULL)`); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := db.Exec(`CREATE INDEX items_amount ON items (amount)`); err != nil {
				b.Fatal(err)
			}
			for i := range 1000 {
				if _, err := db.Exec(`INSERT INTO items (name, amount) VALUES (?, ?)`, fmt.Sprint("item ", i), i*100); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				rows, err := db.Query(q, 500, 4000, "item%")
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for rows.Next() {
					n++
				}
				if err := errors.Join(rows.Err(), rows.Close()); err != nil || n != 5 {
					b.Fatalf("%d rows, %v", n, err)
				}
			}
		})
	}
}
