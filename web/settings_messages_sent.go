package web

import (
	"context"
	"net/http"
	"strconv"

	"github.com/sekolah/portal/internal/messaging"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
)

const sentPageSize = 50

// listSentMessages is the page of what the portal sent parents, newest first: to whom,
// how, what it said, and how it went (with the embedded sandbox: what it would have sent).
func (h *Handler) listSentMessages(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	offset := offsetParam(r, sentPageSize)
	ms, total, err := h.messaging.Recent(ctx, messaging.Filter{Limit: sentPageSize, Offset: offset})
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	v := pages.SentMessagesView{Messages: sentMessages(ctx, ms), Total: total, Sandboxed: len(h.messaging.Sandboxed) > 0}
	v.Pager = components.Pager{Offset: offset, Limit: sentPageSize, Shown: len(ms), Total: total,
		URL: func(off int) string { return withQuery("/settings/messages/sent", "offset", strconv.Itoa(off)) }}
	h.render(w, r, http.StatusOK, pages.SentMessages(v))
}

func sentMessages(_ context.Context, ms []messaging.Record) []pages.SentMessage {
	out := make([]pages.SentMessage, 0, len(ms))
	for _, m := range ms {
		s := pages.SentMessage{At: m.CreatedAt, Channel: m.Channel, Kind: m.Kind, Recipient: m.Recipient, RecipientName: m.RecipientName,
			NIS: m.NIS, Subject: m.Subject, Text: m.Body, Status: m.Status, StatusAt: m.StatusAt}
		if m.NIS != "" {
			s.StudentURL = studentURL(m.NIS)
		}
		if m.Status == "failed" {
			s.Error = m.Error
			if m.ErrorCode != "" {
				s.Error = m.ErrorCode + ": " + m.Error
			}
		}
		out = append(out, s)
	}
	return out
}
