package web

import (
	"context"
	"errors"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/sekolah/portal/internal/registration"
)

// recordKey is the context key of the record a {id} route loaded; one key type per record
// type, so two loaded records never collide.
type recordKey[T any] struct{}

// recordCtx is the context middleware of a {id} route: it loads the record once, answers
// 404 early when there is none, and hands it to the handlers (recordFrom).
func recordCtx[T any](h *Handler, load func(context.Context, string) (T, error), next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, err := load(r.Context(), chi.URLParam(r, "id"))
		if isNotFound(err) {
			h.notFound(w, r)
			return
		} else if err != nil {
			h.serverError(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), recordKey[T]{}, v)))
	})
}

// isNotFound reports whether a domain's lookup found no such record. The domains answer
// one not-found, the store's, which they re-export (registration.ErrNotFound,
// students.ErrNotFound, wrapped by auth.ErrNoSuchUser) as io/fs re-exports os's
// ErrNotExist: one test serves every record.
func isNotFound(err error) bool { return errors.Is(err, registration.ErrNotFound) }

// recordFrom returns the record recordCtx loaded.
func recordFrom[T any](r *http.Request) T {
	v, _ := r.Context().Value(recordKey[T]{}).(T)
	return v
}
