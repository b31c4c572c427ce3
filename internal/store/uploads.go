package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"time"
)

// UploadJob is one uploaded sheet, from its arrival through the preview to the end of
// the job that sends its rows to the billing service.
type UploadJob struct {
	ID         string
	Kind       string // components, students
	FileName   string
	FileSHA256 string
	FileSize   int64
	// FileKept says the sheet is still kept (in upload_files: for the error workbook and
	// the commit).
	FileKept bool
	State    string
	// Problem is a problem with the whole file (message code), ProblemArgs its arguments.
	Problem     string
	ProblemArgs []string

	UploadedByID string
	UploadedBy   string
	// Who committed, kept so a job resumed after a restart is audited as theirs.
	CommittedByID string
	CommittedBy   string
	CommittedRole string
	CommittedIP   string

	RowsTotal   int
	RowsNew     int
	RowsAlready int
	RowsError   int
	// Issues counts every problem found; IssuesKept those kept in upload_issues (the
	// first ones), IssueKinds each kind's exact count.
	Issues     int
	IssuesKept int
	IssueKinds []UploadIssueKind
	Totals     []UploadTotal
	// Sample is the first rows as they will be sent (JSON the uploads package reads).
	Sample string
	// Reading is how the file was read: its sheet, heading rows, the columns not read
	// (JSON the uploads package reads).
	Reading string
	// Acknowledged are the kinds of warning the person who committed confirmed.
	Acknowledged []string

	// ToSend is how many rows the job sends; Skipped those it found at the service when
	// it started; Created and Failed the outcome once finished.
	ToSend  int
	Skipped int
	Created int
	Failed  int

	CreatedAt   time.Time
	UpdatedAt   time.Time
	AnalysedAt  time.Time
	CommittedAt time.Time
	FinishedAt  time.Time
	// WaitingSince is when the job found the service down (zero when it is not waiting);
	// HurryAt when a person last asked it to try again now.
	WaitingSince time.Time
	HurryAt      time.Time
	// LeaseOwner is the runner holding the job's lease ("" when free), LeaseUntil when it
	// lapses unless renewed.
	LeaseOwner string
	LeaseUntil time.Time
}

// UploadIssueKind is how many problems of one kind (a code in a column) a sheet has, with
// the first one's row and arguments, so the page can say what it is.
type UploadIssueKind struct {
	Col   int      `json:"col"`
	Code  string   `json:"code"`
	Count int      `json:"count"`
	Row   int      `json:"row"`
	Args  []string `json:"args,omitempty"`
}

// UploadTotal is the rupiah of one account code's new rows.
type UploadTotal struct {
	AccountCode string `json:"code"`
	Rows        int    `json:"rows"`
	Amount      int64  `json:"amount"`
}

// UploadIssue is one cell problem found in an upload.
type UploadIssue struct {
	Row  int
	Col  int
	Code string
	Args []string
}

// UploadChunk is one batch of rows of a job.
type UploadChunk struct {
	JobID   string
	Seq     int
	State   string
	Size    int
	Payload string
	// PendingRows are the sheet rows not yet confirmed at the service nor failed.
	PendingRows []int
	Failures    []UploadFailure
	// Recognised counts rows found at the service when a chunk without an answer was
	// reconciled.
	Recognised int
	Attempts   int
	LastError  string
	// SentAt is when the chunk's last call left or, if it ended without an answer, when
	// it ended: the service is given Settle from then before the chunk is looked for.
	SentAt    time.Time
	UpdatedAt time.Time
}

// UploadFailure is a row the service refused, with the reason's code and argument.
type UploadFailure struct {
	Row  int    `json:"row"`
	Code string `json:"code"`
	Arg  string `json:"arg,omitempty"`
}

// UploadChunkState is a chunk's number and state, for scheduling.
type UploadChunkState struct {
	Seq   int
	State string
}

// UploadProgress sums a job's chunks.
type UploadProgress struct {
	Chunks     int
	Confirmed  int // chunks
	Failed     int // chunks
	Unknown    int // chunks sent or without an answer
	Rows       int // rows in all chunks
	Pending    int // rows not yet confirmed nor failed
	FailedRows int
	Recognised int
}

