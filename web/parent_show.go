package web

import (
	"net/http"
	"net/url"

	"github.com/sekolah/portal/internal/letters"
	"github.com/sekolah/portal/views/pages"
)

// showParentPage is the page a parent opens from a message or a letter: what is unpaid
// and what it costs today, how to pay, the payments made with their receipts.
func (h *Handler) showParentPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	token := parentToken(r)
	p, err := h.parents.Page(ctx, token)
	if err != nil {
		h.parentFailed(w, r, err)
		return
	}
	v := pages.ParentPageView{SchoolName: p.School.Name, SchoolPhone: p.School.Phone, Student: p.Student.Name, NIS: p.Student.NIS,
		Class: p.Student.Description, Today: p.Today, Total: p.Bill.Total, Expired: p.Bill.Expired, HowToPay: p.School.LetterNote,
		LetterURL: parentPath(token, "/letter")}
	for _, l := range p.Bill.Lines {
		v.Lines = append(v.Lines, parentLine(l))
	}
	for _, l := range p.Bill.Later {
		v.Later = append(v.Later, parentLine(l))
	}
	for _, pay := range p.Payments {
		v.Payments = append(v.Payments, pages.ParentPayment{Ref: pay.Ref, PaidAt: pay.PaidAt, Total: pay.Total, Items: len(pay.Items),
			ReceiptURL: parentPath(token, "/receipt?"+url.Values{"ref": {pay.Ref}}.Encode())})
	}
	h.render(w, r, http.StatusOK, pages.ParentPage(v))
}

func parentLine(l letters.Line) pages.ParentLine {
	return pages.ParentLine{Name: l.Name, Due: l.Due, Expiry: l.Expiry, Active: l.Active, Amount: l.Amount, Penalty: l.Penalty,
		Price: l.Price, DaysLate: l.DaysLate, Late: l.Late}
}
