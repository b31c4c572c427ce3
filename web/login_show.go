package web

import (
	"net/http"

	"github.com/sekolah/portal/views/pages"
	"github.com/sekolah/portal/views/viewctx"
)

// showLogin renders the sign-in form, or goes on when already signed in.
func (h *Handler) showLogin(w http.ResponseWriter, r *http.Request) {
	next := safeNext(r.URL.Query().Get("next"))
	if _, ok := viewctx.CurrentPerson(r.Context()); ok {
		h.redirect(w, r, next)
		return
	}
	h.render(w, r, http.StatusOK, pages.Login(pages.LoginView{Next: next}))
}