// Done is the number of rows confirmed at the service.
func (p UploadProgress) Done() int { return p.Rows - p.Pending - p.FailedRows }

// argSep joins message arguments in one column; it never appears in cell text.
const argSep = "\x1f"

func joinArgs(args []string) string { return strings.Join(args, argSep) }

func splitArgs(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, argSep)
}

const uploadJobColumns = `id, kind, file_name, file_sha256, file_size, file_kept, state, problem, problem_args,
	uploaded_by_id, uploaded_by, committed_by_id, committed_by, committed_role, committed_ip,
	rows_total, rows_new, rows_already, rows_error, issues, totals, to_send, skipped, created_count, failed_count,
	created_at, updated_at, analysed_at, committed_at, finished_at, issues_kept, issue_kinds, sample, waiting_since, hurry_at,
	lease_owner, lease_until, reading, acknowledged`

func scanUploadJob(row interface{ Scan(...any) error }) (UploadJob, error) {
	var j UploadJob
	var problemArgs, totals, kinds, acknowledged string
	var counts [10]int64
	var created, updated, analysed, committed, finished, waiting, hurry, leaseUntil nullTime
	err := row.Scan(&j.ID, &j.Kind, &j.FileName, &j.FileSHA256, &j.FileSize, &j.FileKept, &j.State, &j.Problem, &problemArgs,
		&j.UploadedByID, &j.UploadedBy, &j.CommittedByID, &j.CommittedBy, &j.CommittedRole, &j.CommittedIP,
		&counts[0], &counts[1], &counts[2], &counts[3], &counts[4], &totals, &counts[5], &counts[6], &counts[7], &counts[8],
		&created, &updated, &analysed, &committed, &finished, &counts[9], &kinds, &j.Sample, &waiting, &hurry,
		&j.LeaseOwner, &leaseUntil, &j.Reading, &acknowledged)
	if err != nil {
		return j, err
	}
	j.IssuesKept = int(counts[9])
	j.WaitingSince, j.HurryAt, j.LeaseUntil = waiting.Time, hurry.Time, leaseUntil.Time
	if kinds != "" {
		if err := json.Unmarshal([]byte(kinds), &j.IssueKinds); err != nil {
			return j, fmt.Errorf("issue kinds: %w", err)
		}
	}
	j.ProblemArgs = splitArgs(problemArgs)
	j.Acknowledged = splitArgs(acknowledged)
	j.RowsTotal, j.RowsNew, j.RowsAlready, j.RowsError, j.Issues = int(counts[0]), int(counts[1]), int(counts[2]), int(counts[3]), int(counts[4])
	j.ToSend, j.Skipped, j.Created, j.Failed = int(counts[5]), int(counts[6]), int(counts[7]), int(counts[8])
	if totals != "" {
		if err := json.Unmarshal([]byte(totals), &j.Totals); err != nil {
			return j, fmt.Errorf("totals: %w", err)
		}
	}
	j.CreatedAt, j.UpdatedAt, j.AnalysedAt, j.CommittedAt, j.FinishedAt = created.Time, updated.Time, analysed.Time, committed.Time, finished.Time
	return j, nil
}

// CreateUploadJob records a newly received file; ID and times are filled when empty.
func (db *DB) CreateUploadJob(ctx context.Context, j UploadJob) (UploadJob, error) {
	if j.ID == "" {
		j.ID = NewID()
	}
	now := db.Now()
	j.CreatedAt, j.UpdatedAt = now, now
	_, err := db.sql.ExecContext(ctx, `INSERT INTO upload_jobs (id, kind, file_name, file_sha256, file_size, file_kept,
		state, uploaded_by_id, uploaded_by, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`,
		j.ID, j.Kind, j.FileName, j.FileSHA256, j.FileSize, j.FileKept, j.State, j.UploadedByID, j.UploadedBy, now)
	if err != nil {
		return j, fmt.Errorf("store: create upload job: %w", err)
	}
	return j, nil
}

