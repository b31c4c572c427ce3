package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/views/pages"
)

// submitPublicRegistration keeps a submission of the public form as an application and
// thanks the parent; the portal's intake sends it to the service, or holds it for staff,
// afterwards. Every valid submission gets the same answer at once, so the page never
// tells whether a number exists. A filled honeypot is answered the same way, and kept
// nowhere.
func (h *Handler) submitPublicRegistration(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	_, rev, unusable, ok := h.publicForm(w, r)
	if !ok {
		return
	}
	v, err := h.publicView(r, rev, unusable)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	if unusable {
		h.render(w, r, http.StatusServiceUnavailable, pages.PublicRegister(v))
		return
	}
	ip := h.clientIP(r)
	if strings.TrimSpace(r.PostFormValue("website")) != "" {
		h.log.Warn("public registration: honeypot filled, answered as a success", "ip", ip)
		h.notePublicRegistration(w, r, trappedRobot)
		h.redirect(w, r, "/register/thanks")
		return
	}
	in := registration.Applicant{
		Name: r.PostFormValue("name"), ContactName: r.PostFormValue("contact_name"),
		Phone: r.PostFormValue("phone"), Email: r.PostFormValue("email"),
	}
	include := r.PostForm["include"]
	typed := in.Clean()
	v.Form = pages.PublicRegisterForm{Name: typed.Name, ContactName: typed.ContactName, Phone: typed.Phone, Email: typed.Email,
		Include: map[string]bool{}}
	for _, id := range include {
		v.Form.Include[id] = true
	}
	app, err := h.registration.SubmitPublic(ctx, ip, in, include)
	var limited *registration.RateLimited
	ps, isProblems := problem.As(err)
	switch {
	case err == nil:
		h.notePublicRegistration(w, r, app.ID)
		h.redirect(w, r, "/register/thanks")
	case isProblems:
		v.Errors = problemMessages(ctx, ps)
		h.render(w, r, http.StatusUnprocessableEntity, pages.PublicRegister(v))
	case errors.As(err, &limited):
		h.log.Warn("public registration: rate limited", "ip", ip)
		v.Alert = i18n.T(ctx, "registration.public.err.rate_limited", i18n.From(ctx).DateTime(limited.Until))
		h.render(w, r, http.StatusTooManyRequests, pages.PublicRegister(v))
	case errors.Is(err, registration.ErrPublicOff), errors.Is(err, registration.ErrPublicUnusable):
		// Switched off or changed under the form: show it as it is now.
		h.showPublicRegistration(w, r)
	default:
		h.serverError(w, r, err)
	}
}

func (h *Handler) notePublicRegistration(w http.ResponseWriter, r *http.Request, applicationID string) {
	s := h.session(r)
	s.Values[keyRegistered] = applicationID
	h.saveSession(w, r, s)
}
