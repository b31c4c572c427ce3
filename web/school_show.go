package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/school"
	"github.com/sekolah/portal/views/pages"
)

// showSchoolSettings is the school profile form.
func (h *Handler) showSchoolSettings(w http.ResponseWriter, r *http.Request) {
	p, err := h.school.Profile(r.Context())
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	v := pages.SchoolSettingsView{Form: pages.SchoolSettingsForm{
		Name: p.Name, Address: p.Address, NPSN: p.NPSN, Phone: p.Phone, ReceiptFooter: p.ReceiptFooter,
		ReceiptPattern: p.ReceiptPattern, LetterNote: p.LetterNote, City: p.City, BursarName: p.BursarName, BursarNIP: p.BursarNIP,
		PrincipalName: p.PrincipalName, PrincipalNIP: p.PrincipalNIP, LetterPattern: p.LetterPattern,
	}}
	h.renderSchoolSettings(w, r, http.StatusOK, v, p.LogoVersion)
}

// renderSchoolSettings fills in what the form shows besides the typed values: the current
// logo, the next receipt number, the logo's limit.
func (h *Handler) renderSchoolSettings(w http.ResponseWriter, r *http.Request, status int, v pages.SchoolSettingsView, logoVersion string) {
	v.LogoURL = schoolLogoURL(logoVersion)
	v.MaxLogoKB = school.MaxLogoBytes >> 10
	if status == http.StatusOK {
		if next, err := h.school.SuggestReceipt(r.Context()); err == nil {
			v.NextReceipt = next
		}
	}
	h.render(w, r, status, pages.SchoolSettings(v))
}