// UploadJobByID returns one job; ErrNotFound when there is none.
func (db *DB) UploadJobByID(ctx context.Context, id string) (UploadJob, error) {
	j, err := scanUploadJob(db.sql.QueryRowContext(ctx, `SELECT `+uploadJobColumns+` FROM upload_jobs WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return UploadJob{}, fmt.Errorf("store: upload job %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return UploadJob{}, fmt.Errorf("store: upload job %s: %w", id, err)
	}
	return j, nil
}

func (db *DB) queryUploadJobs(ctx context.Context, what, query string, args ...any) ([]UploadJob, error) {
	rows, err := db.sql.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", what, err)
	}
	defer rows.Close()
	var out []UploadJob
	for rows.Next() {
		j, err := scanUploadJob(rows)
		if err != nil {
			return nil, fmt.Errorf("store: %s: %w", what, err)
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: %s: %w", what, err)
	}
	return out, nil
}

// UploadJobsWithHash returns earlier uploads of the same file (not discarded), newest
// first, at most five.
func (db *DB) UploadJobsWithHash(ctx context.Context, sha256, exceptID, discarded string) ([]UploadJob, error) {
	return db.queryUploadJobs(ctx, "upload jobs with hash", `SELECT `+uploadJobColumns+` FROM upload_jobs
		WHERE file_sha256 = $1 AND id <> $2 AND state <> $3 ORDER BY created_at DESC, id DESC LIMIT 5`, sha256, exceptID, discarded)
}

// ListUploadJobs returns a page of the upload history, newest first, and how many there
// are in all.
func (db *DB) ListUploadJobs(ctx context.Context, offset, limit int) ([]UploadJob, int, error) {
	var total int
	if err := db.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM upload_jobs`).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count upload jobs: %w", err)
	}
	if limit <= 0 {
		limit = 50
	}
	jobs, err := db.queryUploadJobs(ctx, "list upload jobs", `SELECT `+uploadJobColumns+` FROM upload_jobs
		ORDER BY created_at DESC, id DESC LIMIT $1 OFFSET $2`, limit, max(offset, 0))
	return jobs, total, err
}

// UploadJobsInStates returns the jobs in any of the states, oldest commit first (then
// oldest upload), for the runner to resume in order.
func (db *DB) UploadJobsInStates(ctx context.Context, states ...string) ([]UploadJob, error) {
	if len(states) == 0 {
		return nil, nil
	}
	ph := make([]string, len(states))
	args := make([]any, len(states))
	for i, s := range states {
		ph[i], args[i] = "$"+strconv.Itoa(i+1), s
	}
	return db.queryUploadJobs(ctx, "upload jobs in states", `SELECT `+uploadJobColumns+` FROM upload_jobs
		WHERE state IN (`+strings.Join(ph, ",")+`) ORDER BY committed_at, created_at, id`, args...)
}

