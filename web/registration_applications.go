package web

import (
	"net/http"
	"net/url"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/views/pages"
)

// listApplications shows the public form's applications: those waiting for staff, each
// with approve and reject, and the latest decided.
func (h *Handler) listApplications(w http.ResponseWriter, r *http.Request) {
	h.renderApplications(w, r, http.StatusOK, pages.ApplicationsView{})
}

// renderApplications reads the list into v (which may carry an alert or a rejection
// form shown again) and renders it.
func (h *Handler) renderApplications(w http.ResponseWriter, r *http.Request, status int, v pages.ApplicationsView) {
	list, err := h.registration.ListApplications(r.Context())
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	v.Held = list.Held
	for _, a := range list.Waiting {
		v.Waiting = append(v.Waiting, applicationRow(a))
	}
	for _, a := range list.Recent {
		v.Recent = append(v.Recent, applicationRow(a))
	}
	if can(r.Context(), auth.ManageSettings) {
		v.SettingsURL = "/settings/registration"
	}
	h.render(w, r, status, pages.Applications(v))
}

func applicationRow(a registration.PublicApplication) pages.ApplicationRow {
	row := pages.ApplicationRow{
		ID: a.ID, Reference: a.Reference, NIS: a.Applicant.NIS, Name: a.Applicant.Name, Class: a.Applicant.Description,
		ContactName: a.Applicant.ContactName, Phone: a.Applicant.Phone, Email: a.Applicant.Email, TemplateName: a.TemplateName,
		Total: a.Total, Submitted: a.CreatedAt, State: "applications.state." + string(a.State),
		Decidable: a.State == registration.StatePending, Reason: a.Reason,
	}
	if a.Hold != "" {
		row.Hold = "applications.hold." + string(a.Hold)
	}
	if a.State == registration.StateRegistered || a.State == registration.StateRejected {
		if !a.Auto {
			row.DecidedBy, row.DecidedAt = a.DecidedBy, a.DecidedAt
		}
	}
	if a.State == registration.StateRegistered && a.BillID != "" {
		row.RegistrationURL = "/registrations/" + url.PathEscape(a.BillID)
	}
	return row
}
