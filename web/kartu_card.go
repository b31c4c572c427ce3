package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/views/pages"
)

// showCard is a student's kartu SPP for a plan, printable on A4: every period with its
// amount, its state and the day it was paid, and a column for the bursar's initials.
func (h *Handler) showCard(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p, st := planFrom(r), studentFrom(r)
	k, err := h.plans.Card(ctx, p, st)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	prof, perr := h.school.Profile(ctx)
	if perr != nil {
		h.log.Error("read the school profile", "err", perr)
	}
	v := pages.CardView{School: schoolHeaderOf(ctx, prof), PlanName: p.Name, NIS: st.NIS, Name: st.Name, Class: st.Description,
		Today: k.Today, BackURL: kartuURL(p.ID, st.Description)}
	if len(k.Rows) == 1 {
		row := k.Rows[0]
		v.Paid, v.Owed, v.Expired = row.Paid, row.Owed, row.Expired
		for i, c := range row.Cells {
			pe := k.Periods[i]
			l := pages.CardLine{Name: pe.Name, State: string(c.State), StateLabel: i18n.T(ctx, c.State.Key())}
			if c.Parts > 0 {
				l.Due, l.Amount = c.Due, c.Amount
				if c.State == plans.CellPaid {
					l.Amount, l.PaidOn = c.Paid, c.PaidOn
				}
				if c.Parts > 1 {
					l.StateLabel += " · " + i18n.T(ctx, "plans.kartu.parts_paid", c.PaidParts, c.Parts)
				}
			}
			v.Lines = append(v.Lines, l)
		}
	}
	h.render(w, r, http.StatusOK, pages.Card(v))
}
