package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/sekolah/portal/internal/counter"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/views/pages"
)

// newPayment is the counter form: a search by name or NIS (as the person types, through
// HTMX; or as a plain form), then the chosen student's unpaid components. A complete NIS
// opens the student at once.
func (h *Handler) newPayment(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	v := pages.PaymentView{Query: strings.TrimSpace(q.Get("q")), NIS: strings.TrimSpace(q.Get("nis")),
		Ref: strings.TrimSpace(q.Get("ref")), Today: h.counter.Today()}
	status := http.StatusOK
	if v.NIS == "" && v.Query != "" {
		m, err := h.counter.Search(ctx, v.Query)
		v.Search = paymentSearchView(ctx, m)
		if ps, tooLong := problem.As(err); tooLong {
			// Said in place, what was typed cut to what may be searched for.
			v.Query = cutRunes(v.Query, students.MaxSearchLen)
			v.Search = &pages.PaymentSearch{Query: v.Query, Error: problemMessages(ctx, ps)["q"]}
			status = http.StatusUnprocessableEntity
		} else if err != nil {
			h.log.Warn("counter search", "q", v.Query, "err", err)
			if len(m.List) == 0 {
				v.Search.Error = i18n.T(ctx, "payments.search_failed", h.upstreamMessage(ctx, err, false))
				status = upstreamStatus(err)
			}
		}
		if m.Exact != nil && len(m.List) == 1 {
			v.NIS, v.Search = m.Exact.NIS, nil
		}
	}
	if v.NIS != "" {
		if st, err := h.counter.Student(ctx, v.NIS); err != nil {
			status = h.paymentStudentFailed(ctx, &v, err)
		} else {
			query := v.Query
			v = h.paymentView(ctx, st, v.Ref, q["component"])
			v.Query = query
		}
	}
	if isPartial(r) {
		push := "/payments/new"
		switch {
		case v.NIS != "":
			push += "?" + url.Values{"nis": {v.NIS}}.Encode()
		case v.Query != "":
			push += "?" + url.Values{"q": {v.Query}}.Encode()
		}
		w.Header().Set("HX-Push-Url", push)
	}
	h.page(w, r, status, pages.PaymentNew(v), pages.PaymentPanel(v))
}

// paymentSearchView lists what a search found, or says in place why nothing.
func paymentSearchView(ctx context.Context, m counter.Matches) *pages.PaymentSearch {
	s := &pages.PaymentSearch{Query: m.Query, More: m.More}
	for _, mt := range m.List {
		s.Matches = append(s.Matches, pages.PaymentMatch{NIS: mt.NIS, Name: mt.Name, Class: mt.Class,
			Outstanding: mt.Outstanding, Known: mt.Known, URL: paymentNewURL(mt.NIS)})
	}
	switch {
	case len(m.List) > 0:
	case m.NISNotFound:
		s.Empty = i18n.T(ctx, "payments.no_match_nis", m.Query)
	default:
		s.Empty = i18n.T(ctx, "payments.no_match_name", m.Query)
	}
	return s
}
