package web

import (
	"context"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/views/pages"
)

// flaggedShown is how many of the callbacks that disagreed (or came again with another
// body) the data page shows, the latest first.
const flaggedShown = 20

// callbackTrust adds to the data page what the admins must know of the payment callbacks
// as notices: how many wait for the service's confirmation and why, and the callbacks
// that disagreed with the service or came again with another body, each with its figures
// beside the service's and what differed, in words.
func (h *Handler) callbackTrust(ctx context.Context, v *pages.DataSettingsView, cs ledger.CallbackStats) error {
	p := i18n.From(ctx)
	if cs.Waiting > 0 {
		v.CallbacksWaiting = p.T("settings.data.callbacks_waiting", cs.Waiting, p.DateTime(cs.WaitingSince))
		if cs.LastProblem != "" && !cs.LastAttempt.IsZero() {
			v.CallbacksWaitingProblem = p.T("settings.data.callbacks_waiting_problem", p.DateTime(cs.LastAttempt), p.T("ledger.problem."+cs.LastProblem))
		}
	}
	if cs.Disputed > 0 {
		v.CallbacksFlagged = p.T("settings.data.callbacks_flagged_count", cs.Disputed)
	}
	flagged, err := h.ledger.FlaggedCallbacks(ctx, flaggedShown)
	if err != nil {
		return err
	}
	for _, c := range flagged {
		v.Flagged = append(v.Flagged, flaggedCallback(ctx, c))
	}
	return nil
}

// flaggedCallback words one stored callback for the data page.
func flaggedCallback(ctx context.Context, c ledger.StoredCallback) pages.FlaggedCallback {
	p := i18n.From(ctx)
	f := pages.FlaggedCallback{Ref: c.RefNumber, Disputed: c.Status == ledger.CallbackDisputed,
		Status: p.T("callbacks.status." + string(c.Status)), Callback: paymentSide(ctx, c.Callback)}
	if !f.Disputed && c.OtherBodies > 0 {
		f.Status = p.T("callbacks.status.resent")
	}
	if c.Merchant != "" {
		f.Received = p.T("callbacks.received_at", p.DateTime(c.ReceivedAt), c.Merchant)
	} else {
		f.Received = p.T("callbacks.received", p.DateTime(c.ReceivedAt))
	}
	switch {
	case c.Status == ledger.CallbackUnconfirmed || c.Status == ledger.CallbackLegacy:
		none := p.T("callbacks.not_asked")
		f.Service = pages.PaymentSide{Student: none, Total: "—", PaidAt: "—", Items: "—"}
	case c.Service.Components == 0:
		none := p.T("callbacks.no_payment")
		f.Service = pages.PaymentSide{Student: none, Total: "—", PaidAt: "—", Items: "—"}
		f.Recorded = p.T("callbacks.recorded_none")
	default:
		f.Service = paymentSide(ctx, c.Service)
		f.Recorded = p.T("callbacks.recorded")
	}
	if c.OtherBody != nil {
		side := paymentSide(ctx, *c.OtherBody)
		f.Resent = &side
	}
	if c.OtherBodies > 0 {
		f.ResentNote = p.T("callbacks.resent", c.OtherBodies, p.DateTime(c.OtherBodyAt))
	}
	for _, d := range c.Disagreements {
		f.Differences = append(f.Differences, disagreementWords(ctx, d))
	}
	return f
}

// paymentSide words what one side says of a payment.
func paymentSide(ctx context.Context, f ledger.PaymentFigures) pages.PaymentSide {
	p := i18n.From(ctx)
	s := pages.PaymentSide{Student: "—", Total: i18n.Rupiah(f.Total), PaidAt: "—", Items: p.T("callbacks.items", f.Components)}
	switch {
	case f.NIS != "" && f.StudentName != "":
		s.Student = p.T("audit.student", f.StudentName, f.NIS)
	case f.NIS != "":
		s.Student = p.T("audit.student_nis", f.NIS)
	}
	if !f.PaidAt.IsZero() {
		s.PaidAt = p.DateTime(f.PaidAt)
	}
	return s
}

// disagreementWords says one thing a callback said that the service does not.
func disagreementWords(ctx context.Context, d ledger.Disagreement) string {
	p := i18n.From(ctx)
	item := p.T("callbacks.component_unknown", d.Component)
	if d.ComponentName != "" {
		item = p.T("callbacks.component", d.ComponentName, d.ComponentNIS)
	}
	switch d.Kind {
	case ledger.DisagreeStudent:
		return p.T("callbacks.diff.student", orDash(d.CallbackText), orDash(d.ServiceText))
	case ledger.DisagreeComponent:
		return p.T("callbacks.diff.component", item, i18n.Rupiah(d.CallbackAmount))
	case ledger.DisagreeOmitted:
		return p.T("callbacks.diff.omitted", item, i18n.Rupiah(d.ServiceAmount))
	case ledger.DisagreeAmount:
		return p.T("callbacks.diff.amount", item, i18n.Rupiah(d.CallbackAmount), i18n.Rupiah(d.ServiceAmount))
	case ledger.DisagreeTotal:
		return p.T("callbacks.diff.total", i18n.Rupiah(d.CallbackAmount), i18n.Rupiah(d.ServiceAmount))
	case ledger.DisagreeDate:
		return p.T("callbacks.diff.date", p.DateTime(d.CallbackTime), p.DateTime(d.ServiceTime))
	case ledger.DisagreeUnknown:
		return p.T("callbacks.diff.unknown")
	default:
		return p.T("callbacks.diff.unverified")
	}
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
