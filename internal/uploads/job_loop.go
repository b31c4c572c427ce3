package uploads

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/store"
)

func actorOf(j store.UploadJob) auth.Actor {
	return auth.Actor{ID: j.CommittedByID, Username: j.CommittedBy, Role: auth.Role(j.CommittedRole), IP: j.CommittedIP}
}

// run takes a job as far as it goes under its lease: prepared (checked again and cut into
// chunks), sent (internal/jobs), finished. Stopping, or losing the lease (ctx ends),
// leaves it where it is, for the next start or the instance that holds the lease.
func (r *Runner) run(ctx context.Context, id string) error {
	j, err := r.db.UploadJobByID(ctx, id)
	if err != nil {
		return err
	}
	uj := r.job(j)
	if j.State == StateQueued || j.State == StateChecking {
		if _, err := r.db.SetUploadJobState(ctx, j.ID, StateChecking, StateQueued, StateChecking); err != nil {
			return err
		}
		// Tried again while the service fails: a few times quickly, then, when it does not
		// answer at all, waiting for it as the sending does.
		if err := r.jobs.Engine.Try(ctx, j.ID, uj, func(ctx context.Context) error { return r.prepare(ctx, j) }); err != nil {
			if r.jobs.Quitting() || ctx.Err() != nil {
				return nil
			}
			var fe *FileError
			problem := "internal"
			switch {
			case errors.As(err, &fe):
				problem = fe.Code
			case errors.Is(err, ErrFileGone):
				problem = "file_gone"
			case isUpstream(err):
				problem = "upstream"
			}
			r.log.Error("upload job: prepare", "job", j.ID, "err", err)
			if err := r.db.SetUploadProblem(ctx, j.ID, problem, nil); err != nil {
				return err
			}
			return r.db.FinishUploadJob(ctx, j.ID, StateFailed, 0, 0)
		}
	}
	finished, err := r.jobs.Engine.Run(ctx, j.ID, uj)
	if err != nil || !finished {
		return err
	}
	return r.finish(ctx, j.ID)
}

// prepare asks the service which of the analysed rows exist by now (a preview left open
// for a day, or the same rows sent by another upload in between) and writes the rest as
// chunks. It can be repeated: the chunks are made afresh each time. The rows come from
// what the analysis kept of the sheet; an upload analysed before that was kept reads its
// sheet again, once.
func (r *Runner) prepare(ctx context.Context, j store.UploadJob) error {
	if !j.FileKept {
		return ErrFileGone
	}
	skipErr, err := r.badRows(ctx, j.ID)
	if err != nil {
		return err
	}
	var rs sendRows
	kept, err := r.readKeptRows(ctx, j.ID, skipErr, &rs)
	if err != nil {
		return err
	}
	if !kept {
		if err := r.withSheet(ctx, j.ID, func(path string) error { return r.readSheetRows(ctx, j, path, skipErr, &rs) }); err != nil {
			return err
		}
	}
	opts := r.options(Kind(j.Kind))
	exists := make([]bool, len(rs.items.rows))
	switch Kind(j.Kind) {
	case Components:
		// Corrections are always sent: an update with the values already there is harmless.
		var keys []Key
		var idx []int
		for i, k := range rs.keys {
			if !rs.update[i] {
				keys, idx = append(keys, k), append(idx, i)
			}
		}
		found, err := opts.Existing.FindComponents(ctx, keys)
		if err != nil {
			return err
		}
		for i, f := range found {
			exists[idx[i]] = f
		}
	case Students:
		// Updates of existing students are always sent: sent twice, the record is the same.
		var nis []string
		for i, n := range rs.nis {
			if !rs.update[i] {
				nis = append(nis, n)
			}
		}
		known, err := opts.Students.KnownStudents(ctx, nis)
		if err != nil {
			return err
		}
		for i, n := range rs.nis {
			exists[i] = !rs.update[i] && known[n]
		}
	}
	skipped := 0
	for _, e := range exists {
		if e {
			skipped++
		}
	}
	return r.db.ReplaceUploadChunks(ctx, j.ID, rs.items.chunks(j.ID, r.cfg.ChunkSize, exists, rs.update), StateSending, skipped)
}

// updateChunk is how many corrections a chunk holds: each is a call of its own, so a
// chunk's progress is saved every few calls.
func updateChunk(size int) int { return max(1, size/10) }

// sendRows are the rows a commit may send: each as its chunk JSON, with what the search
// for those already at the service needs (components' keys, students' NIS).
type sendRows struct {
	items  itemBuffer
	keys   []Key
	nis    []string
	update []bool    // the row corrects a component
	names  *interner // one string per distinct spelling of a name, not one per row
}

func (rs *sendRows) add(row int, nis, name string, due time.Time, update bool, item []byte) {
	if rs.names == nil {
		rs.names = newInterner()
	}
	rs.keys = append(rs.keys, Key{NIS: nis, Name: rs.names.list[rs.names.id(name)], Due: due})
	rs.nis = append(rs.nis, nis)
	rs.update = append(rs.update, update)
	rs.items.addRaw(row, item)
}

