package web

import (
	"net/http"
	"strings"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
)

// listCandidates lists the students whose record carries a government-aid flag (KIP,
// KPS, PIP): candidates for a scholarship, never given one by the flag alone.
func (h *Handler) listCandidates(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	list, err := h.plans.Candidates(ctx)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	pr := i18n.From(ctx)
	var v pages.CandidatesView
	for _, c := range list {
		st := c.Student
		var ds []string
		for _, d := range c.Discounts {
			ds = append(ds, d.Text(pr)+" · "+d.ReasonText(pr))
		}
		row := pages.CandidateRow{NIS: st.NIS, Name: st.Name, Class: st.Description, Aid: aidNames(st),
			Discounts: strings.Join(ds, "; "), URL: discountsURL(st.NIS)}
		if row.Discounts == "" {
			row.Discounts = i18n.T(ctx, "discounts.none_short")
		}
		v.Rows = append(v.Rows, row)
	}
	h.render(w, r, http.StatusOK, pages.Candidates(v))
}
