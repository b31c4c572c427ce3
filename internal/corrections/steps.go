package corrections

import (
	"context"
	"errors"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/jobs"
	"github.com/sekolah/portal/internal/store"
)

// Steps are the correction steps: every change of what already exists at the service
// (a component corrected or cancelled, a student's record updated) is sent through them,
// whichever job carries it (a bulk correction, the undo of an upload, a corrections sheet,
// a students sheet's "naik kelas"), and read back through them, as a jobs.Decision, after
// a call that ended without an answer or was refused. Each send goes through
// changes.Writer: audited, and recorded in the ledger once the service confirms it.
type Steps struct {
	Writer *changes.Writer
	Clock  clock.Clock
}

// The problems an item keeps (catalogue keys, worded on the job's page).
const (
	ProblemPaid     = KeyPaid
	ProblemDeleted  = KeyDeleted
	ProblemNotFound = "corrections.problem.not_found"
	// ProblemStudentGone: the student to update no longer exists at the service.
	ProblemStudentGone = "corrections.problem.student_gone"
)

// UpdateComponent sends the update u of component id.
func (s Steps) UpdateComponent(ctx context.Context, actor auth.Actor, id string, u billing.ComponentUpdate, detail string) error {
	_, err := s.Writer.UpdateComponent(ctx, actor, id, u, detail)
	return err
}

// CheckUpdate reads component id at the service and decides the update u of it: there
// already (done), paid or cancelled meanwhile (skipped, with why), gone (failed), or to
// be sent (pending).
func (s Steps) CheckUpdate(ctx context.Context, id string, u billing.ComponentUpdate) (jobs.Decision, error) {
	b, err := s.component(ctx, id)
	if err != nil || b == nil {
		return notFound(err)
	}
	switch {
	case b.State == billing.StatePaid:
		return skipped(ProblemPaid), nil
	case b.State == billing.StateDeleted:
		return skipped(ProblemDeleted), nil
	case Applied(*b, u):
		return jobs.Decision{State: jobs.Done}, nil
	}
	return jobs.Decision{State: jobs.Pending}, nil
}

// CancelComponents cancels the components ids with reason, in one call (all or none at
// the service).
func (s Steps) CancelComponents(ctx context.Context, actor auth.Actor, ids []string, reason, detail string) error {
	_, err := s.Writer.CancelComponents(ctx, actor, ids, reason, detail)
	return err
}

// CheckCancel reads component id at the service and decides its cancel: cancelled (done:
// by this job or before it, the goal holds either way), paid meanwhile (skipped), gone
// (failed), or to be sent (pending).
func (s Steps) CheckCancel(ctx context.Context, id string) (jobs.Decision, error) {
	b, err := s.component(ctx, id)
	if err != nil || b == nil {
		return notFound(err)
	}
	switch b.State {
	case billing.StateDeleted:
		return jobs.Decision{State: jobs.Done}, nil
	case billing.StatePaid:
		return skipped(ProblemPaid), nil
	}
	return jobs.Decision{State: jobs.Pending}, nil
}

// UpdateStudent replaces a student's record at the service with st (their NIS keeps it).
func (s Steps) UpdateStudent(ctx context.Context, actor auth.Actor, st billing.Student) error {
	_, err := s.Writer.UpdateStudent(ctx, actor, st)
	return err
}

// CheckStudent reads the student at the service and decides the update to st: applied
// (done: the roster learns it here, as the writer would have from the answer), the
// student gone (failed), or to be sent (pending).
func (s Steps) CheckStudent(ctx context.Context, st billing.Student) (jobs.Decision, error) {
	got, err := s.Writer.Client.Student(ctx, st.NIS)
	switch {
	case errors.Is(err, billing.ErrNotFound):
		return jobs.Decision{State: jobs.Failed, Problem: jobs.Problem{Code: ProblemStudentGone}}, nil
	case err != nil:
		return jobs.Decision{}, err
	}
	if got.Name != st.Name || got.Description != st.Description || got.Phone != st.Phone || got.Email != st.Email {
		return jobs.Decision{State: jobs.Pending}, nil
	}
	err = s.Writer.DB.UpsertStudents(ctx, []store.Student{{NIS: got.NIS, Name: got.Name, KeyName: got.KeyName, Phone: got.Phone,
		Email: got.Email, Description: got.Description, Source: store.SourcePortal, SyncedAt: s.Clock.Now()}})
	if err != nil {
		return jobs.Decision{}, err
	}
	return jobs.Decision{State: jobs.Done}, nil
}

// component reads a component at the service; nil when the service does not know it.
func (s Steps) component(ctx context.Context, id string) (*billing.Bill, error) {
	b, err := s.Writer.Client.GetComponent(ctx, id)
	switch {
	case errors.Is(err, billing.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return &b, nil
}

func notFound(err error) (jobs.Decision, error) {
	if err != nil {
		return jobs.Decision{}, err
	}
	return jobs.Decision{State: jobs.Failed, Problem: jobs.Problem{Code: ProblemNotFound}}, nil
}

func skipped(problem string) jobs.Decision {
	return jobs.Decision{State: jobs.Skipped, Problem: jobs.Problem{Code: problem}}
}
