package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/letters"
	"github.com/sekolah/portal/views/pages"
)

// showParentLetter is the student's bill letter for the parents to print: the same
// letter staff print, without a number (the school numbers the letters it sends).
func (h *Handler) showParentLetter(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	token := parentToken(r)
	p, err := h.parents.Page(ctx, token)
	if err != nil {
		h.parentFailed(w, r, err)
		return
	}
	set := letterSetOf(ctx, letters.Batch{Kind: letters.Bill, Today: p.Today, School: p.School, Letters: []letters.Letter{p.Bill}})
	set.School.ProfileURL = ""
	set.School.LogoURL = ""
	if p.School.LogoVersion != "" {
		set.School.LogoURL = parentPath(token, "/logo?v="+p.School.LogoVersion)
	}
	h.render(w, r, http.StatusOK, pages.ParentLetter(pages.ParentLetterView{Set: set, BackURL: parentPath(token, "")}))
}
