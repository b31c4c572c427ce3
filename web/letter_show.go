package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/letters"
	"github.com/sekolah/portal/views/pages"
)

// showLetter is the printable bill letter for a student's parents: the unpaid components
// priced as of today (read from the ledger), what cannot be paid yet apart with the day it
// opens, late fees in words, how to pay at the bank with the NIS, numbered and signed.
func (h *Handler) showLetter(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	s := studentFrom(r)
	b, err := h.letters.One(ctx, letters.Bill, s)
	if err != nil {
		h.log.Error("bill letter from the ledger", "nis", s.NIS, "err", err)
		h.renderError(w, r, http.StatusInternalServerError, i18n.T(ctx, "ledger.unreadable"))
		return
	}
	h.render(w, r, http.StatusOK, pages.Letter(pages.LetterView{Set: letterSetOf(ctx, b), StudentURL: studentURL(s.NIS)}))
}
