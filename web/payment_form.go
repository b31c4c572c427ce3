package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/counter"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/views/pages"
)

// readPaymentRequest reads what the counter forms post, as typed, and the total the
// confirmation showed.
func readPaymentRequest(r *http.Request) (counter.Request, string) {
	_ = r.ParseForm()
	f := r.PostForm
	if r.Method == http.MethodGet {
		f = r.URL.Query() // the confirmation, asked for with GET: Back after paying asks nothing
	}
	return counter.Request{
		NIS:      strings.TrimSpace(f.Get("nis")),
		Ref:      f.Get("ref"),
		IDs:      f["component"],
		ReuseRef: f.Get("reuse_ref") == "yes",
	}, strings.TrimSpace(f.Get("total"))
}

func paymentLine(ctx context.Context, l counter.Line, selected bool) pages.PaymentLine {
	b := l.Bill
	pl := pages.PaymentLine{
		ID: b.ComponentID, Name: b.Name, AccountCode: b.AccountCode, Notes: b.Notes, Due: b.Due,
		DaysLate: l.Today.DaysLate, Amount: b.Amount, Penalty: l.Penalty, DueNow: l.Due,
		Late: l.Late, Payable: l.Payable, Selected: selected && l.Payable,
	}
	if l.Reason != "" {
		pl.Reason = i18n.T(ctx, l.Reason)
	}
	return pl
}

// paymentView is the counter form for a student as read from the service, keeping chosen
// those of ids that can still be paid. Without a reference typed yet, the next number of
// the school's receipt pattern is suggested.
func (h *Handler) paymentView(ctx context.Context, st counter.Student, ref string, ids []string) pages.PaymentView {
	v := pages.PaymentView{NIS: st.NIS, Ref: strings.TrimSpace(ref), Today: st.Today, Found: true, Student: st.Name,
		Class: h.studentClass(ctx, st.NIS), PayableTotal: st.PayableTotal, BillsURL: billsOfStudentURL(st.NIS), LetterURL: letterURL(st.NIS)}
	if s, err := h.students.InRoster(ctx, st.NIS); err == nil {
		v.Standing = standingInfo(s) // a former student pays their arrears like anyone
	}
	if v.Ref == "" {
		if next := h.counter.SuggestRef(ctx); next != "" {
			v.Ref, v.RefSuggested = next, true
			if p, err := h.school.Profile(ctx); err == nil {
				v.RefPattern = p.ReceiptPattern
			}
		}
	}
	chosen := map[string]bool{}
	for _, id := range ids {
		chosen[strings.TrimSpace(id)] = true
	}
	for _, l := range st.Lines {
		pl := paymentLine(ctx, l, chosen[l.Bill.ComponentID])
		if l.Reason == counter.ReasonExpired && l.Bill.State != billing.StateDeleted {
			pl.Reason = i18n.T(ctx, "payments.reason.expired_extend")
			pl.ExtendURL = paymentExtendURL(st.NIS, l.Bill.ComponentID, v.Ref)
		}
		if pl.Selected {
			v.Selected++
			v.SelectedTotal += pl.DueNow
		}
		v.Lines = append(v.Lines, pl)
	}
	return v
}

// studentClass is the roster's class of nis ("" when unknown).
func (h *Handler) studentClass(ctx context.Context, nis string) string {
	if s, err := h.students.InRoster(ctx, nis); err == nil {
		return s.Description
	}
	return ""
}

// paymentStudentFailed says on the form why the student's components could not be read,
// and returns the status to answer with.
func (h *Handler) paymentStudentFailed(ctx context.Context, v *pages.PaymentView, err error) int {
	if v.Query == "" {
		v.Query = v.NIS // kept in the search box, to correct or try again
	}
	if probs, ok := problem.As(err); ok {
		v.NISError = problemMessages(ctx, probs)[counter.FieldNIS]
		return http.StatusUnprocessableEntity
	}
	if errors.Is(err, billing.ErrNotFound) {
		v.NISError = i18n.T(ctx, "payments.student_not_found", v.NIS)
		return http.StatusNotFound
	}
	h.log.Warn("read student components", "nis", v.NIS, "err", err)
	v.General = h.upstreamMessage(ctx, err, false)
	return http.StatusBadGateway
}

// paymentChecksFailed answers a payment that did not pass the counter's checks: the form
// again with the fresh list, the typed reference, and why. A choice the fresh list no
// longer allows is a conflict (the page was out of date); a missing choice or reference
// is only a mistake to fix.
func (h *Handler) paymentChecksFailed(w http.ResponseWriter, r *http.Request, req counter.Request, p counter.Payment, err error) {
	ctx := r.Context()
	v := pages.PaymentView{NIS: req.NIS, Ref: strings.TrimSpace(req.Ref), Today: p.Today}
	probs, isProblems := problem.As(err)
	if p.Found() {
		v = h.paymentView(ctx, p.Student, req.Ref, req.IDs)
	}
	status := http.StatusUnprocessableEntity
	switch {
	case !p.Found():
		status = h.paymentStudentFailed(ctx, &v, err)
	case isProblems:
		v.RefError = problemMessages(ctx, probs)[counter.FieldRef]
		var list []string
		for _, pr := range probs {
			if pr.Field != counter.FieldComponent {
				continue
			}
			if pr.Key != "payments.err.none" {
				status = http.StatusConflict
			}
			list = append(list, problemMessage(ctx, pr))
		}
		if status == http.StatusConflict {
			list = append([]string{i18n.T(ctx, "payments.err.refused")}, list...)
		}
		v.Problems = list
	}
	h.render(w, r, status, pages.PaymentNew(v))
}

func (h *Handler) paymentConfirmView(ctx context.Context, p counter.Payment) pages.PaymentConfirmView {
	v := pages.PaymentConfirmView{
		NIS: p.NIS, Student: p.Name, Class: h.studentClass(ctx, p.NIS), Ref: p.Ref, Amount: p.Chosen.Amount,
		Penalty: p.Chosen.Penalty, Total: p.Chosen.Total, Today: p.Today,
	}
	if u := p.RefTaken; u != nil {
		v.RefTaken = i18n.T(ctx, "payments.ref_taken", p.Ref, u.Name, u.NIS, i18n.From(ctx).DateTime(u.PaidAt), i18n.Rupiah(u.Total))
	}
	change := url.Values{"nis": {p.NIS}, "ref": {p.Ref}}
	for _, l := range p.Chosen.Lines {
		v.Lines = append(v.Lines, paymentLine(ctx, l, true))
		change.Add("component", l.Bill.ComponentID)
	}
	if p.RefTaken != nil {
		change.Del("ref") // back to the form with the next free number suggested
	}
	v.ChangeURL = "/payments/new?" + change.Encode()
	return v
}
