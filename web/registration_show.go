package web

import (
	"context"
	"errors"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/views/pages"
)

func summaryView(ctx context.Context, rec registration.Registration) pages.RegistrationSummaryView {
	return pages.RegistrationSummaryView{CanRegister: can(ctx, auth.WriteBilling),
		BillID: rec.BillID, NIS: rec.NIS, StudentName: rec.StudentName, ContactName: rec.ContactName, Phone: rec.Phone,
		Email: rec.Email, Description: rec.Description, TemplateName: rec.TemplateName, Actor: rec.Actor, Source: rec.Source,
		CreatedAt: rec.CreatedAt, Lines: registeredLines(rec.Components), Total: rec.Total,
	}
}

// showRegistration shows the record of one registration: the bill and component ids.
func (h *Handler) showRegistration(w http.ResponseWriter, r *http.Request) {
	rec, err := h.registration.Registration(r.Context(), chi.URLParam(r, "billID"))
	if errors.Is(err, registration.ErrNotFound) {
		h.notFound(w, r)
		return
	} else if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, pages.RegistrationSummary(summaryView(r.Context(), rec)))
}