// keptRow is what prepare reads of a kept row: either kind's item has these.
type keptRow struct {
	Row  int    `json:"row"`
	NIS  string `json:"nis"`
	Name string `json:"name"`
	Due  string `json:"due"`
	// ID (a component's correction) or Update (a student's) mark a change of what exists.
	ID     string `json:"id"`
	Update bool   `json:"update"`
}

// readKeptRows reads the rows the analysis kept, those skip does not name; false when the
// upload has none kept (analysed before rows were kept).
func (r *Runner) readKeptRows(ctx context.Context, id string, skip func(row int) bool, rs *sendRows) (bool, error) {
	var buf bytes.Buffer
	if _, err := r.db.CopyUploadFile(ctx, id, store.UploadRows, &buf); err != nil {
		if isNotFound(err) {
			return false, nil
		}
		return false, err
	}
	for line := range bytes.SplitSeq(buf.Bytes(), []byte{'\n'}) {
		if len(line) == 0 {
			continue
		}
		var k keptRow
		if err := json.Unmarshal(line, &k); err != nil {
			return false, fmt.Errorf("uploads: kept rows: %w", err)
		}
		if skip(k.Row) {
			continue
		}
		var due time.Time
		if k.Name != "" {
			due = day(k.Due)
		}
		rs.add(k.Row, k.NIS, k.Name, due, k.ID != "" || k.Update, line)
	}
	return true, nil
}

// readSheetRows reads the rows to send from the sheet itself.
func (r *Runner) readSheetRows(ctx context.Context, j store.UploadJob, path string, skip func(row int) bool, rs *sendRows) error {
	opts := r.options(Kind(j.Kind))
	switch Kind(j.Kind) {
	case Components:
		return ReadComponents(ctx, path, opts, skip, func(c Component) error {
			b, err := json.Marshal(compItemOf(c))
			rs.add(c.Row, c.NIS, c.Name, c.Due, false, b)
			return err
		})
	case Students:
		return ReadStudents(ctx, path, opts, skip, func(s Student) error {
			b, err := json.Marshal(studentItemOf(s))
			rs.add(s.Row, s.NIS, "", time.Time{}, false, b)
			return err
		})
	}
	return fmt.Errorf("uploads: unknown kind %q", j.Kind)
}

// itemBuffer keeps the rows to send as their JSON, back to back.
type itemBuffer struct {
	buf  []byte
	ends []int // where each item ends in buf
	rows []int
}

func (b *itemBuffer) addRaw(row int, item []byte) {
	b.buf = append(b.buf, item...)
	b.ends = append(b.ends, len(b.buf))
	b.rows = append(b.rows, row)
}

// chunks yields the items not skipped as pending chunks numbered from 1: the new rows
// size at a time, then the corrections (update) updateChunk(size) at a time.
func (b *itemBuffer) chunks(jobID string, size int, skip, update []bool) iter.Seq2[store.UploadChunk, error] {
	return func(yield func(store.UploadChunk, error) bool) {
		var payload []byte
		var rows []int
		seq := 0
		flush := func() bool {
			if len(rows) == 0 {
				return true
			}
			seq++
			payload = append(payload, ']')
			c := store.UploadChunk{JobID: jobID, Seq: seq, State: ChunkPending, Size: len(rows), Payload: string(payload), PendingRows: rows}
			payload, rows = payload[:0], nil
			return yield(c, nil)
		}
		for _, updates := range []bool{false, true} {
			n := size
			if updates {
				n = updateChunk(size)
			}
			for i, row := range b.rows {
				if skip[i] || update[i] != updates {
					continue
				}
				if len(rows) == 0 {
					payload = append(payload, '[')
				} else {
					payload = append(payload, ',')
				}
				start := 0
				if i > 0 {
					start = b.ends[i-1]
				}
				payload = append(payload, b.buf[start:b.ends[i]]...)
				rows = append(rows, row)
				if len(rows) >= n && !flush() {
					return
				}
			}
			if !flush() {
				return
			}
		}
	}
}

// finish records the job's outcome once no chunk is open.
func (r *Runner) finish(ctx context.Context, id string) error {
	p, err := r.db.UploadProgressOf(ctx, id, ChunkConfirmed, ChunkFailed, ChunkSent, ChunkUnknown)
	if err != nil {
		return err
	}
	if open := p.Chunks - p.Confirmed - p.Failed - p.Unknown; open > 0 {
		// The loop takes the job up again after a pause.
		return fmt.Errorf("%d chunks still pending", open)
	}
	state := StateDone
	switch {
	case p.Done() == 0 && p.Rows > 0:
		state = StateFailed
	case p.Pending > 0 || p.FailedRows > 0:
		state = StatePartial
	}
	return r.db.FinishUploadJob(ctx, id, state, p.Done(), p.FailedRows)
}
