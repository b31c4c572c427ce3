package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// OutboxJobsTable is the message outbox's batches (00056), a table of jobs whose leases
// JobLeases serves.
const OutboxJobsTable JobTable = "outbox_jobs"

// OutboxJob is one batch of the outbox: a receipt's messages, a day's reminders, a bulk
// follow-up, a class's notices.
type OutboxJob struct {
	ID    string
	Kind  string
	Label string
	// State is "queued" until every message is taken to an end, then "done".
	State string
	// InHours: sent only within the sending hours; NotBefore: not started before.
	InHours   bool
	NotBefore time.Time
	Actor     string
	// Total is how many messages it was written with.
	Total        int
	WaitingSince time.Time
	CreatedAt    time.Time
	FinishedAt   time.Time
}

// OutboxMessage is one message of the outbox, with (when read for a page) the status of
// its last attempt's record in messages.
type OutboxMessage struct {
	ID, JobID  string
	Seq, Chunk int
	// Key is its idempotency key; Day the school day it goes out (YYYY-MM-DD).
	Key, Kind, Channel, NIS, StudentName, Day string
	Fields                                    []string
	// Amount is the rupiah the message is about (a receipt's total, a follow-up's).
	Amount         int64
	State, Problem string
	// MessageID is the messages row of its last attempt ("" before the first).
	MessageID string
	Attempts  int
	CreatedAt time.Time
	// UpdatedAt is when it last changed: for one sent without an answer, when its call
	// left or, once it ended without one, when it ended.
	UpdatedAt time.Time

	// Read with OutboxOfStudent: the record's recipient, status, its time and error.
	Recipient, Status, StatusError string
	StatusAt                       time.Time
}

// fieldSep joins a message's fields in one column: the unit separator, which no field
// (a name, an amount, a link) carries.
const fieldSep = "\x1f"

const outboxJobCols = `id, kind, label, state, in_hours, not_before, actor, total, waiting_since, created_at, finished_at`

func scanOutboxJob(row interface{ Scan(...any) error }) (OutboxJob, error) {
	var j OutboxJob
	var notBefore, waiting, created, finished nullTime
	err := row.Scan(&j.ID, &j.Kind, &j.Label, &j.State, &j.InHours, &notBefore, &j.Actor, &j.Total, &waiting, &created, &finished)
	j.NotBefore, j.WaitingSince, j.CreatedAt, j.FinishedAt = notBefore.Time, waiting.Time, created.Time, finished.Time
	return j, err
}

// errNothingNew rolls back a batch none of whose messages was new.
var errNothingNew = errors.New("store: no new message")

// AddOutbox stores job with its messages in one transaction, each message unless its key
// is taken or (any kind but a receipt) its student already has one on its channel that
// day: written reports which were stored. When none was, nothing is (no empty batch). A
// message's ID, Chunk and State must be set; the job's Total is what was written.
func (db *DB) AddOutbox(ctx context.Context, j OutboxJob, ms []OutboxMessage, now time.Time) (written []bool, err error) {
	now = Time(now)
	written = make([]bool, len(ms))
	err = db.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO outbox_jobs (id, kind, label, state, in_hours, not_before, actor, total, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8)`, j.ID, j.Kind, j.Label, j.State, j.InHours, Time(j.NotBefore), j.Actor, now); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO outbox_messages (id, job_id, seq, chunk, idem_key, kind, channel, nis,
			student_name, day, fields, amount, state, problem, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15) ON CONFLICT DO NOTHING`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		n := 0
		for i, m := range ms {
			res, err := stmt.ExecContext(ctx, m.ID, j.ID, m.Seq, m.Chunk, m.Key, m.Kind, m.Channel, m.NIS, m.StudentName, m.Day,
				strings.Join(m.Fields, fieldSep), m.Amount, m.State, m.Problem, now)
			if err != nil {
				return err
			}
			if k, err := res.RowsAffected(); err != nil {
				return err
			} else if k > 0 {
				written[i] = true
				n++
			}
		}
		if n == 0 {
			return errNothingNew
		}
		_, err = tx.ExecContext(ctx, `UPDATE outbox_jobs SET total = $2 WHERE id = $1`, j.ID, n)
		return err
	})
	if errors.Is(err, errNothingNew) {
		return written, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: add to the outbox: %w", err)
	}
	return written, nil
}

