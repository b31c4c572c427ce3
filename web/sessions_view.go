package web

import (
	"context"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
)

// sessionRows shapes sessions for a sessions list: times in the person's zone and
// language, the request's own session marked, and each row's end action from endURL.
func (h *Handler) sessionRows(ctx context.Context, list []auth.Session, endURL func(id string) string) []pages.SessionRow {
	p := i18n.From(ctx)
	current, now := currentSessionID(ctx), h.now()
	rows := make([]pages.SessionRow, 0, len(list))
	for _, s := range list {
		device := s.UserAgent
		if device == "" {
			device = i18n.T(ctx, "sessions.unknown_device")
		}
		rows = append(rows, pages.SessionRow{
			ID: s.ID, Device: device, Addr: s.Addr,
			SignedIn: p.DateTime(s.CreatedAt), LastSeen: p.Ago(now.Sub(s.LastSeenAt)), LastSeenAt: p.DateTime(s.LastSeenAt),
			Current: s.ID == current, EndURL: endURL(s.ID),
		})
	}
	return rows
}