// SetUploadJobState moves a job to state `to` only from one of the states `from`; it
// reports whether it did, so two requests cannot both start the same step.
func (db *DB) SetUploadJobState(ctx context.Context, id, to string, from ...string) (bool, error) {
	args := []any{to, db.Now(), id}
	ph := make([]string, len(from))
	for i, s := range from {
		args = append(args, s)
		ph[i] = "$" + strconv.Itoa(len(args))
	}
	res, err := db.sql.ExecContext(ctx, `UPDATE upload_jobs SET state = $1, updated_at = $2
		WHERE id = $3 AND state IN (`+strings.Join(ph, ",")+`)`, args...)
	if err != nil {
		return false, fmt.Errorf("store: upload job %s to %s: %w", id, to, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// UploadAnalysis is the outcome of reading a sheet.
type UploadAnalysis struct {
	State       string
	Problem     string
	ProblemArgs []string
	RowsTotal   int
	RowsNew     int
	RowsAlready int
	RowsError   int
	Issues      int
	IssuesKept  int
	IssueKinds  []UploadIssueKind
	Totals      []UploadTotal
	Sample      string
	Reading     string
}

// jsonText is v as JSON, or "" when it is empty.
func jsonText[T any](v []T) (string, error) {
	if len(v) == 0 {
		return "", nil
	}
	b, err := json.Marshal(v)
	return string(b), err
}

// SaveUploadAnalysis records the analysis of a job still in state `from`.
func (db *DB) SaveUploadAnalysis(ctx context.Context, id, from string, a UploadAnalysis) (bool, error) {
	totals, err := jsonText(a.Totals)
	if err != nil {
		return false, err
	}
	kinds, err := jsonText(a.IssueKinds)
	if err != nil {
		return false, err
	}
	now := db.Now()
	res, err := db.sql.ExecContext(ctx, `UPDATE upload_jobs SET state = $1, problem = $2, problem_args = $3,
		rows_total = $4, rows_new = $5, rows_already = $6, rows_error = $7, issues = $8, totals = $9,
		analysed_at = $10, updated_at = $10, issues_kept = $13, issue_kinds = $14, sample = $15, reading = $16
		WHERE id = $11 AND state = $12`,
		a.State, a.Problem, joinArgs(a.ProblemArgs), a.RowsTotal, a.RowsNew, a.RowsAlready, a.RowsError, a.Issues, totals,
		now, id, from, a.IssuesKept, kinds, a.Sample, a.Reading)
	if err != nil {
		return false, fmt.Errorf("store: save upload analysis %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// UploadCommit is a person's go-ahead for a previewed upload job: the job moves from state
// From to state To, noted as theirs.
type UploadCommit struct {
	From, To string
	// ByID, By, Role and IP name the person who committed it, for the job's page.
	ByID, By, Role, IP string
	// Acknowledged are the kinds of warning they confirmed.
	Acknowledged []string
}

// CommitUploadJob queues a previewed job (state c.From → c.To) on behalf of the person;
// false when the job was not in c.From (committed twice, discarded meanwhile).
func (db *DB) CommitUploadJob(ctx context.Context, id string, c UploadCommit) (bool, error) {
	now := db.Now()
	res, err := db.sql.ExecContext(ctx, `UPDATE upload_jobs SET state = $1, committed_by_id = $2, committed_by = $3,
		committed_role = $4, committed_ip = $5, committed_at = $6, updated_at = $6, acknowledged = $9 WHERE id = $7 AND state = $8`,
		c.To, c.ByID, c.By, c.Role, c.IP, now, id, c.From, joinArgs(c.Acknowledged))
	if err != nil {
		return false, fmt.Errorf("store: commit upload job %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// SetUploadSending records what the job found at the service and how much it will send,
// and moves it to state `to`.
func (db *DB) SetUploadSending(ctx context.Context, id, to string, toSend, skipped int) error {
	_, err := db.sql.ExecContext(ctx, `UPDATE upload_jobs SET state = $1, to_send = $2, skipped = $3, updated_at = $4 WHERE id = $5`,
		to, toSend, skipped, db.Now(), id)
	if err != nil {
		return fmt.Errorf("store: upload job %s sending: %w", id, err)
	}
	return nil
}

// FinishUploadJob records a job's end (it no longer waits for anything).
func (db *DB) FinishUploadJob(ctx context.Context, id, state string, created, failed int) error {
	now := db.Now()
	_, err := db.sql.ExecContext(ctx, `UPDATE upload_jobs SET state = $1, created_count = $2, failed_count = $3,
		finished_at = $4, updated_at = $4, waiting_since = NULL WHERE id = $5`, state, created, failed, now, id)
	if err != nil {
		return fmt.Errorf("store: finish upload job %s: %w", id, err)
	}
	return nil
}

// SetUploadWaiting records since when the job waits for the service (zero: it no longer
// waits).
func (db *DB) SetUploadWaiting(ctx context.Context, id string, since time.Time) error {
	var v any
	if !since.IsZero() {
		v = Time(since)
	}
	if _, err := db.sql.ExecContext(ctx, `UPDATE upload_jobs SET waiting_since = $1 WHERE id = $2`, v, id); err != nil {
		return fmt.Errorf("store: upload job %s waiting: %w", id, err)
	}
	return nil
}

// SetUploadHurry records that a person asked the waiting job to try again now.
func (db *DB) SetUploadHurry(ctx context.Context, id string, at time.Time) error {
	if _, err := db.sql.ExecContext(ctx, `UPDATE upload_jobs SET hurry_at = $1 WHERE id = $2`, Time(at), id); err != nil {
		return fmt.Errorf("store: upload job %s hurry: %w", id, err)
	}
	return nil
}

// SetUploadFileKept records whether the job's sheet is still kept.
func (db *DB) SetUploadFileKept(ctx context.Context, id string, kept bool) error {
	if _, err := db.sql.ExecContext(ctx, `UPDATE upload_jobs SET file_kept = $1 WHERE id = $2`, kept, id); err != nil {
		return fmt.Errorf("store: upload job %s file: %w", id, err)
	}
	return nil
}

// UploadJobsWithFilesBefore returns jobs whose file is kept and that last changed before t.
func (db *DB) UploadJobsWithFilesBefore(ctx context.Context, t time.Time) ([]UploadJob, error) {
	return db.queryUploadJobs(ctx, "upload jobs to clean", `SELECT `+uploadJobColumns+` FROM upload_jobs
		WHERE file_kept = $1 AND updated_at < $2 ORDER BY updated_at`, true, Time(t))
}

// InsertUploadIssues appends problems found in a job's sheet.
func (db *DB) InsertUploadIssues(ctx context.Context, jobID string, firstSeq int, issues []UploadIssue) error {
	if len(issues) == 0 {
		return nil
	}
	return db.InTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO upload_issues (job_id, seq, row_num, col_num, code, args)
			VALUES ($1, $2, $3, $4, $5, $6)`)
		if err != nil {
			return fmt.Errorf("store: insert upload issues: %w", err)
		}
		defer stmt.Close()
		for i, is := range issues {
			if _, err := stmt.ExecContext(ctx, jobID, firstSeq+i, is.Row, is.Col, is.Code, joinArgs(is.Args)); err != nil {
				return fmt.Errorf("store: insert upload issue: %w", err)
			}
		}
		return nil
	})
}

// DeleteUploadIssues forgets a job's problems (before it is analysed again, or when it is
// discarded or cleaned up); the job keeps its counts but no longer says any are kept.
func (db *DB) DeleteUploadIssues(ctx context.Context, jobID string) error {
	return db.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM upload_issues WHERE job_id = $1`, jobID); err != nil {
			return fmt.Errorf("store: delete upload issues: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE upload_jobs SET issues_kept = 0 WHERE id = $1`, jobID); err != nil {
			return fmt.Errorf("store: delete upload issues: %w", err)
		}
		return nil
	})
}

func scanIssue(rows *sql.Rows) (UploadIssue, error) {
	var is UploadIssue
	var row, col int64
	var args string
	err := rows.Scan(&row, &col, &is.Code, &args)
	is.Row, is.Col, is.Args = int(row), int(col), splitArgs(args)
	return is, err
}

// UploadIssues returns a page of a job's problems by row, then column.
func (db *DB) UploadIssues(ctx context.Context, jobID string, offset, limit int) ([]UploadIssue, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT row_num, col_num, code, args FROM upload_issues WHERE job_id = $1
		ORDER BY row_num, col_num, seq LIMIT $2 OFFSET $3`, jobID, limit, max(offset, 0))
	if err != nil {
		return nil, fmt.Errorf("store: upload issues: %w", err)
	}
	defer rows.Close()
	var out []UploadIssue
	for rows.Next() {
		is, err := scanIssue(rows)
		if err != nil {
			return nil, fmt.Errorf("store: upload issues: %w", err)
		}
		out = append(out, is)
	}
	return out, rows.Err()
}

// AllUploadIssues yields every problem of a job by row, then column, streaming.
func (db *DB) AllUploadIssues(ctx context.Context, jobID string) iter.Seq2[UploadIssue, error] {
	return func(yield func(UploadIssue, error) bool) {
		rows, err := db.sql.QueryContext(ctx, `SELECT row_num, col_num, code, args FROM upload_issues WHERE job_id = $1
			ORDER BY row_num, col_num, seq`, jobID)
		if err != nil {
			yield(UploadIssue{}, fmt.Errorf("store: upload issues: %w", err))
			return
		}
		defer rows.Close()
		for rows.Next() {
			is, err := scanIssue(rows)
			if err != nil {
				yield(UploadIssue{}, fmt.Errorf("store: upload issues: %w", err))
				return
			}
			if !yield(is, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(UploadIssue{}, fmt.Errorf("store: upload issues: %w", err))
		}
	}
}

// UploadErrorRows returns the sheet rows that have a problem, ascending.
func (db *DB) UploadErrorRows(ctx context.Context, jobID string) ([]int, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT DISTINCT row_num FROM upload_issues WHERE job_id = $1 ORDER BY row_num`, jobID)
	if err != nil {
		return nil, fmt.Errorf("store: upload error rows: %w", err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var r int64
		if err := rows.Scan(&r); err != nil {
			return nil, fmt.Errorf("store: upload error rows: %w", err)
		}
		out = append(out, int(r))
	}
	return out, rows.Err()
}

func encodeRows(rows []int) string {
	var b strings.Builder
	for i, r := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(r))
	}
	return b.String()
}

func decodeRows(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	out := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, fmt.Errorf("pending rows: %w", err)
		}
		out[i] = n
	}
	return out, nil
}

func encodeFailures(f []UploadFailure) (string, error) {
	if len(f) == 0 {
		return "", nil
	}
	b, err := json.Marshal(f)
	return string(b), err
}

// DeleteUploadChunks forgets a job's chunks before they are made again.
func (db *DB) DeleteUploadChunks(ctx context.Context, jobID string) error {
	if _, err := db.sql.ExecContext(ctx, `DELETE FROM upload_chunks WHERE job_id = $1`, jobID); err != nil {
		return fmt.Errorf("store: delete upload chunks: %w", err)
	}
	return nil
}

// InsertUploadChunk adds one chunk of a job.
func (db *DB) InsertUploadChunk(ctx context.Context, c UploadChunk) error {
	_, err := db.sql.ExecContext(ctx, `INSERT INTO upload_chunks (job_id, seq, state, size, payload, pending_rows,
		pending_count, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		c.JobID, c.Seq, c.State, c.Size, c.Payload, encodeRows(c.PendingRows), len(c.PendingRows), db.Now())
	if err != nil {
		return fmt.Errorf("store: insert upload chunk %s/%d: %w", c.JobID, c.Seq, err)
	}
	return nil
}

// ReplaceUploadChunks replaces a job's chunks with those chunks yields and moves the job
// to state with the rows to send (the chunks' pending rows) and skipped, all in one
// transaction: a job is never left half cut into chunks, and the chunks cost one commit,
// not one each.
func (db *DB) ReplaceUploadChunks(ctx context.Context, jobID string, chunks iter.Seq2[UploadChunk, error], state string, skipped int) error {
	return db.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM upload_chunks WHERE job_id = $1`, jobID); err != nil {
			return fmt.Errorf("store: delete upload chunks: %w", err)
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO upload_chunks (job_id, seq, state, size, payload, pending_rows,
			pending_count, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`)
		if err != nil {
			return fmt.Errorf("store: insert upload chunks: %w", err)
		}
		defer stmt.Close()
		now, toSend := db.Now(), 0
		for c, err := range chunks {
			if err != nil {
				return err
			}
			if _, err := stmt.ExecContext(ctx, jobID, c.Seq, c.State, c.Size, c.Payload, encodeRows(c.PendingRows), len(c.PendingRows), now); err != nil {
				return fmt.Errorf("store: insert upload chunk %s/%d: %w", jobID, c.Seq, err)
			}
			toSend += len(c.PendingRows)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE upload_jobs SET state = $1, to_send = $2, skipped = $3, updated_at = $4 WHERE id = $5`,
			state, toSend, skipped, now, jobID); err != nil {
			return fmt.Errorf("store: upload job %s sending: %w", jobID, err)
		}
		return nil
	})
}

// UploadChunkStates lists a job's chunks in order with their states.
func (db *DB) UploadChunkStates(ctx context.Context, jobID string) ([]UploadChunkState, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT seq, state FROM upload_chunks WHERE job_id = $1 ORDER BY seq`, jobID)
	if err != nil {
		return nil, fmt.Errorf("store: upload chunk states: %w", err)
	}
	defer rows.Close()
	var out []UploadChunkState
	for rows.Next() {
		var s UploadChunkState
		var seq int64
		if err := rows.Scan(&seq, &s.State); err != nil {
			return nil, fmt.Errorf("store: upload chunk states: %w", err)
		}
		s.Seq = int(seq)
		out = append(out, s)
	}
	return out, rows.Err()
}

const chunkColumns = `job_id, seq, state, size, pending_rows, failures, recognised, attempts, last_error, sent_at, updated_at`

func scanChunk(row interface{ Scan(...any) error }, withPayload bool) (UploadChunk, error) {
	var c UploadChunk
	var seq, size, recognised, attempts int64
	var pending, failures string
	var sent, updated nullTime
	dest := []any{&c.JobID, &seq, &c.State, &size, &pending, &failures, &recognised, &attempts, &c.LastError, &sent, &updated}
	if withPayload {
		dest = append(dest, &c.Payload)
	}
	if err := row.Scan(dest...); err != nil {
		return c, err
	}
	c.Seq, c.Size, c.Recognised, c.Attempts = int(seq), int(size), int(recognised), int(attempts)
	c.SentAt, c.UpdatedAt = sent.Time, updated.Time
	var err error
	if c.PendingRows, err = decodeRows(pending); err != nil {
		return c, err
	}
	if failures != "" {
		if err := json.Unmarshal([]byte(failures), &c.Failures); err != nil {
			return c, fmt.Errorf("failures: %w", err)
		}
	}
	return c, nil
}

// UploadChunk returns one chunk with its payload.
func (db *DB) UploadChunk(ctx context.Context, jobID string, seq int) (UploadChunk, error) {
	c, err := scanChunk(db.sql.QueryRowContext(ctx, `SELECT `+chunkColumns+`, payload FROM upload_chunks
		WHERE job_id = $1 AND seq = $2`, jobID, seq), true)
	if errors.Is(err, sql.ErrNoRows) {
		return c, fmt.Errorf("store: upload chunk %s/%d: %w", jobID, seq, ErrNotFound)
	}
	if err != nil {
		return c, fmt.Errorf("store: upload chunk %s/%d: %w", jobID, seq, err)
	}
	return c, nil
}

// UploadChunks returns a job's chunks without their payloads, in order.
func (db *DB) UploadChunks(ctx context.Context, jobID string) ([]UploadChunk, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+chunkColumns+` FROM upload_chunks WHERE job_id = $1 ORDER BY seq`, jobID)
	if err != nil {
		return nil, fmt.Errorf("store: upload chunks: %w", err)
	}
	defer rows.Close()
	var out []UploadChunk
	for rows.Next() {
		c, err := scanChunk(rows, false)
		if err != nil {
			return nil, fmt.Errorf("store: upload chunks: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// SaveUploadChunk stores a chunk's progress (everything but its payload).
func (db *DB) SaveUploadChunk(ctx context.Context, c UploadChunk) error {
	return saveUploadChunk(ctx, db.sql, c, db.Now())
}

// SaveUploadChunkCreated stores a chunk's progress and the components its answer created
// (for the upload's undo, as AddUploadCreated), in one transaction: a confirmed chunk
// costs the database one write, not two, while the chunks after it wait for it.
func (db *DB) SaveUploadChunkCreated(ctx context.Context, c UploadChunk, componentIDs []string) error {
	return db.InTx(ctx, func(tx *sql.Tx) error {
		if err := saveUploadChunk(ctx, tx, c, db.Now()); err != nil {
			return err
		}
		// Fifty rows (a hundred parameters) a statement: the SQLite driver binds $n
		// parameters in time that grows with the square of their count.
		const rows = 50
		for start := 0; start < len(componentIDs); start += rows {
			part := componentIDs[start:min(start+rows, len(componentIDs))]
			values := make([]string, len(part))
			args := make([]any, 0, 2*len(part))
			for i, id := range part {
				values[i] = fmt.Sprintf("($%d, $%d)", 2*i+1, 2*i+2)
				args = append(args, c.JobID, id)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO upload_created (job_id, component_id) VALUES `+strings.Join(values, ", ")+`
				ON CONFLICT (job_id, component_id) DO NOTHING`, args...); err != nil {
				return fmt.Errorf("store: components created by upload %s: %w", c.JobID, err)
			}
		}
		return nil
	})
}