// OutboxJobByID reads one batch (ErrNotFound when there is none).
func (db *DB) OutboxJobByID(ctx context.Context, id string) (OutboxJob, error) {
	j, err := scanOutboxJob(db.sql.QueryRowContext(ctx, `SELECT `+outboxJobCols+` FROM outbox_jobs WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return j, fmt.Errorf("store: outbox job %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return j, fmt.Errorf("store: outbox job %s: %w", id, err)
	}
	return j, nil
}

// OutboxQueued lists the batches still to be taken to an end: receipts first, then the
// oldest first.
func (db *DB) OutboxQueued(ctx context.Context) ([]OutboxJob, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+outboxJobCols+` FROM outbox_jobs WHERE state = 'queued'
		ORDER BY CASE WHEN kind = 'receipt' THEN 0 ELSE 1 END, created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("store: outbox jobs: %w", err)
	}
	defer rows.Close()
	var out []OutboxJob
	for rows.Next() {
		j, err := scanOutboxJob(rows)
		if err != nil {
			return nil, fmt.Errorf("store: outbox jobs: %w", err)
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// FinishOutboxJob marks a batch done.
func (db *DB) FinishOutboxJob(ctx context.Context, id string, at time.Time) error {
	if _, err := db.sql.ExecContext(ctx, `UPDATE outbox_jobs SET state = 'done', finished_at = $2 WHERE id = $1`, id, Time(at)); err != nil {
		return fmt.Errorf("store: finish outbox job %s: %w", id, err)
	}
	return nil
}

// SetOutboxWaiting records since when a batch waits for the gateway (zero: it no longer does).
func (db *DB) SetOutboxWaiting(ctx context.Context, id string, since time.Time) error {
	var v any
	if !since.IsZero() {
		v = Time(since)
	}
	if _, err := db.sql.ExecContext(ctx, `UPDATE outbox_jobs SET waiting_since = $2 WHERE id = $1`, id, v); err != nil {
		return fmt.Errorf("store: outbox job %s waiting: %w", id, err)
	}
	return nil
}

// OutboxOpenChunks lists the chunks of a batch that still have messages pending or sent.
func (db *DB) OutboxOpenChunks(ctx context.Context, jobID string) ([]int, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT DISTINCT chunk FROM outbox_messages WHERE job_id = $1
		AND state IN ('pending', 'sent') ORDER BY chunk`, jobID)
	if err != nil {
		return nil, fmt.Errorf("store: open chunks of outbox job %s: %w", jobID, err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var c int
		if err := rows.Scan(&c); err != nil {
			return nil, fmt.Errorf("store: open chunks of outbox job %s: %w", jobID, err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

const outboxMessageCols = `o.id, o.job_id, o.seq, o.chunk, o.idem_key, o.kind, o.channel, o.nis, o.student_name, o.day, o.fields,
	o.amount, o.state, o.problem, o.message_id, o.attempts, o.created_at, o.updated_at`

func scanOutboxMessage(row interface{ Scan(...any) error }, extra ...any) (OutboxMessage, error) {
	var m OutboxMessage
	var fields string
	var created, updated nullTime
	dest := append([]any{&m.ID, &m.JobID, &m.Seq, &m.Chunk, &m.Key, &m.Kind, &m.Channel, &m.NIS, &m.StudentName, &m.Day, &fields,
		&m.Amount, &m.State, &m.Problem, &m.MessageID, &m.Attempts, &created, &updated}, extra...)
	if err := row.Scan(dest...); err != nil {
		return m, err
	}
	m.Fields = strings.Split(fields, fieldSep)
	m.CreatedAt, m.UpdatedAt = created.Time, updated.Time
	return m, nil
}

// OutboxChunk lists the messages of one chunk of a batch, in order.
func (db *DB) OutboxChunk(ctx context.Context, jobID string, chunk int) ([]OutboxMessage, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+outboxMessageCols+` FROM outbox_messages o
		WHERE o.job_id = $1 AND o.chunk = $2 ORDER BY o.seq`, jobID, chunk)
	if err != nil {
		return nil, fmt.Errorf("store: outbox chunk %s/%d: %w", jobID, chunk, err)
	}
	defer rows.Close()
	var out []OutboxMessage
	for rows.Next() {
		m, err := scanOutboxMessage(rows)
		if err != nil {
			return nil, fmt.Errorf("store: outbox chunk %s/%d: %w", jobID, chunk, err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// SetOutboxStates moves the messages of a batch named by seq to state with problem, at
// at; a message moved to sent counts an attempt.
func (db *DB) SetOutboxStates(ctx context.Context, jobID string, seqs []int, state, problem string, at time.Time) error {
	if len(seqs) == 0 {
		return nil
	}
	args := []any{state, problem, Time(at), jobID}
	ph := make([]string, len(seqs))
	for i, s := range seqs {
		args = append(args, s)
		ph[i] = fmt.Sprintf("$%d", len(args))
	}
	if _, err := db.sql.ExecContext(ctx, `UPDATE outbox_messages SET state = $1, problem = $2, updated_at = $3,
		attempts = attempts + CASE WHEN $1 = 'sent' AND state <> 'sent' THEN 1 ELSE 0 END
		WHERE job_id = $4 AND seq IN (`+strings.Join(ph, ", ")+`)`, args...); err != nil {
		return fmt.Errorf("store: outbox messages of %s: %w", jobID, err)
	}
	return nil
}

// SetOutboxMessageID links an outbox message to the messages row of its attempt.
func (db *DB) SetOutboxMessageID(ctx context.Context, id, messageID string) error {
	if _, err := db.sql.ExecContext(ctx, `UPDATE outbox_messages SET message_id = $2 WHERE id = $1`, id, messageID); err != nil {
		return fmt.Errorf("store: outbox message %s: %w", id, err)
	}
	return nil
}

// OutboxAttempts are the messages rows of an outbox message's attempts (their ids are
// the outbox message's id, a dot and the attempt), newest first.
func (db *DB) OutboxAttempts(ctx context.Context, id string) ([]Message, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+messageColumns+` FROM messages WHERE id LIKE $1 ORDER BY created_at_us DESC, id DESC`,
		id+".%")
	if err != nil {
		return nil, fmt.Errorf("store: attempts of outbox message %s: %w", id, err)
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		var m Message
		var rank, statusAt, created int64
		if err := rows.Scan(&m.ID, &m.Channel, &m.Kind, &m.NIS, &m.Recipient, &m.RecipientName, &m.Subject, &m.Body, &m.Template,
			&m.ProviderID, &m.Answer, &m.Status, &rank, &statusAt, &m.ErrorCode, &m.Error, &m.Actor, &created); err != nil {
			return nil, fmt.Errorf("store: attempts of outbox message %s: %w", id, err)
		}
		m.StatusRank, m.StatusAt, m.CreatedAt = int(rank), time.UnixMicro(statusAt).UTC(), time.UnixMicro(created).UTC()
		out = append(out, m)
	}
	return out, rows.Err()
}

// OutboxOfStudent lists the newest outbox messages about nis (at most limit), each with
// its last attempt's recipient and status.
func (db *DB) OutboxOfStudent(ctx context.Context, nis string, limit int) ([]OutboxMessage, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+outboxMessageCols+`, COALESCE(m.recipient, ''), COALESCE(m.status, ''),
		COALESCE(m.error, ''), COALESCE(m.status_at_us, 0)
		FROM outbox_messages o LEFT JOIN messages m ON m.id = o.message_id
		WHERE o.nis = $1 ORDER BY o.created_at DESC, o.id DESC LIMIT $2`, nis, limit)
	if err != nil {
		return nil, fmt.Errorf("store: outbox of %s: %w", nis, err)
	}
	defer rows.Close()
	var out []OutboxMessage
	for rows.Next() {
		var at int64
		var to, status, statusErr string
		m, err := scanOutboxMessage(rows, &to, &status, &statusErr, &at)
		if err != nil {
			return nil, fmt.Errorf("store: outbox of %s: %w", nis, err)
		}
		m.Recipient, m.Status, m.StatusError = to, status, statusErr
		if at > 0 {
			m.StatusAt = time.UnixMicro(at).UTC()
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// OutboxTaken reports which of keys are taken, and which students (of nis) already have
// a message other than a receipt on the school day day, by channel ("nis channel").
func (db *DB) OutboxTaken(ctx context.Context, keys, nis []string, day string) (map[string]bool, error) {
	out := map[string]bool{}
	const batch = 500
	for start := 0; start < len(keys); start += batch {
		part := keys[start:min(start+batch, len(keys))]
		args := make([]any, len(part))
		ph := make([]string, len(part))
		for i, k := range part {
			args[i], ph[i] = k, fmt.Sprintf("$%d", i+1)
		}
		if err := db.collect(ctx, out, `SELECT idem_key FROM outbox_messages WHERE idem_key IN (`+strings.Join(ph, ", ")+`)`, args...); err != nil {
			return nil, err
		}
	}
	for start := 0; start < len(nis); start += batch {
		part := nis[start:min(start+batch, len(nis))]
		args := []any{day}
		ph := make([]string, len(part))
		for i, n := range part {
			args = append(args, n)
			ph[i] = fmt.Sprintf("$%d", len(args))
		}
		if err := db.collect(ctx, out, `SELECT nis || ' ' || channel FROM outbox_messages WHERE day = $1 AND kind <> 'receipt'
			AND nis IN (`+strings.Join(ph, ", ")+`)`, args...); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (db *DB) collect(ctx context.Context, into map[string]bool, q string, args ...any) error {
	rows, err := db.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("store: outbox taken: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return fmt.Errorf("store: outbox taken: %w", err)
		}
		into[s] = true
	}
	return rows.Err()
}

// AddOutboxFollowUp records a follow-up the outbox sent (the arrears report's last
// follow-up): its batch's audit entry covers it, so it carries none of its own.
func (db *DB) AddOutboxFollowUp(ctx context.Context, f FollowUp) error {
	if f.ID == "" {
		f.ID = NewID()
	}
	f.At = Time(f.At)
	if err := insertFollowUp(ctx, db.sql, f); err != nil {
		return fmt.Errorf("store: record follow-up of %s: %w", f.NIS, err)
	}
	return nil
}
