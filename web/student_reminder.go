package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/followups"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/letters"
	"github.com/sekolah/portal/views/pages"
)

// showReminder is the printable arrears reminder letter: the overdue components read
// from the ledger, with days late, late fees, the total and how to pay. Finance staff
// record it as sent from the page (a follow-up by letter, see followUpStudent).
func (h *Handler) showReminder(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	s := studentFrom(r)
	b, err := h.letters.One(ctx, letters.Reminder, s)
	if err != nil {
		h.log.Error("reminder letter from the ledger", "nis", s.NIS, "err", err)
		h.renderError(w, r, http.StatusInternalServerError, i18n.T(ctx, "ledger.unreadable"))
		return
	}
	v := pages.ReminderView{Set: letterSetOf(ctx, b), StudentURL: studentURL(s.NIS)}
	if can(ctx, auth.WriteBilling) {
		v.RecordURL = followUpURL(s.NIS)
	}
	if last, ok, err := h.followups.Last(ctx, s.NIS, followups.Letter); ok {
		v.LastSentAt, v.LastSentBy = last.At, last.ActorName
	} else if err != nil {
		h.log.Warn("last follow-up", "nis", s.NIS, "err", err)
	}
	h.render(w, r, http.StatusOK, pages.Reminder(v))
}
