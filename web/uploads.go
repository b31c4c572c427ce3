package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
)

// uploadIssuesPage is how many problems the preview lists per page.
const uploadIssuesPage = 50

// uploadCtx loads the {id} upload once and answers 404 early.
func (h *Handler) uploadCtx(next http.Handler) http.Handler {
	return recordCtx(h, h.uploads.Job, next)
}

func uploadFrom(r *http.Request) uploads.Job { return recordFrom[uploads.Job](r) }

func uploadKindOptions(ctx context.Context) []components.Option {
	var opts []components.Option
	for _, k := range uploads.Kinds() {
		opts = append(opts, components.Option{Value: string(k), Label: i18n.T(ctx, "uploads.kind."+string(k))})
	}
	return opts
}

// uploadDuration is how long a committed job ran (or has been running).
func uploadDuration(ctx context.Context, j uploads.Job, now time.Time) string {
	if j.CommittedAt.IsZero() {
		return ""
	}
	end := j.FinishedAt
	if end.IsZero() {
		end = now
	}
	d := end.Sub(j.CommittedAt).Round(time.Second)
	switch {
	case d < time.Second:
		return i18n.T(ctx, "words.duration.under_second")
	case d < time.Minute:
		return i18n.T(ctx, "uploads.duration.seconds", int(d.Seconds()))
	case d < time.Hour:
		return i18n.T(ctx, "uploads.duration.minutes", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return i18n.T(ctx, "uploads.duration.hours", int(d.Hours()), int(d.Minutes())%60)
	}
}

// uploadListRow is one upload in a list; name says who uploaded it in words.
func (h *Handler) uploadListRow(ctx context.Context, j uploads.Job, name func(string) string) pages.UploadListRow {
	return pages.UploadListRow{
		ID: j.ID, FileName: j.FileName, SHA256: j.FileSHA256, Kind: j.Kind, State: j.State, StateKey: uploads.StateOf(j).Key(),
		UploadedBy: name(j.UploadedBy), CreatedAt: j.CreatedAt, RowsTotal: j.RowsTotal, RowsNew: j.RowsNew,
		RowsAlready: j.RowsAlready, RowsError: j.RowsError, Created: j.Created, Failed: j.Failed,
		Duration: uploadDuration(ctx, j, h.now()), Finished: uploads.StateOf(j).Finished(),
	}
}

// uploadView shapes one upload for its page: the preview with a page of problems starting
// at offset, or the job's progress once committed.
func (h *Handler) uploadView(ctx context.Context, j uploads.Job, offset int) (pages.UploadView, error) {
	p := i18n.From(ctx)
	name := h.staffNames(ctx)
	state := uploads.StateOf(j)
	v := pages.UploadView{
		ID: j.ID, FileName: j.FileName, SHA256: j.FileSHA256, Kind: j.Kind, State: j.State, StateKey: state.Key(),
		Busy: state.Busy(), Committed: state.Committed(), Finished: state.Finished(), CanCommit: state.Committable(),
		SizeKB: i18n.Number((j.FileSize + 1023) / 1024), UploadedBy: name(j.UploadedBy), UploadedAt: j.CreatedAt,
		FileKept: j.FileKept, Rows: j.RowsTotal, New: j.RowsNew, Already: j.RowsAlready, Errors: j.RowsError, IssueCount: j.Issues,
		IssuesKept: j.IssuesKept, CanRetryAnalysis: uploads.CanAnalyseAgain(j),
	}
	if j.Problem != "" {
		v.Problem = uploads.FileMessage(p, j.Problem, j.ProblemArgs)
	}
	if rd, ok := uploads.ReadingOf(j); ok && j.State != uploads.StateInvalid {
		v.Reading = uploadReadingView(ctx, rd)
	}
	uploadAcks(ctx, j, &v)
	if j.State == uploads.StateHeld {
		earlier, err := h.uploads.Earlier(ctx, j)
		if err != nil {
			return v, err
		}
		for _, e := range earlier {
			v.Earlier = append(v.Earlier, pages.UploadEarlier{ID: e.ID, By: name(e.UploadedBy), StateKey: uploads.StateOf(e).Key(), At: e.CreatedAt})
		}
	}
	for _, t := range j.Totals {
		v.Totals = append(v.Totals, pages.UploadTotalRow{Code: t.AccountCode, Rows: t.Rows, Amount: t.Amount})
	}
	if state.Committable() {
		sample, err := h.uploadSample(ctx, j)
		if err != nil {
			return v, err
		}
		v.Sample = sample
	}
	if j.RowsTotal > 0 && j.State != uploads.StateInvalid {
		if err := h.uploadChanges(ctx, j, &v); err != nil {
			return v, err
		}
	}
	// Many problems: how many of each kind, exactly, above the (first) ones listed.
	if j.Issues > uploadIssuesPage || j.IssuesKept < j.Issues {
		for _, k := range j.IssueKinds {
			v.IssueKinds = append(v.IssueKinds, pages.UploadIssueKindRow{Column: uploads.ColumnName(k.Col), Count: k.Count,
				Example: uploads.IssueOf(uploads.StoredIssue{Row: k.Row, Col: k.Col, Code: k.Code, Args: k.Args}).Message(p),
				Warning: uploads.IsWarning(k.Code)})
		}
	}
	if j.IssuesKept > 0 {
		offset = min(max(offset, 0), j.IssuesKept-1)
		list, err := h.uploads.Issues(ctx, j.ID, offset, uploadIssuesPage)
		if err != nil {
			return v, err
		}
		for _, is := range list {
			v.Issues = append(v.Issues, pages.UploadIssueRow{Row: is.Row, Cell: uploads.CellName(is.Col, is.Row),
				Message: uploads.IssueOf(is).Message(p), Warning: uploads.IsWarning(is.Code)})
		}
		v.IssuePager = components.Pager{Offset: offset, Limit: uploadIssuesPage, Shown: len(v.Issues), Total: j.IssuesKept,
			Target: "#upload-issues", URL: func(off int) string {
				return uploadURL(j.ID) + "/issues?offset=" + strconv.Itoa(off)
			}}
	}
	if !j.CommittedAt.IsZero() {
		o, err := h.uploads.Outcome(ctx, j.ID)
		if err != nil {
			return v, err
		}
		pr := o.Progress
		total := j.ToSend
		if state.Preparing() {
			total = j.RowsNew + v.ChangeCount // not cut into chunks yet: the preview's count
		}
		v.Progress = pages.UploadProgressView{
			Total: total, Processed: pr.Done() + pr.FailedRows, Created: pr.Done(), Skipped: j.RowsAlready + j.Skipped,
			Errors: j.RowsError, Failed: pr.FailedRows, Recognised: pr.Recognised, MoreFailures: o.MoreFailures,
			UnsentReason: o.UnsentReason,
		}
		if state.Preparing() {
			v.Progress.Processed = 0
		}
		v.CanRetry = uploads.CanRetry(j, pr)
		if state.Finished() {
			v.Progress.Unsent = pr.Pending
			v.Progress.Duration = uploadDuration(ctx, j, h.now())
		} else {
			v.Progress.Wait = pr.Unknown
			if !j.WaitingSince.IsZero() {
				v.Progress.WaitingSince = sinceLabel(p, j.WaitingSince, h.now())
			}
		}
		switch {
		case v.Progress.Total > 0:
			v.Progress.Percent = v.Progress.Processed * 100 / v.Progress.Total
		case state.Finished():
			v.Progress.Percent = 100
		}
		for _, f := range o.Failures {
			v.Progress.Failures = append(v.Progress.Failures, uploads.FailureMessage(p, f))
		}
	}
	v.Undo = h.uploadUndoView(ctx, j) // the undo of a finished upload (correction_undo.go)
	return v, nil
}

// uploadReadingView says how the file was read: its format, the sheet (and why another
// than the active one), the hidden sheets left unread, the heading rows, the columns not
// read.
func uploadReadingView(ctx context.Context, rd uploads.Reading) *pages.UploadReadingView {
	v := &pages.UploadReadingView{Format: i18n.T(ctx, "uploads.reading.format."+rd.Format), Sheet: rd.Sheet}
	if rd.Format == "csv" && rd.Encoding != "" {
		sep := rd.Delimiter
		if sep == "\t" {
			sep = "Tab"
		}
		v.Format = i18n.T(ctx, "uploads.reading.csv", rd.Encoding, sep)
	}
	if rd.Active != "" {
		v.OtherSheet = i18n.T(ctx, "uploads.reading.other_sheet", rd.Active, rd.Sheet)
	}
	if len(rd.Hidden) > 0 {
		v.Hidden = i18n.T(ctx, "uploads.reading.hidden", strings.Join(rd.Hidden, ", "))
	}
	switch {
	case rd.SubHeaderRow > 0:
		v.HeaderRows = i18n.T(ctx, "uploads.reading.header_rows", strconv.Itoa(rd.HeaderRow), strconv.Itoa(rd.SubHeaderRow))
	case rd.HeaderRow > 0:
		v.HeaderRows = i18n.T(ctx, "uploads.reading.header_row", strconv.Itoa(rd.HeaderRow))
	}
	for _, c := range rd.Ignored {
		v.Ignored = append(v.Ignored, pages.UploadIgnoredColumn{Col: c.Col, Header: c.Header})
	}
	return v
}

// uploadAcks adds the kinds of warning to acknowledge before the commit (each with how many
// cells and the first one's message), and after it the kinds that were.
func uploadAcks(ctx context.Context, j uploads.Job, v *pages.UploadView) {
	p := i18n.From(ctx)
	for _, k := range j.IssueKinds {
		if uploads.IsWarning(k.Code) {
			v.Warnings += k.Count
		}
	}
	for _, code := range uploads.AckCodes(j) {
		row := pages.UploadAckRow{Code: code, Label: i18n.T(ctx, "uploads.ack."+code)}
		for _, k := range j.IssueKinds {
			if strings.HasSuffix(k.Code, "."+code) {
				row.Count += k.Count
				if row.Example == "" {
					row.Example = uploads.IssueOf(uploads.StoredIssue{Row: k.Row, Col: k.Col, Code: k.Code, Args: k.Args}).Message(p)
				}
			}
		}
		v.Acks = append(v.Acks, row)
	}
	if len(j.Acknowledged) > 0 {
		var words []string
		for _, code := range j.Acknowledged {
			words = append(words, i18n.T(ctx, "uploads.ack_short."+code))
		}
		v.Acknowledged = i18n.T(ctx, "uploads.ack.done", strings.Join(words, ", "))
	}
}

// uploadSample is the preview's first rows as they will be sent, in the reader's formats,
// with each component's student named from the roster.
func (h *Handler) uploadSample(ctx context.Context, j uploads.Job) ([]pages.UploadSampleRow, error) {
	rows, err := uploads.DecodeSample(j.Sample)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	var names map[string]string
	if j.Kind == string(uploads.Components) {
		nis := make([]string, len(rows))
		for i, r := range rows {
			nis[i] = r.NIS
		}
		if names, err = h.uploads.StudentNames(ctx, nis); err != nil {
			return nil, err
		}
	}
	p := i18n.From(ctx)
	out := make([]pages.UploadSampleRow, len(rows))
	for i, r := range rows {
		out[i] = pages.UploadSampleRow{Row: r.Row, NIS: r.NIS, Student: names[r.NIS], Name: r.Name, Account: r.Account,
			Class: r.Class, Phone: r.Phone, Email: r.Email, Due: p.Day(r.Due), Expiry: p.Day(r.Expiry),
			Active: p.Day(r.Active), Notes: r.Notes}
		for _, a := range r.Aid {
			out[i].Aid = append(out[i].Aid, i18n.T(ctx, "uploads.aid."+a))
		}
		if j.Kind == string(uploads.Components) {
			out[i].Amount, out[i].Penalty = i18n.Rupiah(r.Amount), i18n.Rupiah(r.Penalty)
		}
	}
	return out, nil
}

// changeFieldKeys name a corrected field in the preview.
var changeFieldKeys = map[uploads.Field]string{
	uploads.FieldName: "term.component_name", uploads.FieldAccount: "term.account_code", uploads.FieldAmount: "term.amount",
	uploads.FieldPenalty: "term.penalty", uploads.FieldDue: "term.due_date", uploads.FieldExpiry: "term.expiry_date",
	uploads.FieldActive: "term.active_date", uploads.FieldNotes: "term.notes",
	uploads.FieldStudentName: "term.student_name", uploads.FieldClass: "term.class", uploads.FieldPhone: "term.phone",
	uploads.FieldEmail: "term.email",
}

// uploadChanges adds a sheet's changes of what exists (components corrected, students
// updated) to its view: how many, and the first ones cell by cell, old → new, in the
// reader's formats.
func (h *Handler) uploadChanges(ctx context.Context, j uploads.Job, v *pages.UploadView) error {
	ch, err := h.uploads.Changes(ctx, j.ID)
	if err != nil || ch.Count+ch.Unchanged == 0 {
		return err
	}
	p := i18n.From(ctx)
	v.ChangeCount, v.Unchanged = ch.Count, ch.Unchanged
	if !uploads.StateOf(j).Committable() {
		return nil
	}
	nis := make([]string, len(ch.First))
	for i, c := range ch.First {
		nis[i] = c.NIS
	}
	names, err := h.uploads.StudentNames(ctx, nis)
	if err != nil {
		return err
	}
	show := func(f uploads.Field, s string) string {
		if s == "" {
			return i18n.T(ctx, "uploads.changes.empty")
		}
		switch f {
		case uploads.FieldAmount, uploads.FieldPenalty:
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return i18n.Rupiah(n)
			}
		case uploads.FieldDue, uploads.FieldExpiry, uploads.FieldActive:
			if t, err := time.Parse(time.DateOnly, s); err == nil {
				return p.Day(t)
			}
		}
		return s
	}
	for _, c := range ch.First {
		row := pages.UploadChangeRow{Row: c.Row, ID: c.ID, NIS: c.NIS, Student: names[c.NIS], Name: c.Name}
		for _, cell := range c.Cells {
			row.Cells = append(row.Cells, pages.UploadCellChange{Field: i18n.T(ctx, changeFieldKeys[cell.Field]),
				Old: show(cell.Field, cell.Old), New: show(cell.Field, cell.New)})
		}
		v.Changes = append(v.Changes, row)
	}
	return nil
}

