package web

import (
	"errors"
	"net/http"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/views/pages"
)

// studentView reads the student's components from the ledger and shapes the page;
// status is 200, or 500 with the message on the page when the ledger cannot be read.
func (h *Handler) studentView(r *http.Request) (pages.StudentView, int) {
	ctx := r.Context()
	s := studentFrom(r)
	today := h.today()
	v := pages.StudentView{Student: studentInfo(s), Today: today, CanWrite: can(ctx, auth.WriteBilling), PayURL: paymentNewURL(s.NIS),
		LetterURL: letterURL(s.NIS), ReminderURL: reminderURL(s.NIS), FollowUpURL: followUpURL(s.NIS)}
	v.Student.Aid = studentAid(ctx, s)
	v.Parents, v.NoWhatsApp = h.parentsCard(ctx, s)
	v.Outbox = h.studentOutbox(ctx, s.NIS)
	acc, err := students.LoadAccount(ctx, h.ledger, s.NIS, today)
	if errors.Is(err, billing.ErrNotFound) {
		err = nil // on the roster with no component at all (the ledger knows no bill of theirs)
	}
	if err != nil {
		h.log.Error("student bills from the ledger", "nis", s.NIS, "err", err)
		v.Error = i18n.T(ctx, "ledger.unreadable")
		return v, http.StatusInternalServerError
	}
	if v.CanWrite {
		// Asked where the rule lives, so the page and the delete agree; a failure to ask
		// leaves the button, and the confirmation page asks again.
		hctx, hcancel := h.upstreamCtx(ctx)
		if v.HasPayments, err = h.studentHasPayments(hctx, s.NIS); err != nil {
			h.log.Warn("student payments", "nis", s.NIS, "err", err)
		}
		hcancel()
	}
	sum := acc.Summary
	v.Unpaid = pages.StateSum(sum.Unpaid)
	v.Overdue = pages.StateSum(sum.Overdue)
	v.Paid = pages.StateSum(sum.Paid)
	v.Expired = pages.StateSum(sum.Expired)
	v.Outstanding = sum.Totals.Outstanding
	var running int64
	for _, b := range acc.Bills {
		c := component.On(b, today)
		running += c.Price
		// Past expiry today reads expired before the service marks it so on its next read.
		state := string(c.Status)
		if c.Status == component.StatusOverdue {
			state = string(component.StatusProvisioned) // the page shows lateness beside the state
		}
		v.Bills = append(v.Bills, pages.BillRow{
			ID: b.ComponentID, Name: b.Name, AccountCode: b.AccountCode, State: state,
			Overdue: c.Status == component.StatusOverdue, Amount: b.Amount, Penalty: b.Penalty, DueToday: c.Price, AmountPaid: b.AmountPaid,
			Active: b.Active, Due: b.Due, Expiry: b.Expiry, DaysLate: c.DaysLate,
			ExpiryDays: i18n.DayCount(today, h.clk.Zone(), b.Expiry), PaidAt: b.PaidAt,
			RefNumber: b.RefNumber, Notes: b.Notes, Running: running, NotYetActive: c.NotYetActive,
		})
		if b.RefNumber != "" && !b.PaidAt.IsZero() {
			v.Bills[len(v.Bills)-1].ReceiptURL = paymentReceiptURL(s.NIS, b.RefNumber)
		}
	}
	return v, http.StatusOK
}

// showStudent is one student's page.
func (h *Handler) showStudent(w http.ResponseWriter, r *http.Request) {
	v, status := h.studentView(r)
	if status == http.StatusOK {
		h.studentExtras(r, &v) // student_show_groups.go: status, leavers, instalments
	}
	h.page(w, r, status, pages.StudentShow(v), pages.StudentBody(v))
}
