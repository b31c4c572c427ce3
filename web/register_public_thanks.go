package web

import (
	"errors"
	"net/http"

	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/views/pages"
)

// publicRegistrationThanks confirms this browser's submission: its reference, the fees
// the form showed and what happens next. It shows only what the parent typed and saw,
// never what the service or the staff made of it, so it reads the same for every number.
func (h *Handler) publicRegistrationThanks(w http.ResponseWriter, r *http.Request) {
	id, _ := h.session(r).Values[keyRegistered].(string)
	if id == "" {
		h.redirect(w, r, "/register")
		return
	}
	sc, err := h.publicSchool(r)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	v := pages.PublicThanksView{School: sc}
	if id != trappedRobot {
		a, err := h.registration.Application(r.Context(), id)
		switch {
		case err == nil:
			v = pages.PublicThanksView{School: sc, Known: true, Reference: a.Reference, NIS: a.Applicant.NIS, StudentName: a.Applicant.Name,
				Phone: a.Applicant.Phone, Lines: registeredLines(a.Components), Total: a.Total}
		case !errors.Is(err, registration.ErrApplicationGone):
			h.serverError(w, r, err)
			return
		}
	}
	h.render(w, r, http.StatusOK, pages.PublicThanks(v))
}
