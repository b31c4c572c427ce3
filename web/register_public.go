package web

import (
	"errors"
	"net/http"

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

func publicView(rev registration.Review, unusable bool) pages.PublicRegisterView {
	v := pages.PublicRegisterView{TemplateName: rev.Template.Name, Day: rev.Day, Total: registration.Total(rev.Items),
		Unavailable: unusable, Errors: map[string]string{}}
	for _, it := range rev.Items {
		c := it.Component
		v.Lines = append(v.Lines, pages.RegisteredLine{Name: c.Name, AccountCode: c.AccountCode, Description: c.Description,
			Amount: c.Amount, Penalty: c.Penalty, Due: c.Due, Expiry: c.Expiry})
	}
	return v
}
