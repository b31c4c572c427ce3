package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/views/pages"
)

// listStaff shows every account and the form to add one.
func (h *Handler) listStaff(w http.ResponseWriter, r *http.Request) {
	v, err := h.staffListView(r.Context(), pages.StaffForm{Role: auth.Finance.String(), Password: auth.GeneratePassword()})
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, pages.StaffList(v))
}
