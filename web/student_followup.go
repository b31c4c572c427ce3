package web

import (
	"errors"
	"net/http"

	"github.com/sekolah/portal/internal/followups"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
	"github.com/sekolah/portal/views/viewctx"
)

// followUpStudent records a follow-up of the student's arrears. WhatsApp answers 303 to
// the wa.me link with the message typed in; a letter goes back to the reminder letter
// with a flash. No usable mobile number, or nothing overdue, is said in words instead,
// with what to do next, and nothing is recorded.
func (h *Handler) followUpStudent(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	s := studentFrom(r)
	ch, ok := followups.ParseChannel(r.PostFormValue("channel"))
	if !ok {
		h.renderError(w, r, http.StatusBadRequest, i18n.T(ctx, "error.400.body"))
		return
	}
	p, _ := viewctx.CurrentPerson(ctx)
	sent, err := h.followups.Send(ctx, h.actor(r), p.DisplayName, s, ch)
	name := s.Name
	if name == "" {
		name = sent.Overdue.Name
	}
	notice := pages.FollowUpNoticeView{StudentURL: studentURL(s.NIS), ReminderURL: reminderURL(s.NIS)}
	switch {
	case errors.Is(err, followups.ErrNoPhone):
		notice.Message, notice.EditURL = i18n.T(ctx, "followups.no_phone", name), studentURL(s.NIS)+"/contacts"
	case errors.Is(err, followups.ErrNotMobile):
		notice.Message, notice.EditURL = i18n.T(ctx, "followups.not_mobile", name, s.Phone), studentURL(s.NIS)+"/contacts"
	case errors.Is(err, followups.ErrOptedOut):
		notice.Message, notice.EditURL = i18n.T(ctx, "followups.opted_out", name), studentURL(s.NIS)+"/contacts"
	case errors.Is(err, followups.ErrNothingOverdue):
		notice.Message, notice.ReminderURL = i18n.T(ctx, "followups.nothing_overdue", name), ""
	case err != nil:
		h.log.Error("record a follow-up", "nis", s.NIS, "channel", ch, "err", err)
		h.renderError(w, r, http.StatusInternalServerError, i18n.T(ctx, "followups.failed"))
		return
	case ch == followups.WhatsApp:
		// Not h.redirect: an HTMX request would follow HX-Redirect inside the portal's tab;
		// the form opens wa.me in a tab of its own.
		http.Redirect(w, r, sent.URL, http.StatusSeeOther)
		return
	default:
		h.addFlash(w, r, "success", i18n.T(ctx, "followups.letter_recorded", name))
		h.redirect(w, r, reminderURL(s.NIS))
		return
	}
	h.render(w, r, http.StatusUnprocessableEntity, pages.FollowUpNotice(notice))
}
