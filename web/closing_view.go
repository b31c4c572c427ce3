package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/closing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
	"github.com/sekolah/portal/views/viewctx"
)

// closingURL is the closing page of day (today's without it).
func closingURL(day time.Time) string { return withQuery("/closing", "day", dayParam(day)) }

// closingPrintURL is a closing's berita acara.
func closingPrintURL(id string) string { return "/closing/" + id }

// closingReopenURL is where an admin's reopening of a closing posts.
func closingReopenURL(id string) string { return "/closing/" + id + "/reopen" }

// closingDay reads the day a closing page is asked for (?day= or the form's day:
// YYYY-MM-DD, as a date input sends it); none is today. A day not understood, or one
// that has not come yet, is today with a note saying so.
func (h *Handler) closingDay(r *http.Request) (day time.Time, notice string) {
	today := h.closing.Today()
	s := strings.TrimSpace(r.FormValue("day"))
	if s == "" {
		return today, ""
	}
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		if d, err = i18n.ParseDay(s); err != nil {
			return today, i18n.T(r.Context(), "closing.err.bad_day")
		}
	}
	if d.After(today) {
		return today, i18n.T(r.Context(), "closing.err.future")
	}
	return d, ""
}

// closingView reads day's closings into the page, for the signed-in person: their own
// cash to close (when they take counter payments), every cashier's, and the admins'
// reopening. A day that cannot be read says so (500).
func (h *Handler) closingView(ctx context.Context, day time.Time) (pages.ClosingView, int) {
	today := h.closing.Today()
	v := pages.ClosingView{Day: day, DayValue: dayParam(day), Today: day.Equal(today), TodayURL: closingURL(time.Time{}),
		CanClose: can(ctx, auth.WriteBilling)}
	d, err := h.closing.Day(ctx, day)
	if err != nil {
		h.log.Error("closing: read the day", "day", dayParam(day), "err", err)
		v.Error = i18n.T(ctx, "closing.err.unreadable")
		return v, http.StatusInternalServerError
	}
	v.Payments, v.Expected, v.Closed, v.Drawer = d.Payments, d.Expected, d.Closed, len(d.Drawers)
	admin := can(ctx, auth.ManageSettings)
	for _, dr := range d.Drawers {
		v.Rows = append(v.Rows, closingRow(ctx, dr, admin))
	}
	p, _ := viewctx.CurrentPerson(ctx)
	v.Mine = closingRow(ctx, d.Drawer(p.Username), false)
	if v.Mine.Name == "" {
		v.Mine.Name = p.DisplayName
	}
	v.Form = pages.ClosingForm{Payments: v.Mine.Payments, Expected: v.Mine.Expected}
	return v, http.StatusOK
}

// closingRow shapes one cashier's cash of the day; admin offers the reopening of a
// locked closing.
func closingRow(ctx context.Context, d closing.Drawer, admin bool) pages.ClosingRow {
	row := pages.ClosingRow{Cashier: d.Cashier, Name: d.CashierName, Payments: d.Payments, Expected: d.Expected, LateTotal: d.LateTotal}
	for _, r := range d.Receipts {
		row.Receipts = append(row.Receipts, closingReceipt(r))
	}
	for _, r := range d.Late {
		row.Late = append(row.Late, closingReceipt(r))
	}
	if c := d.Closing; c != nil {
		row.Locked, row.SignedAt, row.Counted, row.Difference, row.Reason = true, c.SignedAt, c.Counted, c.Difference(), c.Reason
		row.PrintURL = closingPrintURL(c.ID)
		if admin {
			row.ReopenURL = closingReopenURL(c.ID)
		}
	}
	for _, c := range d.Reopened {
		row.Reopened = append(row.Reopened, pages.ClosingReopened{SignedAt: c.SignedAt, At: c.ReopenedAt, Counted: c.Counted,
			By: c.ReopenedName, Reason: c.ReopenReason, PrintURL: closingPrintURL(c.ID)})
	}
	for _, a := range d.Attempts {
		state := "lost"
		switch {
		case a.Answered:
			state = "answered"
		case a.Waiting:
			state = "sent"
		}
		row.Attempts = append(row.Attempts, pages.ClosingAttempt{At: a.At, Ref: a.Ref, NIS: a.NIS, Name: a.Name, State: state,
			ReceiptURL: paymentReceiptURL(a.NIS, a.Ref)})
	}
	return row
}

func closingReceipt(r closing.Receipt) pages.ClosingReceipt {
	return pages.ClosingReceipt{PaidAt: r.PaidAt, Ref: r.Ref, NIS: r.NIS, Name: r.Name, Class: r.Class, Components: r.Components,
		Amount: r.Amount, ReceiptURL: paymentReceiptURL(r.NIS, r.Ref)}
}

// closingFormOf is the sign-off as posted.
func closingFormOf(r *http.Request, day time.Time) closing.Form {
	payments, _ := strconv.Atoi(r.PostFormValue("payments"))
	expected, _ := strconv.ParseInt(r.PostFormValue("expected"), 10, 64)
	return closing.Form{Day: day, Counted: r.PostFormValue("counted"), Reason: r.PostFormValue("reason"), Payments: payments,
		Expected: expected}
}
