package web

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/views/pages"
)

const (
	// keyRegistered is the session's note of this browser's last public registration: its
	// bill id, or trappedRobot after a filled honeypot.
	keyRegistered = "registered"
	trappedRobot  = "-"
)

// publicForm loads what the public form needs: its settings and today's figures. ok is
// false when it answered already: 404 while the form is off or its template gone, the
// error page on a failure. A review with Problems (the template's days do not fit today)
// is returned with ok true; the page says the form cannot be used.
func (h *Handler) publicForm(w http.ResponseWriter, r *http.Request) (registration.Public, registration.Review, bool, bool) {
	svc := h.registration
	p, err := svc.PublicSettings(r.Context())
	if err != nil {
		h.serverError(w, r, err)
		return p, registration.Review{}, false, false
	}
	if !p.Enabled || p.TemplateID == "" {
		h.notFound(w, r)
		return p, registration.Review{}, false, false
	}
	rev, err := svc.Review(r.Context(), p.TemplateID)
	_, unusable := problem.As(err)
	switch {
	case errors.Is(err, registration.ErrTemplateGone):
		h.notFound(w, r)
		return p, rev, false, false
	case err != nil && !unusable:
		h.serverError(w, r, err)
		return p, rev, false, false
	}
	return p, rev, unusable, true
}

// publicView is the form's page: the school it is from, the template's fees as they
// stand today (optional ones with a tick box, none ticked) and an empty form.
func (h *Handler) publicView(r *http.Request, rev registration.Review, unusable bool) (pages.PublicRegisterView, error) {
	sc, err := h.publicSchool(r)
	if err != nil {
		return pages.PublicRegisterView{}, err
	}
	v := pages.PublicRegisterView{School: sc, TemplateName: rev.Template.Name, Day: rev.Day,
		Total:       registration.Total(registration.Select(rev.Items, func(string) bool { return false })),
		Unavailable: unusable, Errors: map[string]string{}}
	for _, it := range rev.Items {
		c := it.Component
		v.Lines = append(v.Lines, pages.PublicLine{LineID: it.LineID, Optional: it.Optional, RegisteredLine: pages.RegisteredLine{
			Name: c.Name, AccountCode: c.AccountCode, Description: c.Description,
			Amount: c.Amount, Penalty: c.Penalty, Due: c.Due, Expiry: c.Expiry}})
		v.HasOptional = v.HasOptional || it.Optional
	}
	return v, nil
}

// publicSchool is who the public pages are from: the school profile's name, and its logo
// when it has one (served by /register/logo, the address of this version cached).
func (h *Handler) publicSchool(r *http.Request) (pages.PublicSchool, error) {
	p, err := h.school.Profile(r.Context())
	if err != nil {
		return pages.PublicSchool{}, err
	}
	sc := pages.PublicSchool{Name: p.Name}
	if p.LogoVersion != "" {
		sc.LogoURL = "/register/logo?v=" + url.QueryEscape(p.LogoVersion)
	}
	return sc, nil
}

// showPublicLogo is the school's logo for the public form, while the form is on.
func (h *Handler) showPublicLogo(w http.ResponseWriter, r *http.Request) {
	p, err := h.registration.PublicSettings(r.Context())
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	if !p.Enabled || p.TemplateID == "" {
		h.notFound(w, r)
		return
	}
	h.showSchoolLogo(w, r)
}
