package web

import (
	"net/http"

	"github.com/sekolah/portal/views/pages"
)

// showParentReceipt is one payment's receipt as a parent sees it (?ref=, the payment's
// reference): only a payment of the link's own student.
func (h *Handler) showParentReceipt(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	token := parentToken(r)
	p, pay, err := h.parents.Receipt(ctx, token, r.URL.Query().Get("ref"))
	if err != nil {
		h.parentFailed(w, r, err)
		return
	}
	hd := pages.SchoolHeader{Name: p.School.Name, Address: p.School.Address, NPSN: p.School.NPSN, Phone: p.School.Phone}
	if p.School.LogoVersion != "" {
		hd.LogoURL = parentPath(token, "/logo?v="+p.School.LogoVersion)
	}
	v := pages.ParentReceiptView{School: hd, Student: p.Student.Name, NIS: p.Student.NIS, Class: p.Student.Description, Ref: pay.Ref,
		PaidAt: pay.PaidAt, Total: pay.Total, Footer: p.School.ReceiptFooter, BackURL: parentPath(token, "")}
	for _, it := range pay.Items {
		v.Items = append(v.Items, pages.ParentReceiptItem{Name: it.Name, Amount: it.Amount, Penalty: it.Penalty})
	}
	h.render(w, r, http.StatusOK, pages.ParentReceipt(v))
}

// showParentLogo is the school's logo for the parent's receipt and letter.
func (h *Handler) showParentLogo(w http.ResponseWriter, r *http.Request) {
	if _, err := h.parents.Resolve(r.Context(), parentToken(r)); err != nil {
		h.parentFailed(w, r, err)
		return
	}
	h.showSchoolLogo(w, r)
}
