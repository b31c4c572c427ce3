package web

import (
	"context"
	"errors"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/views/pages"
)

type studentKey struct{}

// studentCtx loads the {nis} student once: from the roster, or else from the billing
// service (then adding them to the roster, source sync). Unknown students are a 404
// before any handler runs.
func (h *Handler) studentCtx(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		nis := chi.URLParam(r, "nis")
		if !students.ValidNIS(nis) {
			h.notFound(w, r)
			return
		}
		s, err := h.db.StudentByNIS(ctx, nis)
		if errors.Is(err, store.ErrNotFound) {
			uctx, cancel := h.upstreamCtx(ctx)
			s, err = students.Fetch(uctx, h.billing, h.db, nis, h.now())
			cancel()
			switch {
			case errors.Is(err, billing.ErrNotFound):
				h.notFound(w, r)
				return
			case err != nil:
				h.log.Warn("load student from the billing service", "nis", nis, "err", err)
				h.renderError(w, r, upstreamStatus(err), h.upstreamMessage(ctx, err, false))
				return
			}
		} else if err != nil {
			h.serverError(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(ctx, studentKey{}, s)))
	})
}

func studentFrom(r *http.Request) store.Student {
	s, _ := r.Context().Value(studentKey{}).(store.Student)
	return s
}

func studentInfo(s store.Student) pages.StudentInfo {
	keyName := s.KeyName
	if keyName == "" {
		keyName = billing.DefaultKeyName
	}
	return pages.StudentInfo{NIS: s.NIS, Name: s.Name, KeyName: keyName, Phone: s.Phone, Email: s.Email,
		Class: s.Description, Source: s.Source, SyncedAt: s.SyncedAt}
}

// studentHasPayments asks the one place that decides whether a student can be deleted.
func (h *Handler) studentHasPayments(ctx context.Context, nis string) (bool, error) {
	return students.HasPayments(ctx, h.billing, nis)
}
