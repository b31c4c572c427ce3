package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/bills"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/views/pages"
)

// paymentInput is what the counter forms send, as typed.
type paymentInput struct {
	NIS   string
	Ref   string
	IDs   []string
	Total string
}

func readPaymentInput(r *http.Request) paymentInput {
	_ = r.ParseForm()
	return paymentInput{
		NIS:   strings.TrimSpace(r.PostForm.Get("nis")),
		Ref:   r.PostForm.Get("ref"),
		IDs:   r.PostForm["component"],
		Total: strings.TrimSpace(r.PostForm.Get("total")),
	}
}

// paymentComponents reads all of one student's components from the service, fresh.
func (h *Handler) paymentComponents(ctx context.Context, nis string) ([]billing.Bill, error) {
	var out []billing.Bill
	for b, err := range h.billing.AllForStudent(ctx, nis, billing.Query{}) {
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

func paymentLine(ctx context.Context, l bills.Line, today time.Time, selected bool) pages.PaymentLine {
	b := l.Bill
	pl := pages.PaymentLine{
		ID: b.ComponentID, Name: b.Name, AccountCode: b.AccountCode, Notes: b.Notes, Due: b.Due,
		DaysLate: b.DaysLate(today), Amount: b.Amount, Penalty: l.Penalty, DueNow: l.Due,
		Late: l.Late, Payable: l.Payable, Selected: selected && l.Payable,
	}
	if l.Reason != "" {
		pl.Reason = i18n.T(ctx, l.Reason)
	}
	return pl
}

// loadPaymentLines reads the student's components into the counter form, keeping chosen
// those of ids that can still be paid. It returns the fresh components and the status the
// page answers with; on a failure v says why and v.Found is false.
func (h *Handler) loadPaymentLines(ctx context.Context, v *pages.PaymentView, ids []string) ([]billing.Bill, int) {
	fresh, err := h.paymentComponents(ctx, v.NIS)
	switch {
	case errors.Is(err, billing.ErrNotFound):
		v.NISError = i18n.T(ctx, "payments.student_not_found", v.NIS)
		return nil, http.StatusNotFound
	case err != nil:
		h.log.Warn("read student components", "nis", v.NIS, "err", err)
		v.General = h.upstreamMessage(ctx, err, false)
		return nil, http.StatusBadGateway
	}
	chosen := map[string]bool{}
	for _, id := range ids {
		chosen[strings.TrimSpace(id)] = true
	}
	v.Found, v.Lines = true, nil
	for _, b := range fresh {
		if v.Student == "" {
			v.Student = b.StudentName
		}
	}
	lines := bills.Outstanding(fresh, v.Today)
	for _, l := range lines {
		v.Lines = append(v.Lines, paymentLine(ctx, l, v.Today, chosen[l.Bill.ComponentID]))
	}
	v.PayableTotal = bills.PayableTotal(lines)
	return fresh, http.StatusOK
}

// checkedPayment is a counter payment that passed every check against fresh data.
type checkedPayment struct {
	in    paymentInput
	ref   string
	fresh []billing.Bill
	sel   bills.Selection
	today time.Time
}

// checkPayment validates a posted payment against the student's components read just now.
// When it fails it has answered already (the form again, with the fresh list and why).
func (h *Handler) checkPayment(w http.ResponseWriter, r *http.Request) (checkedPayment, bool) {
	ctx := r.Context()
	in := readPaymentInput(r)
	today := h.billsToday()
	v := pages.PaymentView{NIS: in.NIS, Ref: strings.TrimSpace(in.Ref), Today: today}
	var nisProbs problem.List
	if !students.CheckNIS(&nisProbs, "nis", in.NIS) {
		v.NISError = problemMessages(ctx, nisProbs)["nis"]
		h.render(w, r, http.StatusUnprocessableEntity, pages.PaymentNew(v))
		return checkedPayment{}, false
	}
	var refProbs problem.List
	ref := bills.ParseRef(&refProbs, in.Ref)
	v.Ref = ref
	fresh, status := h.loadPaymentLines(ctx, &v, in.IDs)
	if !v.Found {
		h.render(w, r, status, pages.PaymentNew(v))
		return checkedPayment{}, false
	}
	sel, probs := bills.Select(fresh, in.IDs, today)
	switch {
	case len(refProbs) > 0:
		v.RefError = problemMessage(ctx, refProbs[0])
	case bills.RefUsed(fresh, ref):
		v.RefError = i18n.T(ctx, "payments.err.ref_used")
	}
	if len(probs) == 0 && v.RefError == "" {
		return checkedPayment{in: in, ref: ref, fresh: fresh, sel: sel, today: today}, true
	}
	status = http.StatusUnprocessableEntity
	for _, p := range probs {
		if p.Key != "payments.err.none" {
			// The page the person chose from is out of date: say so before the details.
			status = http.StatusConflict
		}
	}
	if status == http.StatusConflict {
		v.Problems = append(v.Problems, i18n.T(ctx, "payments.err.refused"))
	}
	for _, p := range probs {
		v.Problems = append(v.Problems, problemMessage(ctx, p))
	}
	h.render(w, r, status, pages.PaymentNew(v))
	return checkedPayment{}, false
}

func paymentConfirmView(ctx context.Context, c checkedPayment) pages.PaymentConfirmView {
	v := pages.PaymentConfirmView{
		NIS: c.in.NIS, Ref: c.ref, Amount: c.sel.Amount, Penalty: c.sel.Penalty, Total: c.sel.Total, Today: c.today,
	}
	change := url.Values{"nis": {c.in.NIS}, "ref": {c.ref}}
	for _, l := range c.sel.Lines {
		if v.Student == "" {
			v.Student = l.Bill.StudentName
		}
		v.Lines = append(v.Lines, paymentLine(ctx, l, c.today, true))
		change.Add("component", l.Bill.ComponentID)
	}
	v.ChangeURL = "/payments/new?" + change.Encode()
	return v
}
