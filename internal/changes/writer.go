// Package changes is every change the portal makes at the billing service, audited: the
// one door for writes. Every write is audited (who, what, which NIS or ids, outcome, the
// service's status and status_desc) and, in the same place, recorded in the ledger
// (internal/ledger: the roster and the components) from the service's answer, only once
// the service has confirmed it: nothing is recorded as done that was not done, and every
// page shows the write at once rather than after the next sync.
package changes

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/students"
)

// The codes of the writes' audit entries (what the log stores and filters by). The values
// predate the package's name and stay as they are in the audit log.
const (
	ActionStudentsCreate   = "upstream.students.create"
	ActionStudentUpdate    = "upstream.student.update"
	ActionStudentDelete    = "upstream.student.delete"
	ActionComponentsCreate = "upstream.components.create"
	ActionComponentUpdate  = "upstream.component.update"
	ActionComponentsCancel = "upstream.components.cancel"
	ActionCheckout         = "upstream.checkout"
	ActionPay              = "upstream.pay"
)

// The writes as the audit log's vocabulary: each about a student (or the first of
// several), with the figures its words show.
var (
	auditStudentsCreate = audit.Register(audit.Action{Code: ActionStudentsCreate, About: audit.AboutStudent,
		Keeps: []audit.Key{audit.KeySource}, Needs: []audit.Key{audit.KeyNIS}})
	auditStudentUpdate = audit.Register(audit.Action{Code: ActionStudentUpdate, About: audit.AboutStudent,
		Keeps: []audit.Key{audit.KeyClass}, Needs: []audit.Key{audit.KeyNIS}})
	auditStudentDelete = audit.Register(audit.Action{Code: ActionStudentDelete, About: audit.AboutStudent, Removes: true,
		Needs: []audit.Key{audit.KeyNIS}})
	auditComponentsCreate = audit.Register(audit.Action{Code: ActionComponentsCreate, About: audit.AboutStudent,
		Shows: []audit.Figure{audit.Items, audit.Money}, Keeps: []audit.Key{audit.KeyUpload},
		Needs: []audit.Key{audit.KeyNIS, audit.KeyCount, audit.KeyTotal}})
	auditComponentUpdate = audit.Register(audit.Action{Code: ActionComponentUpdate, About: audit.AboutStudent,
		Shows: []audit.Figure{audit.ItemName}, Keeps: []audit.Key{audit.KeyComp, audit.KeyFields, audit.KeyJob},
		Needs: []audit.Key{audit.KeyNIS, audit.KeyComp, audit.KeyFields}})
	auditComponentsCancel = audit.Register(audit.Action{Code: ActionComponentsCancel, About: audit.AboutStudent,
		Shows: []audit.Figure{audit.ItemName, audit.Items, audit.Money, audit.Why}, Keeps: []audit.Key{audit.KeyJob},
		Needs: []audit.Key{audit.KeyCount, audit.KeyTotal}})
	auditCheckout = audit.Register(audit.Action{Code: ActionCheckout, About: audit.AboutStudent,
		Shows: []audit.Figure{audit.Items, audit.Money}, Keeps: []audit.Key{audit.KeySource, audit.KeyBill},
		Needs: []audit.Key{audit.KeyNIS, audit.KeyCount, audit.KeyTotal, audit.KeyBill}})
	auditPay = audit.Register(audit.Action{Code: ActionPay, About: audit.AboutStudent,
		Shows: []audit.Figure{audit.Items, audit.Money, audit.Receipt},
		Needs: []audit.Key{audit.KeyNIS, audit.KeyCount, audit.KeyTotal, audit.KeyRef}})
)

// Outcomes of an upstream write. Unknown means the call timed out or lost its connection:
// the service may or may not have applied it.
const (
	OutcomeOK      = string(audit.OK)
	OutcomeFailed  = string(audit.Failed)
	OutcomeUnknown = string(audit.Unknown)
)

