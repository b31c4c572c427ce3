package web

import (
	"net/http"
	"slices"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/outbox"
	"github.com/sekolah/portal/views/pages"
)

// noticesForm reads the class and term of the notices page (the current term when none
// or a wrong one is asked for) and the view with its choices.
func (h *Handler) noticesForm(r *http.Request, class, term string) (pages.NoticesView, outbox.Term) {
	ctx := r.Context()
	terms := h.outbox.Terms()
	t, ok := outbox.ParseTerm(term)
	if !ok || !slices.Contains(terms, t) {
		t = terms[0]
	}
	v := pages.NoticesView{Class: class, Classes: h.knownClasses(ctx), Term: t.String()}
	for _, x := range terms {
		v.Terms = append(v.Terms, pages.Hidden{Name: x.String(), Value: x.Label(i18n.From(ctx))})
	}
	return v, t
}

// previewNotices is the page of a term's bill notices for a class: the class and term
// chosen, each student's notice (what the term's unpaid bills cost) and where it goes.
func (h *Handler) previewNotices(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	v, t := h.noticesForm(r, q.Get("class"), q.Get("term"))
	if v.Class == "" {
		h.render(w, r, http.StatusOK, pages.Notices(v))
		return
	}
	plan, err := h.outbox.PlanNotices(ctx, v.Class, t, nil)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	pv, err := h.planView(ctx, plan, "/notices", []pages.Hidden{{Name: "class", Value: v.Class}, {Name: "term", Value: t.String()}})
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	v.Plan = &pv
	h.render(w, r, http.StatusOK, pages.Notices(v))
}