func saveUploadChunk(ctx context.Context, q interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, c UploadChunk, now time.Time) error {
	failures, err := encodeFailures(c.Failures)
	if err != nil {
		return err
	}
	var sent any
	if !c.SentAt.IsZero() {
		sent = Time(c.SentAt)
	}
	_, err = q.ExecContext(ctx, `UPDATE upload_chunks SET state = $1, pending_rows = $2, pending_count = $3,
		failed_count = $4, failures = $5, recognised = $6, attempts = $7, last_error = $8, sent_at = $9, updated_at = $10
		WHERE job_id = $11 AND seq = $12`,
		c.State, encodeRows(c.PendingRows), len(c.PendingRows), len(c.Failures), failures, c.Recognised, c.Attempts,
		c.LastError, sent, now, c.JobID, c.Seq)
	if err != nil {
		return fmt.Errorf("store: save upload chunk %s/%d: %w", c.JobID, c.Seq, err)
	}
	return nil
}

// UploadProgressOf sums a job's chunks; unknown lists the states that count as without
// an answer (sent and unknown).
func (db *DB) UploadProgressOf(ctx context.Context, jobID, confirmed, failed string, unknown ...string) (UploadProgress, error) {
	var p UploadProgress
	rows, err := db.sql.QueryContext(ctx, `SELECT state, COUNT(*), CAST(COALESCE(SUM(size), 0) AS BIGINT),
		CAST(COALESCE(SUM(pending_count), 0) AS BIGINT), CAST(COALESCE(SUM(failed_count), 0) AS BIGINT),
		CAST(COALESCE(SUM(recognised), 0) AS BIGINT) FROM upload_chunks WHERE job_id = $1 GROUP BY state`, jobID)
	if err != nil {
		return p, fmt.Errorf("store: upload progress: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var state string
		var n, size, pending, failedRows, recognised int64
		if err := rows.Scan(&state, &n, &size, &pending, &failedRows, &recognised); err != nil {
			return p, fmt.Errorf("store: upload progress: %w", err)
		}
		p.Chunks += int(n)
		p.Rows += int(size)
		p.Pending += int(pending)
		p.FailedRows += int(failedRows)
		p.Recognised += int(recognised)
		switch {
		case state == confirmed:
			p.Confirmed += int(n)
		case state == failed:
			p.Failed += int(n)
		default:
			for _, u := range unknown {
				if state == u {
					p.Unknown += int(n)
				}
			}
		}
	}
	return p, rows.Err()
}

// SetUploadProblem records why a job could not go on (shown on its page).
func (db *DB) SetUploadProblem(ctx context.Context, id, problem string, args []string) error {
	if _, err := db.sql.ExecContext(ctx, `UPDATE upload_jobs SET problem = $1, problem_args = $2, updated_at = $3 WHERE id = $4`,
		problem, joinArgs(args), db.Now(), id); err != nil {
		return fmt.Errorf("store: upload job %s problem: %w", id, err)
	}
	return nil
}

// UploadJobsFreeToTake returns the jobs in state whose lease is free or lapsed by now:
// work an instance that stopped or died left, for a running one to take over.
func (db *DB) UploadJobsFreeToTake(ctx context.Context, state string, now time.Time) ([]UploadJob, error) {
	return db.queryUploadJobs(ctx, "upload jobs to take over", `SELECT `+uploadJobColumns+` FROM upload_jobs
		WHERE state = $1 AND (lease_owner = '' OR lease_until IS NULL OR lease_until < $2) ORDER BY created_at, id`,
		state, Time(now))
}

// DiscardUploadJob moves a job to state `to` from one of the states `from` and frees its
// lease, whoever held it (an instance still working on it finds at its next renewal that
// it lost it, and stops); it reports whether it did.
func (db *DB) DiscardUploadJob(ctx context.Context, id, to string, from ...string) (bool, error) {
	args := []any{to, db.Now(), id}
	ph := make([]string, len(from))
	for i, s := range from {
		args = append(args, s)
		ph[i] = "$" + strconv.Itoa(len(args))
	}
	res, err := db.sql.ExecContext(ctx, `UPDATE upload_jobs SET state = $1, updated_at = $2, lease_owner = '', lease_until = NULL
		WHERE id = $3 AND state IN (`+strings.Join(ph, ",")+`)`, args...)
	if err != nil {
		return false, fmt.Errorf("store: discard upload job %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
