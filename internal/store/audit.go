package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// AuditEntry is one line of the append-only audit log.
type AuditEntry struct {
	ID             string
	At             time.Time
	Actor          string // username, as typed for sign-ins
	ActorRole      string
	Action         string // e.g. "auth.signin", "staff.create"
	Target         string
	Outcome        string // e.g. "ok", "failed"
	Detail         string
	IP             string
	UpstreamStatus int
	UpstreamDesc   string
	// Args are the action's structured arguments (nis, name, count, total, ref, upload,
	// …), which the log page words in the reader's language. Entries older than them
	// have none.
	Args AuditArgs
}

// AuditArgs are an audit entry's arguments by name; values are plain text (numbers in
// decimal, rupiah as whole numbers).
type AuditArgs map[string]string

// encodeArgs stores args as a JSON object; no args is the empty string.
func encodeArgs(a AuditArgs) string {
	if len(a) == 0 {
		return ""
	}
	b, err := json.Marshal(map[string]string(a))
	if err != nil {
		return "" // a map of strings always encodes
	}
	return string(b)
}

// decodeArgs reads what encodeArgs stored; anything else reads as none.
func decodeArgs(s string) AuditArgs {
	if s == "" {
		return nil
	}
	var a map[string]string
	if json.Unmarshal([]byte(s), &a) != nil {
		return nil
	}
	return a
}

// AuditFilter narrows ListAudit; zero fields do not filter. From is inclusive,
// To exclusive.
type AuditFilter struct {
	Actor, Action, Outcome string
	// Actors, when set, matches an entry by any of them (the names one machine acts
	// under); with Actor both must match.
	Actors        []string
	From, To      time.Time
	Offset, Limit int
}

// Page sizes for ListAudit.
const (
	DefaultAuditLimit = 50
	MaxAuditLimit     = 500
)

// AppendAudit adds e to the log, filling ID and At when empty. There is
// deliberately no function to change or remove an entry.
func (db *DB) AppendAudit(ctx context.Context, e AuditEntry) error {
	if e.At.IsZero() {
		e.At = db.Now()
	}
	return appendAudit(ctx, db.sql, e)
}

// AppendAuditTx is AppendAudit inside tx, for a change and its audit entry that must be
// recorded together or not at all. e.At is required: the writer's clock dates the change.
func AppendAuditTx(ctx context.Context, tx *sql.Tx, e AuditEntry) error {
	if e.At.IsZero() {
		return fmt.Errorf("store: append audit %s: the entry has no time", e.Action)
	}
	return appendAudit(ctx, tx, e)
}

func appendAudit(ctx context.Context, x execer, e AuditEntry) error {
	if e.ID == "" {
		e.ID = NewID()
	}
	_, err := x.ExecContext(ctx, `INSERT INTO audit_log
		(id, at, actor, actor_role, action, target, outcome, detail, ip, upstream_status, upstream_desc, args)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		e.ID, Time(e.At), e.Actor, e.ActorRole, e.Action, e.Target, e.Outcome, e.Detail, e.IP,
		int64(e.UpstreamStatus), e.UpstreamDesc, encodeArgs(e.Args))
	if err != nil {
		return fmt.Errorf("store: append audit %s: %w", e.Action, err)
	}
	return nil
}

// ListAudit returns one page of entries matching f, newest first, and the
// number of matching entries in all.
func (db *DB) ListAudit(ctx context.Context, f AuditFilter) (entries []AuditEntry, total int, err error) {
	var where []string
	var args []any
	cond := func(expr string, v any) {
		args = append(args, v)
		where = append(where, fmt.Sprintf(expr, len(args)))
	}
	if f.Actor != "" {
		cond("actor = $%d", f.Actor)
	}
	if len(f.Actors) > 0 {
		marks := make([]string, len(f.Actors))
		for i, a := range f.Actors {
			args = append(args, a)
			marks[i] = fmt.Sprintf("$%d", len(args))
		}
		where = append(where, "actor IN ("+strings.Join(marks, ", ")+")")
	}
	if f.Action != "" {
		cond("action = $%d", f.Action)
	}
	if f.Outcome != "" {
		cond("outcome = $%d", f.Outcome)
	}
	if !f.From.IsZero() {
		cond("at >= $%d", Time(f.From))
	}
	if !f.To.IsZero() {
		cond("at < $%d", Time(f.To))
	}
	clause := ""
	if len(where) > 0 {
		clause = " WHERE " + strings.Join(where, " AND ")
	}

	if err := db.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM audit_log`+clause, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count audit: %w", err)
	}

	limit := f.Limit
	if limit <= 0 {
		limit = DefaultAuditLimit
	}
	limit = min(limit, MaxAuditLimit)
	offset := max(f.Offset, 0)
	args = append(args, int64(limit), int64(offset))
	rows, err := db.sql.QueryContext(ctx, fmt.Sprintf(`SELECT `+auditColumns+` FROM audit_log%s
		ORDER BY at DESC, id DESC LIMIT $%d OFFSET $%d`, clause, len(args)-1, len(args)), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list audit: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanAudit(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("store: list audit: %w", err)
		}
		entries = append(entries, e)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("store: list audit: %w", err)
	}
	return entries, total, nil
}

const auditColumns = `id, at, actor, actor_role, action, target, outcome, detail, ip, upstream_status, upstream_desc, args`

func scanAudit(rows interface{ Scan(...any) error }) (AuditEntry, error) {
	var e AuditEntry
	var status int64
	var args string
	if err := rows.Scan(&e.ID, &e.At, &e.Actor, &e.ActorRole, &e.Action, &e.Target,
		&e.Outcome, &e.Detail, &e.IP, &status, &e.UpstreamDesc, &args); err != nil {
		return AuditEntry{}, err
	}
	e.At = e.At.UTC()
	e.UpstreamStatus = int(status)
	e.Args = decodeArgs(args)
	return e, nil
}

// LatestAudit returns the newest entries of action about target with outcome (all three
// exact), newest first, at most limit: what the portal itself recorded about one student,
// such as who recorded a payment.
func (db *DB) LatestAudit(ctx context.Context, action, target, outcome string, limit int) ([]AuditEntry, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+auditColumns+` FROM audit_log
		WHERE action = $1 AND target = $2 AND outcome = $3 ORDER BY at DESC, id DESC LIMIT $4`,
		action, target, outcome, int64(max(limit, 1)))
	if err != nil {
		return nil, fmt.Errorf("store: audit of %s %s: %w", action, target, err)
	}
	defer rows.Close()
	var out []AuditEntry
	for rows.Next() {
		e, err := scanAudit(rows)
		if err != nil {
			return nil, fmt.Errorf("store: audit of %s %s: %w", action, target, err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// AuditActors lists the distinct actors in the log, sorted, for filter menus. (The
// actions come from the vocabulary, internal/audit, not from the log.)
func (db *DB) AuditActors(ctx context.Context) ([]string, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT DISTINCT actor FROM audit_log ORDER BY actor`)
	if err != nil {
		return nil, fmt.Errorf("store: audit actors: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("store: audit actors: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: audit actors: %w", err)
	}
	return out, nil
}
