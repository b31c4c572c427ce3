package web

import (
	"errors"
	"net/http"
	"slices"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/views/pages"
)

// maxCancelIDs bounds the components one cancel names (a student's page at most).
const maxCancelIDs = 500

// componentCancelView reads the components ids of the student from the ledger: those
// that can be cancelled, and those kept with why (paid, already cancelled). Ids of
// another student or unknown to the ledger are left out.
func (h *Handler) componentCancelView(r *http.Request, ids []string) (pages.ComponentCancelView, error) {
	ctx := r.Context()
	s := studentFrom(r)
	v := pages.ComponentCancelView{Student: studentInfo(s), Errors: map[string]string{}, Back: correctionBack(r, s.NIS)}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if len(ids) > maxCancelIDs {
		ids = ids[:maxCancelIDs]
	}
	for _, id := range ids {
		b, err := h.ledger.Component(ctx, id)
		if errors.Is(err, billing.ErrNotFound) || err == nil && b.NIS != s.NIS {
			continue
		} else if err != nil {
			return v, err
		}
		it := pages.CancelItem{ID: b.ComponentID, Name: b.Name, AccountCode: b.AccountCode, Amount: b.Amount, Due: b.Due}
		if why := refusalText(ctx, b); why != "" {
			it.Why = why
			v.Kept = append(v.Kept, it)
			continue
		}
		v.Items = append(v.Items, it)
		v.Total += b.Amount
	}
	return v, nil
}

// confirmCancelComponents is the confirmation step before cancelling the ticked
// components (?id=…&id=…): what will be cancelled, what is kept and why, and the reason.
func (h *Handler) confirmCancelComponents(w http.ResponseWriter, r *http.Request) {
	v, err := h.componentCancelView(r, r.URL.Query()["id"])
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.page(w, r, http.StatusOK, pages.ComponentCancel(v), pages.ComponentCancelCard(v))
}
