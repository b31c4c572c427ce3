package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/i18n"
)

type componentKey struct{}

// componentCtx loads the {cid} component of the {nis} student from the ledger once and
// answers 404 early when the ledger has none of that student's.
func (h *Handler) componentCtx(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := h.ledger.Component(r.Context(), chi.URLParam(r, "cid"))
		if errors.Is(err, billing.ErrNotFound) || err == nil && b.NIS != studentFrom(r).NIS {
			h.notFound(w, r)
			return
		} else if err != nil {
			h.serverError(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), componentKey{}, b)))
	})
}

func componentFrom(r *http.Request) billing.Bill {
	b, _ := r.Context().Value(componentKey{}).(billing.Bill)
	return b
}

// componentEditURL is the edit form of one component; back is where it returns.
func componentEditURL(nis, id, back string) string {
	return withBack(studentURL(nis)+"/components/"+url.PathEscape(id)+"/edit", back)
}

// componentCancelURL is the confirmation before cancelling ids of one student.
func componentCancelURL(nis, back string, ids ...string) string {
	q := url.Values{"id": ids}
	if back != "" {
		q.Set("back", back)
	}
	return studentURL(nis) + "/components/cancel?" + q.Encode()
}

func withBack(path, back string) string {
	if back == "" {
		return path
	}
	return path + "?" + url.Values{"back": {back}}.Encode()
}

// correctionBack is where a correction returns: the local page it was started from, else
// the student's page.
func correctionBack(r *http.Request, nis string) string {
	back := r.FormValue("back")
	if back == "" || !localPath(back) || strings.HasPrefix(back, "/login") {
		return studentURL(nis)
	}
	return back
}

// refusalText words why a component cannot be corrected ("" when it can).
func refusalText(ctx context.Context, b billing.Bill) string {
	if key := corrections.Refusal(b); key != "" {
		return i18n.T(ctx, key)
	}
	return ""
}
