package web

import (
	"context"
	"errors"
	"net/http"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/followups"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/parents"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/views/pages"
)

// editStudentContacts is the form of the student's parents' contacts.
func (h *Handler) editStudentContacts(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	s := studentFrom(r)
	c, err := h.parents.Contacts(ctx, s.NIS)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	f := pages.StudentContactsForm{Name: c.Name, WhatsApp: c.WhatsApp, Email: c.Email, WhatsAppOptOut: c.WhatsAppOptOut, EmailOptOut: c.EmailOptOut}
	h.render(w, r, http.StatusOK, pages.StudentContacts(contactsView(s, f, nil)))
}

// saveStudentContacts stores the parents' contacts; a mistake shows the form again with
// everything typed (422).
func (h *Handler) saveStudentContacts(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	s := studentFrom(r)
	f := pages.StudentContactsForm{Name: r.PostFormValue("parent_name"), WhatsApp: r.PostFormValue("whatsapp"), Email: r.PostFormValue("email"),
		WhatsAppOptOut: r.PostFormValue("whatsapp_opt_out") != "", EmailOptOut: r.PostFormValue("email_opt_out") != ""}
	_, err := h.parents.SetContacts(ctx, h.actor(r), s.NIS, parents.Input{Name: f.Name, WhatsApp: f.WhatsApp, Email: f.Email,
		WhatsAppOptOut: f.WhatsAppOptOut, EmailOptOut: f.EmailOptOut})
	if ps, ok := problem.As(err); ok {
		h.render(w, r, http.StatusUnprocessableEntity, pages.StudentContacts(contactsView(s, f, problemMessages(ctx, ps))))
		return
	}
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.addFlash(w, r, "success", i18n.T(ctx, "parents.saved", s.Name))
	h.redirect(w, r, studentURL(s.NIS))
}

func contactsView(s students.Student, f pages.StudentContactsForm, errs map[string]string) pages.StudentContactsView {
	return pages.StudentContactsView{NIS: s.NIS, Student: s.Name, Form: f, Errors: errs, StudentPhone: s.Phone, StudentURL: studentURL(s.NIS)}
}

// renewParentLink gives the student's parents a new page link; the old one stops working.
func (h *Handler) renewParentLink(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	s := studentFrom(r)
	if !h.confirmed(w, r, pages.ConfirmStep{
		Title: i18n.T(ctx, "parents.renew"), Question: i18n.T(ctx, "parents.renew_ask"),
		Button: i18n.T(ctx, "parents.renew"), Back: studentURL(s.NIS) + "/contacts",
	}) {
		return
	}
	if _, err := h.parents.RenewLink(ctx, h.actor(r), s.NIS, s.Name); err != nil {
		h.serverError(w, r, err)
		return
	}
	h.addFlash(w, r, "success", i18n.T(ctx, "parents.renewed", s.Name))
	h.redirect(w, r, studentURL(s.NIS))
}

// parentsCard is the student page's card about the parents, and why a WhatsApp
// follow-up cannot reach them ("" : it can).
func (h *Handler) parentsCard(ctx context.Context, s students.Student) (pages.ParentsCardView, string) {
	v := pages.ParentsCardView{NIS: s.NIS}
	if can(ctx, auth.WriteBilling) {
		v.EditURL, v.RenewURL = studentURL(s.NIS)+"/contacts", studentURL(s.NIS)+"/parent-link"
	}
	c, err := h.parents.Contacts(ctx, s.NIS)
	if err != nil {
		h.log.Error("parents' contacts", "nis", s.NIS, "err", err)
		v.Error = i18n.T(ctx, "parents.unreadable")
		return v, ""
	}
	rec := parents.RecipientsOf(s, c)
	v.Name, v.Email, v.WhatsAppOptOut, v.EmailOptOut = c.Name, c.Email, c.WhatsAppOptOut, c.EmailOptOut
	if v.Email == "" && rec.Email.Address != "" {
		v.Email = rec.Email.Address
	}
	v.WhatsApp, v.FromStudent = c.WhatsApp, rec.WhatsApp.FromStudent
	if v.FromStudent {
		v.WhatsApp = s.Phone
	}
	var blocked string
	switch err := rec.WhatsApp.Err; {
	case errors.Is(err, followups.ErrNoPhone):
		v.NoWhatsApp, blocked = i18n.T(ctx, "parents.no_whatsapp"), i18n.T(ctx, "followups.no_phone", s.Name)
	case errors.Is(err, followups.ErrNotMobile):
		v.NoWhatsApp, blocked = i18n.T(ctx, "parents.not_mobile"), i18n.T(ctx, "followups.not_mobile", s.Name, v.WhatsApp)
	case errors.Is(err, parents.ErrOptedOut):
		blocked = i18n.T(ctx, "followups.opted_out", s.Name)
	}
	// The messages to the parents are the student page's own block (studentOutbox).
	link, err := h.parents.Link(ctx, s.NIS)
	if err != nil {
		h.log.Error("parent page link", "nis", s.NIS, "err", err)
		return v, blocked
	}
	v.LinkURL = link.URL
	if v.LinkURL == "" {
		v.LinkURL, v.LinkNote = link.Path, i18n.T(ctx, "parents.link_no_public_url")
	}
	return v, blocked
}
