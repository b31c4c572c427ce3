package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
)

// wizardInput is one post of the registration wizard: the first step's answers (typed, or
// carried in hidden fields), the ticked optional lines and what the person asked for.
type wizardInput struct {
	form        pages.RegistrationForm
	applicant   registration.Applicant
	include     map[string]bool
	fingerprint string
	action      string // next, review, confirm or back
	// shownTotal is the total the review showed when the person confirmed (kept up to
	// date by the page's script as boxes are ticked); 0 when not sent.
	shownTotal int64
}

func readWizard(r *http.Request) wizardInput {
	a := registration.Applicant{
		NIS: r.PostFormValue("nis"), Name: r.PostFormValue("name"), Phone: r.PostFormValue("phone"),
		Email: r.PostFormValue("email"), Description: components.ClassChosen("description", r.PostForm),
	}.Clean()
	in := wizardInput{
		form: pages.RegistrationForm{NIS: a.NIS, Name: a.Name, Phone: a.Phone, Email: a.Email, Description: a.Description,
			TemplateID: r.PostFormValue("template")},
		applicant: a, include: map[string]bool{}, fingerprint: r.PostFormValue("fingerprint"), action: r.PostFormValue("action"),
	}
	for _, id := range r.PostForm["include"] {
		in.include[id] = true
	}
	in.shownTotal, _ = strconv.ParseInt(strings.TrimSpace(r.PostFormValue("shown_total")), 10, 64)
	return in
}

func (h *Handler) showWizard(w http.ResponseWriter, r *http.Request, status int, v pages.RegistrationWizardView) {
	if v.Step == 1 {
		v.CanManageTemplates = can(r.Context(), auth.ManageSettings)
		v.Classes = h.knownClasses(r.Context())
		opts, err := h.templateOptions(r.Context())
		if err != nil {
			h.serverError(w, r, err)
			return
		}
		v.Templates = opts
	}
	h.page(w, r, status, pages.RegistrationWizard(v), pages.RegistrationPanel(v))
}

// reviewStep turns the wizard to its review of rev; include says which optional lines are
// ticked (nil: all of them, as on arriving from the first step).
func reviewStep(v pages.RegistrationWizardView, rev registration.Review, include map[string]bool) pages.RegistrationWizardView {
	v.Step, v.TemplateName, v.Day, v.Fingerprint, v.Lines = 2, rev.Template.Name, rev.Day, rev.Fingerprint, nil
	sel := registration.Select(rev.Items, func(id string) bool { return include == nil || include[id] })
	in := make(map[string]bool, len(sel))
	for _, it := range sel {
		in[it.LineID] = true
	}
	for _, it := range rev.Items {
		c := it.Component
		v.Lines = append(v.Lines, pages.RegistrationLine{LineID: it.LineID, Name: c.Name, AccountCode: c.AccountCode,
			Description: c.Description, Amount: c.Amount, Penalty: c.Penalty, Due: c.Due, Expiry: c.Expiry,
			Optional: it.Optional, Included: in[it.LineID]})
	}
	v.Total = registration.Total(sel)
	return v
}

// submitRegistration moves the wizard on. Every step re-checks what it carries: the
// hidden fields are the person's to change. The amounts are never read from the form; the
// confirm computes them again from the template.
func (h *Handler) submitRegistration(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	svc := h.registration
	in := readWizard(r)
	v := pages.RegistrationWizardView{Step: 1, Form: in.form, Errors: map[string]string{}}
	if in.action == "back" {
		h.showWizard(w, r, http.StatusOK, v)
		return
	}
	ps := in.applicant.Validate(false)
	if in.form.TemplateID == "" {
		ps = append(ps, problem.New("template", "registration.err.template"))
	}
	if len(ps) > 0 {
		v.Errors = problemMessages(ctx, ps)
		h.showWizard(w, r, http.StatusUnprocessableEntity, v)
		return
	}
	rev, err := svc.Review(ctx, in.form.TemplateID)
	if err != nil {
		h.wizardError(w, r, v, err)
		return
	}
	switch in.action {
	case "review":
		h.showWizard(w, r, http.StatusOK, reviewStep(v, rev, in.include))
	case "confirm":
		h.confirmRegistration(w, r, v, in, rev)
	default: // next
		known, err := svc.NISKnown(ctx, in.applicant.NIS)
		if err != nil {
			// The checkout will refuse an existing NIS anyway; the early check is a courtesy.
			h.log.Warn("registration: NIS check failed", "nis", in.applicant.NIS, "err", err)
		}
		if known {
			v.Errors["nis"] = i18n.T(ctx, "registration.err.nis_taken")
			h.showWizard(w, r, http.StatusUnprocessableEntity, v)
			return
		}
		h.showWizard(w, r, http.StatusOK, reviewStep(v, rev, nil))
	}
}

