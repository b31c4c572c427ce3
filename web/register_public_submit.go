package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/views/pages"
)

// submitPublicRegistration registers a student from the public form: the portal makes the
// checkout itself, as "public" from the client's address. A filled honeypot is answered as
// if it worked, without calling the billing service.
func (h *Handler) submitPublicRegistration(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p, rev, unusable, ok := h.publicForm(w, r)
	if !ok {
		return
	}
	v := publicView(rev, unusable)
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
	a := registration.Applicant{
		NIS: r.PostFormValue("nis"), Name: r.PostFormValue("name"), ContactName: r.PostFormValue("contact_name"),
		Phone: r.PostFormValue("phone"), Email: r.PostFormValue("email"),
	}.Clean()
	a.Description = p.Class
	if a.Description == "" {
		a.Description = rev.Template.Name
	}
	v.Form = pages.PublicRegisterForm{NIS: a.NIS, Name: a.Name, ContactName: a.ContactName, Phone: a.Phone, Email: a.Email}
	if ps := a.Validate(true); len(ps) > 0 {
		v.Errors = problemMessages(ctx, ps)
		h.render(w, r, http.StatusUnprocessableEntity, pages.PublicRegister(v))
		return
	}
	svc := h.registration
	var limited *registration.RateLimited
	if err := svc.AllowPublic(ctx, ip); errors.As(err, &limited) {
		h.log.Warn("public registration: rate limited", "ip", ip)
		v.Alert = i18n.T(ctx, "registration.public.err.rate_limited", i18n.From(ctx).DateTime(limited.Until))
		h.render(w, r, http.StatusTooManyRequests, pages.PublicRegister(v))
		return
	} else if err != nil {
		h.serverError(w, r, err)
		return
	}
	if known, err := svc.NISKnown(ctx, a.NIS); err != nil {
		h.log.Warn("public registration: NIS check failed", "err", err)
	} else if known {
		v.Errors["nis"] = i18n.T(ctx, "registration.public.err.nis_taken")
		h.render(w, r, http.StatusUnprocessableEntity, pages.PublicRegister(v))
		return
	}
	rec, err := svc.Register(ctx, registration.PublicActor(ip), registration.Application{Applicant: a, TemplateID: p.TemplateID},
		students.SourceRegistration)
	if rec.BillID != "" {
		if err != nil {
			h.log.Error("public registration: registered at the service, but noting it failed", "nis", rec.NIS, "bill", rec.BillID, "err", err)
		}
		h.notePublicRegistration(w, r, rec.BillID)
		h.redirect(w, r, "/register/thanks")
		return
	}
	ps, isProblems := problem.As(err)
	switch {
	case isProblems && ps.Has("nis"):
		v.Errors["nis"] = i18n.T(ctx, "registration.public.err.nis_taken")
		h.render(w, r, http.StatusUnprocessableEntity, pages.PublicRegister(v))
	case isProblems || errors.Is(err, registration.ErrTemplateGone):
		// The template changed under the form: show it again as it is now.
		h.showPublicRegistration(w, r)
	case errors.Is(err, billing.ErrTimeout):
		h.log.Warn("public registration: checkout timed out", "nis", a.NIS, "err", err)
		v.Alert = i18n.T(ctx, "registration.public.err.uncertain")
		h.render(w, r, http.StatusGatewayTimeout, pages.PublicRegister(v))
	case errors.Is(err, billing.ErrUnavailable), errors.Is(err, billing.ErrUnauthorized), errors.Is(err, billing.ErrValidation),
		errors.Is(err, billing.ErrNotFound):
		h.log.Warn("public registration: checkout failed", "nis", a.NIS, "err", err)
		v.Alert = i18n.T(ctx, "registration.public.err.unavailable")
		h.render(w, r, http.StatusBadGateway, pages.PublicRegister(v))
	default:
		h.serverError(w, r, err)
	}
}

func (h *Handler) notePublicRegistration(w http.ResponseWriter, r *http.Request, billID string) {
	s := h.session(r)
	s.Values[keyRegistered] = billID
	h.saveSession(w, r, s)
}
