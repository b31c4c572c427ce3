package web

import (
	"context"
	"errors"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/views/pages"
)

type studentKey struct{}

// studentCtx loads the {nis} student once (students.Service.Get: the roster, or else the
// billing service, which adds them to the roster). Unknown students are a 404 before any
// handler runs.
func (h *Handler) studentCtx(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		nis := chi.URLParam(r, "nis")
		if !students.ValidNIS(nis) {
			h.notFound(w, r)
			return
		}
		uctx, cancel := h.upstreamCtx(ctx)
		s, err := h.students.Get(uctx, nis)
		cancel()
		switch {
		case errors.Is(err, students.ErrNotFound):
			h.notFound(w, r)
			return
		case isUpstream(err):
			h.log.Warn("load student from the billing service", "nis", nis, "err", err)
			h.renderError(w, r, upstreamStatus(err), h.upstreamMessage(ctx, err, false))
			return
		case err != nil:
			h.serverError(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(ctx, studentKey{}, s)))
	})
}

func studentFrom(r *http.Request) students.Student {
	s, _ := r.Context().Value(studentKey{}).(students.Student)
	return s
}

func studentInfo(s students.Student) pages.StudentInfo {
	keyName := s.KeyName
	if keyName == "" {
		keyName = billing.DefaultKeyName
	}
	return pages.StudentInfo{NIS: s.NIS, Name: s.Name, KeyName: keyName, Phone: s.Phone, Email: s.Email,
		Class: s.Description, Source: s.Source, SyncedAt: s.SyncedAt}
}

// studentAid words the government-aid flags a Dapodik export gave the student.
func studentAid(ctx context.Context, s students.Student) []string {
	var out []string
	for _, a := range []struct {
		on  bool
		key string
	}{{s.Aid.KIP, "uploads.aid.kip"}, {s.Aid.KPS, "uploads.aid.kps"}, {s.Aid.PIP, "uploads.aid.pip"}} {
		if a.on {
			out = append(out, i18n.T(ctx, a.key))
		}
	}
	return out
}

// studentHasPayments asks the one place that decides whether a student can be deleted.
func (h *Handler) studentHasPayments(ctx context.Context, nis string) (bool, error) {
	return h.students.HasPayments(ctx, nis)
}