// Writer makes audited writes through the billing client. cmd/portal builds one and every
// part that changes something at the service (the pages, the uploads, registration) is
// handed it.
type Writer struct {
	Client *billing.Client
	DB     *store.DB
	// Ledger records each confirmed write: the students into the roster, the components
	// as the service answered them. The portal always has one; without it (a test of a
	// part that never reads the ledger) the roster is kept and components are not recorded.
	Ledger *ledger.Ledger
	// Nudge, when set, asks the ledger's sync to run soon: a write whose answer could not
	// be recorded is then read from the service instead (the sync's Nudge).
	Nudge func()
	Log   *slog.Logger
	// Clock is the portal's clock (internal/app's): now, the school's zone and today. The
	// zero Clock refuses to be read.
	Clock clock.Clock
}

// Outcome classifies the result of a write for the audit log.
func Outcome(err error) string {
	switch {
	case err == nil:
		return OutcomeOK
	case Ambiguous(err):
		return OutcomeUnknown
	default:
		return OutcomeFailed
	}
}

// Ambiguous reports whether a failed write may nevertheless have been applied: the
// request left but no answer came back.
func Ambiguous(err error) bool {
	if err == nil {
		return false
	}
	var apiErr *billing.APIError
	if errors.As(err, &apiErr) {
		return false // the service answered: it says what happened
	}
	// The client refuses invalid input before sending; anything else (a timeout, a broken
	// connection, the person's request cancelled mid-call) may have reached the service.
	return !errors.Is(err, billing.ErrValidation)
}

func (w *Writer) now() time.Time { return w.Clock.Now() }

// audit writes the entry for one upstream write, e made with its action and arguments;
// the write has already happened (or not), so a failure here is logged, not returned.
func (w *Writer) audit(ctx context.Context, actor auth.Actor, e audit.Entry, target, detail string, err error) {
	e.Actor, e.Target, e.Outcome, e.Detail = actor.Audit(), truncate(target, 500), audit.Outcome(Outcome(err)), truncate(detail, 1000)
	var apiErr *billing.APIError
	switch {
	case errors.As(err, &apiErr):
		e.UpstreamStatus, e.UpstreamDesc = apiErr.StatusCode, truncate(apiErr.StatusDesc, 500)
	case err != nil:
		e.Detail = truncate(strings.TrimSpace(detail+" · "+err.Error()), 1000)
	}
	// Audit even when the request's context is gone: the person closing the tab must not
	// erase the record of a write that reached the service.
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if aerr := (audit.Log{DB: w.DB, Clock: w.Clock}).Record(actx, e); aerr != nil {
		w.logger().Error("append audit entry for upstream write", "action", e.Action.Code, "target", e.Target, "err", aerr)
	}
}

// record writes a confirmed write's answer into the ledger. The write has happened, so
// a failure here is not the person's: it is logged and the sync is asked to bring the
// ledger up to date from the service.
func (w *Writer) record(what string, err error) {
	if err == nil {
		return
	}
	w.logger().Error("record a write in the ledger; the next sync brings it", "write", what, "err", err)
	if w.Nudge != nil {
		w.Nudge()
	}
}

// recordComponents writes components as the service answered them into the ledger.
func (w *Writer) recordComponents(ctx context.Context, what string, bills []billing.Bill) {
	if len(bills) == 0 || w.Ledger == nil {
		return
	}
	// Recorded even when the person's request is gone: the write reached the service.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_, err := w.Ledger.Upsert(rctx, bills)
	w.record(what, err)
}

// recordStudents writes students the service confirmed into the roster (through the
// ledger, which moves its change sequence on for live pages).
func (w *Writer) recordStudents(ctx context.Context, ss []billing.Student, source string) error {
	ctx = context.WithoutCancel(ctx)
	if w.Ledger == nil {
		return students.Mirror(ctx, w.DB, ss, source, w.now())
	}
	return w.Ledger.RecordStudents(ctx, ss, source)
}

