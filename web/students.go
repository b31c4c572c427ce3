package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/store"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
)

const studentsPageSize = 50

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

// errUpstreamSlow is why a page stops waiting for the billing service; it reads as a
// timeout, so the person gets the timeout message.
var errUpstreamSlow = fmt.Errorf("web: the billing service answered too slowly: %w", billing.ErrTimeout)

// upstreamCtx bounds a page's calls to the billing service, retries included, to about
// one upstream timeout, so a slow service is reported while the person still waits.
func (h *Handler) upstreamCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, h.cfg.UpstreamTimeout+time.Second, errUpstreamSlow)
}

// today is the current date in the service zone, for the billing helpers.
func (h *Handler) today() time.Time { return h.now().In(h.cfg.Location) }

// upstreamStatus is the status a page answers with when the billing service failed.
func upstreamStatus(err error) int {
	switch {
	case errors.Is(err, billing.ErrTimeout):
		return http.StatusGatewayTimeout
	case errors.Is(err, billing.ErrUnavailable):
		return http.StatusServiceUnavailable
	case errors.Is(err, billing.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, billing.ErrValidation):
		return http.StatusUnprocessableEntity
	}
	return http.StatusBadGateway
}

// listStudents is the roster: search by NIS or name, filter by class, paged.
func (h *Handler) listStudents(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	f := pages.StudentsFilter{Query: q.Get("q"), Class: q.Get("class")}
	offset, _ := strconv.Atoi(q.Get("offset"))
	offset = max(offset, 0)
	list, total, err := h.db.ListStudents(ctx, store.StudentFilter{Query: f.Query, Class: f.Class, Offset: offset, Limit: studentsPageSize})
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	v := pages.StudentsView{Filter: f, Sync: h.syncView(ctx), Now: h.now(), CanWrite: can(ctx, auth.WriteBilling)}
	if v.Classes, err = h.db.Classes(ctx); err != nil {
		h.serverError(w, r, err)
		return
	}
	for _, s := range list {
		v.Rows = append(v.Rows, pages.StudentRow{
			NIS: s.NIS, Name: s.Name, Class: s.Description, Phone: s.Phone, Source: s.Source,
			HasTotals: s.HasTotals(), Outstanding: s.Outstanding, Overdue: s.OverdueCount, SyncedAt: s.SyncedAt,
		})
	}
	v.Pager = components.Pager{
		Offset: offset, Limit: studentsPageSize, Shown: len(v.Rows), Total: total, Target: "#students-results",
		URL: func(off int) string { return studentsURL(f, off) },
	}
	h.page(w, r, http.StatusOK, pages.Students(v), pages.StudentsResults(v))
}