// wizardError shows a failure to review or register on the step it belongs to.
func (h *Handler) wizardError(w http.ResponseWriter, r *http.Request, v pages.RegistrationWizardView, err error) {
	ctx := r.Context()
	if errors.Is(err, registration.ErrTemplateGone) {
		v.Step, v.Errors = 1, map[string]string{"template": i18n.T(ctx, "registration.err.template")}
		h.showWizard(w, r, http.StatusUnprocessableEntity, v)
		return
	}
	if ps, ok := problem.As(err); ok {
		v.Step, v.Errors = 1, problemMessages(ctx, ps)
		h.showWizard(w, r, http.StatusUnprocessableEntity, v)
		return
	}
	h.serverError(w, r, err)
}

func (h *Handler) confirmRegistration(w http.ResponseWriter, r *http.Request, v pages.RegistrationWizardView, in wizardInput, rev registration.Review) {
	ctx := r.Context()
	rec, err := h.registration.Register(ctx, h.actor(r), registration.Application{
		Applicant: in.applicant, TemplateID: in.form.TemplateID, Fingerprint: in.fingerprint, ShownTotal: in.shownTotal,
		Include: func(id string) bool { return in.include[id] },
	}, students.SourceCheckout)
	if rec.BillID != "" {
		h.registered(w, r, rec, err)
		return
	}
	review := reviewStep(v, rev, in.include)
	var shown *registration.TotalShownError
	switch {
	case errors.As(err, &shown):
		review.Alert, review.AlertKind = i18n.T(ctx, "registration.total_shown", i18n.Rupiah(shown.Shown), i18n.Rupiah(shown.Total)), "warning"
		h.showWizard(w, r, http.StatusConflict, review)
	case errors.Is(err, registration.ErrChanged):
		review.Alert, review.AlertKind = i18n.T(ctx, "registration.changed"), "warning"
		h.showWizard(w, r, http.StatusConflict, review)
	case errors.Is(err, billing.ErrTimeout), errors.Is(err, billing.ErrUnavailable), errors.Is(err, billing.ErrUnauthorized),
		errors.Is(err, billing.ErrNotFound), errors.Is(err, billing.ErrValidation):
		// Nothing is recorded as done; the review stays as it was with a plain message (a
		// timeout says the registration may have gone through and to check first).
		h.log.Warn("registration: checkout failed", "nis", in.applicant.NIS, "err", err)
		review.Alert, review.AlertKind = h.upstreamMessage(ctx, err, true), "error"
		status := http.StatusBadGateway
		if errors.Is(err, billing.ErrTimeout) {
			status = http.StatusGatewayTimeout
		}
		h.showWizard(w, r, status, review)
	default:
		if ps, ok := problem.As(err); ok && ps.Has("lines") {
			review.Errors = problemMessages(ctx, ps)
			h.showWizard(w, r, http.StatusUnprocessableEntity, review)
			return
		}
		h.wizardError(w, r, v, err)
	}
}

// registered answers a registration the billing service made: off to its summary, or, if
// the portal could not keep its record, the summary right here (the bill id must not be
// lost).
func (h *Handler) registered(w http.ResponseWriter, r *http.Request, rec registration.Registration, err error) {
	ctx := r.Context()
	if err != nil {
		h.log.Error("registration: registered at the service, but noting it failed", "nis", rec.NIS, "bill", rec.BillID, "err", err)
		if _, gerr := h.registration.Registration(ctx, rec.BillID); gerr != nil {
			v := summaryView(ctx, rec)
			v.Warning = i18n.T(ctx, "registration.not_recorded")
			h.page(w, r, http.StatusOK, pages.RegistrationSummary(v), pages.RegistrationSummaryPanel(v))
			return
		}
	}
	h.addFlash(w, r, "success", i18n.T(ctx, "registration.done", rec.StudentName, rec.NIS))
	h.redirect(w, r, "/registrations/"+rec.BillID)
}
