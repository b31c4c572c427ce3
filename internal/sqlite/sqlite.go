// Package sqlite opens SQLite databases, the portal's and the sandbox's, through the
// pure-Go driver with prepared statements kept per connection.
//
// The driver parses every query it is given again, each time: on a ledger page or a
// sandbox search that is about a tenth of the CPU the query costs. A connection here
// keeps the statements it ran prepared (up to maxStatements of them) and runs a query
// it has seen again on its prepared statement. Scripts of several statements are run
// as given, not kept.
package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"reflect"
	"strings"

	"modernc.org/sqlite"
)

// maxStatements bounds the statements one connection keeps. The portal's queries are a
// few hundred distinct strings at most (the ledger's filters combine); past the bound a
// statement not in use is let go for each new one.
const maxStatements = 256

// Connector returns a connector for dsn (the driver's form: a file path or file: URI
// with _pragma parameters) whose connections keep their statements prepared. Open it
// with sql.OpenDB.
func Connector(dsn string) (driver.Connector, error) {
	c, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return connector{c}, nil
}

type connector struct{ driver.Connector }

func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	inner, ok := dc.(innerConn)
	if !ok {
		dc.Close()
		return nil, errors.New("sqlite: the driver's connection lacks the context methods")
	}
	return &conn{inner: inner, stmts: map[string]*statement{}}, nil
}

// innerConn is what the driver's connection provides and conn relies on.
type innerConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// conn is one connection and its prepared statements. database/sql never uses a
// connection from two goroutines at once (rows included: their Next and Close hold the
// connection), so the map needs no lock.
type conn struct {
	inner innerConn
	stmts map[string]*statement
}

// statement is a prepared statement and whether rows read from it are still open; a
// query run again while they are is prepared apart (inside a transaction, a loop over
// rows may run the same query for each).
type statement struct {
	stmt interface {
		driver.Stmt
		driver.StmtExecContext
		driver.StmtQueryContext
	}
	busy bool
}

var (
	_ driver.Conn               = (*conn)(nil)
	_ driver.ConnBeginTx        = (*conn)(nil)
	_ driver.ConnPrepareContext = (*conn)(nil)
	_ driver.ExecerContext      = (*conn)(nil)
	_ driver.QueryerContext     = (*conn)(nil)
	_ driver.Pinger             = (*conn)(nil)
	_ driver.SessionResetter    = (*conn)(nil)
	_ driver.Validator          = (*conn)(nil)
)

func (c *conn) Prepare(query string) (driver.Stmt, error) { return c.inner.Prepare(query) }
func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.inner.PrepareContext(ctx, query)
}

func (c *conn) Begin() (driver.Tx, error) { return c.inner.Begin() } //nolint:staticcheck // the interface's
func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.inner.BeginTx(ctx, opts)
}
func (c *conn) Ping(ctx context.Context) error         { return c.inner.Ping(ctx) }
func (c *conn) ResetSession(ctx context.Context) error { return c.inner.ResetSession(ctx) }
func (c *conn) IsValid() bool                          { return c.inner.IsValid() }

// Close finalizes the kept statements, then closes the connection.
func (c *conn) Close() error {
	var errs []error
	for q, s := range c.stmts {
		errs = append(errs, s.stmt.Close())
		delete(c.stmts, q)
	}
	errs = append(errs, c.inner.Close())
	return errors.Join(errs...)
}

// ExecContext runs query on its kept statement.
func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	s, err := c.statement(ctx, query)
	if err != nil || s == nil {
		if err != nil {
			return nil, err
		}
		return c.inner.ExecContext(ctx, query, args)
	}
	s.busy = true
	defer func() { s.busy = false }()
	return s.stmt.ExecContext(ctx, args)
}

// QueryContext runs query on its kept statement; the statement is free again when the
// rows are closed.
func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	s, err := c.statement(ctx, query)
	if err != nil || s == nil {
		if err != nil {
			return nil, err
		}
		return c.inner.QueryContext(ctx, query, args)
	}
	s.busy = true
	r, err := s.stmt.QueryContext(ctx, args)
	if err != nil {
		s.busy = false
		return nil, err
	}
	return &rows{Rows: r, s: s}, nil
}

// statement returns the kept statement for query, preparing it the first time, or nil
// when query is to run as given: a script, or a statement whose rows are still open.
func (c *conn) statement(ctx context.Context, query string) (*statement, error) {
	if s, ok := c.stmts[query]; ok {
		if s.busy {
			return nil, nil
		}
		return s, nil
	}
	// The driver runs text after the first statement (even blanks) as a script, each
	// time parsing it again; a lone statement is prepared without its trailing blanks
	// and semicolon.
	one := strings.TrimRight(strings.TrimSpace(query), "; \t\r\n")
	if one == "" || strings.Contains(one, ";") {
		return nil, nil
	}
	ds, err := c.inner.PrepareContext(ctx, one)
	if err != nil {
		return nil, err
	}
	st, ok := ds.(interface {
		driver.Stmt
		driver.StmtExecContext
		driver.StmtQueryContext
	})
	if !ok {
		ds.Close()
		return nil, nil
	}
	if len(c.stmts) >= maxStatements {
		c.evict()
	}
	s := &statement{stmt: st}
	c.stmts[query] = s
	return s, nil
}

// evict lets go of one statement not in use.
func (c *conn) evict() {
	for q, s := range c.stmts {
		if !s.busy {
			s.stmt.Close()
			delete(c.stmts, q)
			return
		}
	}
}

// rows frees its statement when closed and passes on the column types the driver knows.
type rows struct {
	driver.Rows
	s      *statement
	closed bool
}

func (r *rows) Close() error {
	err := r.Rows.Close()
	if !r.closed {
		r.closed = true
		r.s.busy = false
	}
	return err
}

func (r *rows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *rows) ColumnTypeLength(i int) (int64, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeLength); ok {
		return t.ColumnTypeLength(i)
	}
	return 0, false
}

func (r *rows) ColumnTypeNullable(i int) (bool, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeNullable); ok {
		return t.ColumnTypeNullable(i)
	}
	return false, false
}

func (r *rows) ColumnTypePrecisionScale(i int) (int64, int64, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypePrecisionScale); ok {
		return t.ColumnTypePrecisionScale(i)
	}
	return 0, 0, false
}

func (r *rows) ColumnTypeScanType(i int) reflect.Type {
	if t, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}