// sinceLabel says when something began: the time of day ("10.42", "10:42" in English)
// when it was today in the school's zone, else the day and the time.
func sinceLabel(p i18n.Printer, t, now time.Time) string {
	loc := p.Loc
	if loc == nil {
		loc = time.UTC
	}
	lt, ln := t.In(loc), now.In(loc)
	sep := "."
	if p.Lang == i18n.English {
		sep = ":"
	}
	hm := fmt.Sprintf("%02d%s%02d", lt.Hour(), sep, lt.Minute())
	if y, m, d := lt.Date(); y == ln.Year() && m == ln.Month() && d == ln.Day() {
		return hm
	}
	return p.Date(t) + " " + hm
}

// uploadStep answers a step taken on an upload (the runner audits it): back to its page
// with a message, or with a plain note when the upload has moved on (committed twice,
// discarded meanwhile).
func (h *Handler) uploadStep(w http.ResponseWriter, r *http.Request, okKey string, err error, args ...any) {
	ctx := r.Context()
	j := uploadFrom(r)
	switch {
	case err == nil:
		h.addFlash(w, r, "success", i18n.T(ctx, okKey, args...))
	case errors.Is(err, uploads.ErrState):
		h.addFlash(w, r, "warning", i18n.T(ctx, "uploads.not_possible"))
	case errors.Is(err, uploads.ErrFileGone):
		h.addFlash(w, r, "error", i18n.T(ctx, "uploads.file_gone"))
	default:
		h.serverError(w, r, err)
		return
	}
	h.redirect(w, r, uploadURL(j.ID))
}
