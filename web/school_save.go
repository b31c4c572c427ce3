package web

import (
	"errors"
	"io"
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/school"
	"github.com/sekolah/portal/views/pages"
)

// saveSchoolSettings stores the profile and, when a file was chosen, the logo: both or
// neither. A mistake shows the form again with everything typed and each message beside
// its field.
func (h *Handler) saveSchoolSettings(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	f := pages.SchoolSettingsForm{
		Name: r.PostFormValue("name"), Address: r.PostFormValue("address"), NPSN: r.PostFormValue("npsn"),
		Phone: r.PostFormValue("phone"), ReceiptFooter: r.PostFormValue("receipt_footer"),
		ReceiptPattern: r.PostFormValue("receipt_pattern"), LetterNote: r.PostFormValue("letter_note"),
		City: r.PostFormValue("city"), BursarName: r.PostFormValue("bursar_name"), BursarNIP: r.PostFormValue("bursar_nip"),
		PrincipalName: r.PostFormValue("principal_name"), PrincipalNIP: r.PostFormValue("principal_nip"),
		LetterPattern: r.PostFormValue("letter_pattern"),
	}
	logo, err := readLogo(r)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	_, err = h.school.Update(ctx, h.actor(r), school.Input{
		Name: f.Name, Address: f.Address, NPSN: f.NPSN, Phone: f.Phone, ReceiptFooter: f.ReceiptFooter,
		ReceiptPattern: f.ReceiptPattern, LetterNote: f.LetterNote, City: f.City, BursarName: f.BursarName, BursarNIP: f.BursarNIP,
		PrincipalName: f.PrincipalName, PrincipalNIP: f.PrincipalNIP, LetterPattern: f.LetterPattern,
	}, logo)
	if err == nil {
		h.addFlash(w, r, "success", i18n.T(ctx, "school.saved"))
		h.redirect(w, r, "/settings/school")
		return
	}
	ps, ok := problem.As(err)
	if !ok {
		h.serverError(w, r, err)
		return
	}
	prof, perr := h.school.Profile(ctx)
	if perr != nil {
		h.serverError(w, r, perr)
		return
	}
	v := pages.SchoolSettingsView{Form: f, Errors: problemMessages(ctx, ps), LogoKept: logo != nil && !ps.Has(school.FieldLogo)}
	h.renderSchoolSettings(w, r, http.StatusUnprocessableEntity, v, prof.LogoVersion)
}

// readLogo reads the chosen logo file, at most one byte past the limit (enough to say it
// is too large); nil when no file was chosen.
func readLogo(r *http.Request) (*school.LogoFile, error) {
	file, hdr, err := r.FormFile("logo")
	switch {
	case errors.Is(err, http.ErrMissingFile), errors.Is(err, http.ErrNotMultipart):
		return nil, nil
	case err != nil:
		return nil, err
	}
	defer file.Close()
	if hdr.Filename == "" && hdr.Size == 0 {
		return nil, nil // the empty part a browser sends when no file was chosen
	}
	data, err := io.ReadAll(io.LimitReader(file, school.MaxLogoBytes+1))
	if err != nil {
		return nil, err
	}
	return &school.LogoFile{Name: hdr.Filename, Data: data}, nil
}
