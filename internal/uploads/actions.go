package uploads

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/store"
)

// The steps a person takes on an upload. Each checks the upload's state (ErrState when it
// does not allow the step: committed twice, discarded meanwhile), makes the change and
// audits it as actor's.

// Analyse starts the analysis of a held upload (the person confirmed despite the earlier
// upload of the same file) or analyses an invalid one again (the service did not answer).
func (r *Runner) Analyse(ctx context.Context, id string, actor auth.Actor) error {
	j, err := r.db.UploadJobByID(ctx, id)
	if err != nil {
		return err
	}
	if !j.FileKept {
		return ErrFileGone
	}
	ok, err := r.db.SetUploadJobState(ctx, id, StateAnalysing, StateHeld, StateInvalid)
	if err != nil {
		return err
	}
	if !ok {
		return ErrState
	}
	r.audit(ctx, actor, ActionAnalyse, j)
	r.startAnalysis(id)
	return nil
}

// NeedsAck is the refusal of a commit whose warnings were not all acknowledged: Codes are
// the kinds still to acknowledge (AckCodes), in order.
type NeedsAck struct{ Codes []string }

func (e *NeedsAck) Error() string {
	return "uploads: warnings not acknowledged: " + strings.Join(e.Codes, ", ")
}

// Commit queues a previewed upload's job on behalf of actor, who acknowledges the kinds
// of warning acked: every kind the upload has (AckCodes) must be among them, else nothing
// happens and the answer is a *NeedsAck naming those missing. The acknowledgement is
// audited, and kept with the job. The aid flags of a Dapodik export are recorded for the
// students the roster has (the job records those it creates).
func (r *Runner) Commit(ctx context.Context, id string, actor auth.Actor, acked ...string) error {
	j, err := r.db.UploadJobByID(ctx, id)
	if err != nil {
		return err
	}
	if !StateOf(j).Committable() {
		return ErrState
	}
	need := AckCodes(j)
	var missing []string
	for _, c := range need {
		if !slices.Contains(acked, c) {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return &NeedsAck{Codes: missing}
	}
	ok, err := r.db.CommitUploadJob(ctx, id, store.UploadCommit{From: StateReady, To: StateQueued,
		ByID: actor.ID, By: actor.Username, Role: string(actor.Role), IP: actor.IP, Acknowledged: need})
	if err != nil {
		return err
	}
	if !ok {
		return ErrState
	}
	if j, err := r.db.UploadJobByID(ctx, id); err == nil {
		if len(need) > 0 {
			r.audit(ctx, actor, ActionAcknowledge, j, warningsArg(need))
		}
		r.audit(ctx, actor, ActionCommit, j)
	}
	if n, err := r.applyAid(ctx, id); err != nil {
		r.log.Error("upload commit: record the students' aid flags", "job", id, "err", err)
	} else if n > 0 {
		r.log.Info("upload commit: aid flags recorded", "job", id, "students", n)
	}
	r.jobs.Wake()
	return nil
}

// Retry queues again a job that ended with rows not sent (the service was unavailable,
// or calls went unanswered); rows the service refused stay refused. A job still waiting
// for the service is asked to try again now, in whichever instance runs it (Hurried).
func (r *Runner) Retry(ctx context.Context, id string, actor auth.Actor) error {
	j, err := r.db.UploadJobByID(ctx, id)
	if err != nil {
		return err
	}
	if Hurried(j) {
		if err := r.db.SetUploadHurry(ctx, id, r.now()); err != nil {
			return err
		}
		r.audit(ctx, actor, ActionRetry, j)
		r.jobs.Wake()
		return nil
	}
	if !StateOf(j).Finished() || j.State == StateDone {
		return ErrState
	}
	// The chunks first, the job's state last: the job loop must not find the job sending
	// while its chunks still say failed, or it would finish it again at once.
	chunks, err := r.db.UploadChunks(ctx, id)
	if err != nil {
		return err
	}
	for _, c := range chunks {
		if c.State == ChunkFailed && len(c.PendingRows) > 0 {
			c.State = ChunkPending
			if err := r.db.SaveUploadChunk(ctx, c); err != nil {
				return err
			}
		}
	}
	next := StateSending
	if len(chunks) == 0 {
		// It failed before any chunk was made (the service did not answer the check):
		// it starts again from the check.
		if !j.FileKept {
			return ErrFileGone
		}
		next = StateQueued
		if err := r.db.SetUploadProblem(ctx, id, "", nil); err != nil {
			return err
		}
	}
	ok, err := r.db.SetUploadJobState(ctx, id, next, StatePartial, StateFailed)
	if err != nil {
		return err
	}
	if !ok {
		return ErrState
	}
	r.audit(ctx, actor, ActionRetry, j)
	r.jobs.Wake()
	return nil
}

// Discard drops an upload before it was committed, and its sheet and problems; also one
// still being checked (stuck, its instance gone, or simply not wanted any more): the
// analysis, here or in the instance that holds it, stops.
func (r *Runner) Discard(ctx context.Context, id string, actor auth.Actor) error {
	ok, err := r.db.DiscardUploadJob(ctx, id, StateDiscarded, StateHeld, StateReady, StateInvalid, StateAnalysing)
	if err != nil {
		return err
	}
	if !ok {
		return ErrState
	}
	r.stopAnalysis(id)
	r.removeFile(ctx, id)
	if j, err := r.db.UploadJobByID(ctx, id); err == nil {
		r.audit(ctx, actor, ActionDiscard, j)
	}
	return nil
}

// removeFile forgets the job's sheet and everything made from it (error workbooks, the
// rows found wrong, the problems); the history line stays, with its counts.
func (r *Runner) removeFile(ctx context.Context, id string) {
	if err := r.db.ForgetUploadFiles(ctx, id); err != nil {
		r.log.Error("remove upload file", "job", id, "err", err)
	}
}

// Wait blocks until the job is in none of the busy states (analysing, queued, checking,
// sending) or ctx ends, and returns the job as it is then.
func (r *Runner) Wait(ctx context.Context, id string) (store.UploadJob, error) {
	for {
		j, err := r.db.UploadJobByID(ctx, id)
		if err != nil {
			return j, err
		}
		if !StateOf(j).Busy() {
			return j, nil
		}
		t := time.NewTimer(20 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return j, ctx.Err()
		case <-t.C:
		}
	}
}