// removeStudent takes a student the service deleted out of the roster, and their unpaid
// components out of the ledger.
func (w *Writer) removeStudent(ctx context.Context, nis string) error {
	ctx = context.WithoutCancel(ctx)
	if w.Ledger == nil {
		return w.DB.DeleteStudent(ctx, nis)
	}
	_, err := w.Ledger.StudentRemoved(ctx, nis)
	return err
}

func (w *Writer) logger() *slog.Logger {
	if w.Log != nil {
		return w.Log
	}
	return slog.Default()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// studentName is the roster's name of nis, for the audit log's words ("" when unknown).
func (w *Writer) studentName(ctx context.Context, nis string) string {
	if s, err := w.DB.StudentByNIS(ctx, nis); err == nil {
		return s.Name
	}
	return ""
}

func nisList(nis []string) string {
	if len(nis) > 20 {
		return strings.Join(nis[:20], ",") + fmt.Sprintf(",… (+%d)", len(nis)-20)
	}
	return strings.Join(nis, ",")
}

// CreateStudents creates students at the service (all or none) and adds them to the
// roster with source.
func (w *Writer) CreateStudents(ctx context.Context, actor auth.Actor, ss []billing.Student, source string) ([]billing.Student, error) {
	nis := make([]string, len(ss))
	names := make([]string, len(ss))
	for i, s := range ss {
		nis[i], names[i] = s.NIS, s.Name
	}
	created, err := w.Client.CreateStudents(ctx, ss)
	w.audit(ctx, actor, auditStudentsCreate.With(audit.Students(nis, names), audit.Source(source)),
		nisList(nis), fmt.Sprintf("%d students", len(ss)), err)
	if err != nil {
		return nil, err
	}
	if len(created) == 0 {
		created = ss
	}
	if err := w.recordStudents(ctx, created, source); err != nil {
		return created, fmt.Errorf("students created at the service but not added to the roster: %w", err)
	}
	return created, nil
}

// UpdateStudent changes a student's details at the service and in the roster.
func (w *Writer) UpdateStudent(ctx context.Context, actor auth.Actor, s billing.Student) (billing.Student, error) {
	updated, err := w.Client.UpdateStudent(ctx, s)
	w.audit(ctx, actor, auditStudentUpdate.With(audit.Student(s.NIS, s.Name), audit.Class(s.Description)), s.NIS, s.Name, err)
	if err != nil {
		return billing.Student{}, err
	}
	if updated.NIS == "" {
		updated = s
	}
	if err := w.recordStudents(ctx, []billing.Student{updated}, store.SourcePortal); err != nil {
		return updated, fmt.Errorf("student updated at the service but not in the roster: %w", err)
	}
	return updated, nil
}

// ErrStudentGone means the service no longer had the student to delete: someone deleted
// them meanwhile. DeleteStudent has then taken them out of the roster and the ledger all
// the same; the error also wraps the service's billing.ErrNotFound.
var ErrStudentGone = errors.New("changes: the service no longer has the student")

// DeleteStudent removes a student at the service (refused when payments exist) and then
// from the roster, their unpaid components with them (as the service deletes them). A
// student the service no longer has goes from the roster and the ledger the same way
// (ErrStudentGone), so no figure keeps counting their bills until the next reconcile.
func (w *Writer) DeleteStudent(ctx context.Context, actor auth.Actor, nis string) error {
	name := w.studentName(ctx, nis)
	err := w.Client.DeleteStudent(ctx, nis)
	w.audit(ctx, actor, auditStudentDelete.With(audit.Student(nis, name)), nis, "", err)
	gone := errors.Is(err, billing.ErrNotFound)
	if err != nil && !gone {
		return err
	}
	if rerr := w.removeStudent(ctx, nis); rerr != nil {
		return fmt.Errorf("student deleted at the service but still in the roster: %w", rerr)
	}
	if gone {
		return fmt.Errorf("%w: %w", ErrStudentGone, err)
	}
	return nil
}

// CreateComponents adds bill components (all or none). detail says where they came from
// (a form, an upload job and chunk) for the audit log.
func (w *Writer) CreateComponents(ctx context.Context, actor auth.Actor, comps []billing.ComponentInput, detail string) ([]billing.Bill, error) {
	bills, record, err := w.CreateComponentsApart(ctx, actor, comps, detail)
	record(ctx)
	return bills, err
}

// CreateComponentsApart is CreateComponents in two parts: the call, and record, which
// writes its audit entry and, when the service made the components, the ledger. The
// caller runs record once, whatever the answer, and before it tells anyone the
// components are made: a job (jobs.Apart) lets the next batch's call leave first.
func (w *Writer) CreateComponentsApart(ctx context.Context, actor auth.Actor, comps []billing.ComponentInput, detail string) ([]billing.Bill, func(context.Context), error) {
	bills, err := w.Client.CreateComponents(ctx, comps)
	return bills, func(ctx context.Context) { w.recordCreated(ctx, actor, comps, detail, bills, err) }, err
}

// recordCreated writes what a call creating comps answered: the audit entry, and the
// components into the ledger when it made them.
func (w *Writer) recordCreated(ctx context.Context, actor auth.Actor, comps []billing.ComponentInput, detail string, bills []billing.Bill, err error) {
	seen := map[string]bool{}
	var nis []string
	var total int64
	for _, c := range comps {
		if !seen[c.NIS] {
			seen[c.NIS] = true
			nis = append(nis, c.NIS)
		}
		total += c.Amount
	}
	d := strings.TrimSpace(fmt.Sprintf("%d components, Rp %d %s", len(comps), total, detail))
	var names []string
	if len(nis) == 1 {
		names = []string{w.studentName(ctx, nis[0])}
	}
	e := auditComponentsCreate.With(audit.Students(nis, names), audit.Count(len(comps)), audit.Total(total), audit.Upload(uploadOf(detail)))
	w.audit(ctx, actor, e, nisList(nis), d, err)
	if err == nil {
		w.recordComponents(ctx, "components create", bills)
	}
}

// uploadOf reads the upload job id from the detail the uploads runner passes ("upload
// <id> chunk <n>"), so the log can link to the upload.
func uploadOf(detail string) string {
	f := strings.Fields(detail)
	for i := 0; i+1 < len(f); i++ {
		if f[i] == "upload" || f[i] == "job" {
			return strings.Trim(f[i+1], ",;")
		}
	}
	return ""
}

// Checkout registers a student with their bill in one atomic call and adds the student to
// the roster with source. The service answers only ids, so the student's components are
// read back with one search (by the new NIS) for the ledger.
func (w *Writer) Checkout(ctx context.Context, actor auth.Actor, req billing.Checkout, source string) (billing.CheckoutResult, error) {
	res, err := w.Client.Checkout(ctx, req)
	detail := fmt.Sprintf("%d components", len(req.Components))
	var total int64
	for _, c := range req.Components {
		total += c.Amount
	}
	args := []audit.Arg{audit.Student(req.Student.NIS, req.Student.Name), audit.Count(len(req.Components)), audit.Total(total),
		audit.Source(source)}
	if err == nil {
		detail += ", bill " + res.BillID + ", components " + strings.Join(res.ComponentIDs, ",")
		args = append(args, audit.Bill(res.BillID))
	}
	w.audit(ctx, actor, auditCheckout.With(args...), req.Student.NIS, detail, err)
	if err != nil {
		return billing.CheckoutResult{}, err
	}
	if err := w.recordStudents(ctx, []billing.Student{req.Student}, source); err != nil {
		return res, fmt.Errorf("registered at the service but not added to the roster: %w", err)
	}
	if w.Ledger == nil {
		return res, nil
	}
	nis := cmp.Or(res.NIS, req.Student.NIS)
	bills, err := w.Client.StudentBills(context.WithoutCancel(ctx), nis, billing.Query{Limit: billing.MaxLimit})
	if err != nil {
		w.record("checkout: read the new components back", err)
		return res, nil
	}
	w.recordComponents(ctx, "checkout", bills)
	return res, nil
}

// Pay records a payment (all listed components or none).
func (w *Writer) Pay(ctx context.Context, actor auth.Actor, p billing.Payment) ([]billing.Bill, error) {
	paid, err := w.Client.Pay(ctx, p)
	detail := "ref " + p.RefNumber + ", components " + strings.Join(p.ComponentIDs, ",")
	figures := []audit.Arg{audit.Ref(p.RefNumber), audit.Count(len(p.ComponentIDs))}
	name := ""
	if err == nil {
		var sum int64
		for _, b := range paid {
			sum += b.AmountPaid
			name = cmp.Or(name, b.StudentName)
		}
		detail += fmt.Sprintf(", paid Rp %d", sum)
		figures = append(figures, audit.Total(sum))
	}
	name = cmp.Or(name, w.studentName(ctx, p.NIS))
	w.audit(ctx, actor, auditPay.With(append(figures, audit.Student(p.NIS, name))...), p.NIS, detail, err)
	if err == nil {
		w.recordComponents(ctx, "pay", paid)
	}
	return paid, err
}

// UpdateComponent changes one unpaid component at the service (only the fields u sets)
// and records the service's answer in the ledger. detail says where the change came from
// (a form, "correction <job> chunk <n>", "upload <id> …") for the audit log; the entry
// names the student, the item and each changed field with its old and new value.
func (w *Writer) UpdateComponent(ctx context.Context, actor auth.Actor, id string, u billing.ComponentUpdate, detail string) (billing.Bill, error) {
	before := w.heldComponent(ctx, id)
	u.UpdatedBy = cmp.Or(u.UpdatedBy, actor.Username)
	updated, err := w.Client.UpdateComponent(ctx, id, u)
	after := before
	if err == nil {
		after = updated
	}
	nis := cmp.Or(after.NIS, before.NIS)
	e := auditComponentUpdate.With(audit.Student(nis, cmp.Or(after.StudentName, before.StudentName, w.studentName(ctx, nis))),
		audit.Item(cmp.Or(after.Name, before.Name)), audit.Component(id), audit.Fields(changedFields(u)), audit.Job(uploadOf(detail)))
	d := strings.TrimSpace(componentChanges(before, u) + " " + detail)
	w.audit(ctx, actor, e, id, d, err)
	if err != nil {
		return billing.Bill{}, err
	}
	w.recordComponents(ctx, "component update", []billing.Bill{updated})
	return updated, nil
}

// CancelComponents cancels unpaid components at the service (all or none; the contract's
// delete, which keeps them as deleted) with the reason the person gave, sent as the
// delete's transfer_ref and kept in the audit entry, and records them as deleted in the
// ledger. A paid component is refused by the service (billing.ErrValidation): payment
// history is kept.
func (w *Writer) CancelComponents(ctx context.Context, actor auth.Actor, ids []string, reason, detail string) ([]billing.Bill, error) {
	held := make([]billing.Bill, 0, len(ids))
	for _, id := range ids {
		if b := w.heldComponent(ctx, id); b.ComponentID != "" {
			held = append(held, b)
		}
	}
	deleted, err := w.Client.DeleteComponents(ctx, billing.ComponentDeletion{ComponentIDs: ids, TransferRef: reason, UpdatedBy: actor.Username})
	known := held
	if err == nil && len(deleted) > 0 {
		known = deleted
	}
	var nis []string
	var names []string
	seen := map[string]bool{}
	var total int64
	for _, b := range known {
		total += b.Amount
		if !seen[b.NIS] {
			seen[b.NIS] = true
			nis, names = append(nis, b.NIS), append(names, b.StudentName)
		}
	}
	if len(nis) == 1 && names[0] == "" {
		names[0] = w.studentName(ctx, nis[0])
	}
	item := ""
	if len(known) == 1 {
		item = known[0].Name
	}
	e := auditComponentsCancel.With(audit.Students(nis, names), audit.Count(len(ids)), audit.Total(total), audit.Reason(reason),
		audit.Item(item), audit.Job(uploadOf(detail)))
	d := strings.TrimSpace(fmt.Sprintf("%d components (%s), Rp %d, reason %q %s", len(ids), strings.Join(ids, ","), total, reason, detail))
	w.audit(ctx, actor, e, nisList(nis), d, err)
	if err != nil {
		return nil, err
	}
	if len(deleted) > 0 {
		w.recordComponents(ctx, "components cancel", deleted)
	} else if w.Ledger != nil {
		_, rerr := w.Ledger.MarkDeleted(context.WithoutCancel(ctx), ids)
		w.record("components cancel", rerr)
	}
	return deleted, nil
}

// RefreshComponent reads component id at the service as it is now and records it in the
// ledger: what a refused change is about when the ledger has not heard yet (paid at a
// bank, cancelled elsewhere). It writes nothing at the service.
func (w *Writer) RefreshComponent(ctx context.Context, id string) (billing.Bill, error) {
	b, err := w.Client.GetComponent(ctx, id)
	if err != nil {
		return billing.Bill{}, err
	}
	w.recordComponents(ctx, "component read back", []billing.Bill{b})
	return b, nil
}

// heldComponent is the ledger's record of id (zero when there is no ledger or it does not
// hold it): what a correction changes, for the audit log's old values.
func (w *Writer) heldComponent(ctx context.Context, id string) billing.Bill {
	if w.Ledger == nil {
		return billing.Bill{}
	}
	b, err := w.Ledger.Component(ctx, id)
	if err != nil {
		return billing.Bill{}
	}
	return b
}

// changedFields names the fields u sets, in the contract's words.
func changedFields(u billing.ComponentUpdate) []string {
	var f []string
	for _, c := range []struct {
		name string
		set  bool
	}{{"name", u.Name != nil}, {"account_code", u.AccountCode != nil}, {"amount", u.Amount != nil},
		{"penalty_amount", u.Penalty != nil}, {"due_date", u.Due != nil}, {"expiry_date", u.Expiry != nil},
		{"active_date", u.Active != nil}, {"notes", u.Notes != nil}} {
		if c.set {
			f = append(f, c.name)
		}
	}
	return f
}

// componentChanges is u as "field old → new" pairs against before (what the ledger held).
func componentChanges(before billing.Bill, u billing.ComponentUpdate) string {
	day := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.Format("2006-01-02")
	}
	var parts []string
	add := func(field, old, new string) { parts = append(parts, field+" "+old+" → "+new) }
	if u.Name != nil {
		add("name", strconv.Quote(before.Name), strconv.Quote(*u.Name))
	}
	if u.AccountCode != nil {
		add("account_code", before.AccountCode, *u.AccountCode)
	}
	if u.Amount != nil {
		add("amount", strconv.FormatInt(before.Amount, 10), strconv.FormatInt(*u.Amount, 10))
	}
	if u.Penalty != nil {
		add("penalty_amount", strconv.FormatInt(before.Penalty, 10), strconv.FormatInt(*u.Penalty, 10))
	}
	if u.Due != nil {
		add("due_date", day(before.Due), day(*u.Due))
	}
	if u.Expiry != nil {
		add("expiry_date", day(before.Expiry), day(*u.Expiry))
	}
	if u.Active != nil {
		add("active_date", day(before.Active), day(*u.Active))
	}
	if u.Notes != nil {
		add("notes", strconv.Quote(before.Notes), strconv.Quote(*u.Notes))
	}
	return strings.Join(parts, "; ")
}
