package web

import (
	"context"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
)

// studentOutbox is the student page's block of messages to the parents: the newest
// outbox messages about the student, each where it stands (waiting, sent, delivered,
// read, not sent and why).
func (h *Handler) studentOutbox(ctx context.Context, nis string) pages.StudentOutboxView {
	var v pages.StudentOutboxView
	if can(ctx, auth.ManageSettings) {
		v.SentURL = "/settings/messages/sent"
	}
	ms, err := h.outbox.OfStudent(ctx, nis, 10)
	if err != nil {
		h.log.Error("the outbox of a student", "nis", nis, "err", err)
		return v
	}
	for _, m := range ms {
		row := pages.StudentOutboxRow{Kind: i18n.T(ctx, "messages.kind."+m.Kind), To: m.Recipient, Amount: m.Amount, At: m.CreatedAt, State: m.State}
		row.Channel = "WhatsApp"
		if m.Channel == "email" {
			row.Channel = i18n.T(ctx, "term.email")
		}
		switch m.State {
		case "done":
			row.State = m.Status
			row.Label, row.Why = i18n.T(ctx, "messages.status."+m.Status), m.StatusError
			if !m.StatusAt.IsZero() {
				row.At = m.StatusAt
			}
		case "skipped", "failed":
			row.Label, row.Why = i18n.T(ctx, "outbox.state."+m.State), outboxProblemWords(ctx, m.Problem)
		default:
			row.Label = i18n.T(ctx, "outbox.state."+m.State)
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}
