package web

import (
	"errors"
	"net/http"

	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/views/pages"
)

// publicRegistrationThanks confirms this browser's registration: its number, the amounts
// and due days, and how to pay.
func (h *Handler) publicRegistrationThanks(w http.ResponseWriter, r *http.Request) {
	billID, _ := h.session(r).Values[keyRegistered].(string)
	if billID == "" {
		h.redirect(w, r, "/register")
		return
	}
	v := pages.PublicThanksView{}
	if billID != trappedRobot {
		rec, err := h.registration.Registration(r.Context(), billID)
		switch {
		case err == nil:
			v = pages.PublicThanksView{Known: true, BillID: rec.BillID, NIS: rec.NIS, StudentName: rec.StudentName,
				Lines: registeredLines(rec.Components), Total: rec.Total}
		case !errors.Is(err, registration.ErrNotFound):
			h.serverError(w, r, err)
			return
		}
	}
	h.render(w, r, http.StatusOK, pages.PublicThanks(v))
}
