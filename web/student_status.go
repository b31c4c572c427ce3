package web

import (
	"errors"
	"net/http"
	"time"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/views/pages"
)

// standingForm is the status form of the {nis} student with what was typed.
func (h *Handler) standingForm(r *http.Request, f students.StandingForm) pages.StandingForm {
	s := studentFrom(r)
	return pages.StandingForm{Student: studentInfo(s), Current: standingInfo(s), Status: f.Status, On: f.On, Note: f.Note,
		Errors: map[string]string{}}
}

// editStudentStatus is the form to set a student's status: active, graduated, moved or
// left, since a day, why.
func (h *Handler) editStudentStatus(w http.ResponseWriter, r *http.Request) {
	st := students.StandingOf(studentFrom(r))
	f := students.StandingForm{Status: string(st.Status), Note: st.Note}
	if !st.On.IsZero() {
		f.On = dayValue(st.On)
	}
	v := h.standingForm(r, f)
	h.page(w, r, http.StatusOK, pages.StudentStatus(v), pages.StudentStatusCard(v))
}

// updateStudentStatus sets the student's status (audited). A student who left with
// unpaid bills due after that day is taken to the offer to cancel them; one set back to
// active returns to their page.
func (h *Handler) updateStudentStatus(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	s := studentFrom(r)
	f := students.StandingForm{Status: r.PostFormValue("status"), On: r.PostFormValue("on"), Note: r.PostFormValue("note")}
	st, probs := students.ParseStanding(f)
	if len(probs) > 0 {
		v := h.standingForm(r, f)
		v.Errors = problemMessages(ctx, probs)
		if !st.On.IsZero() {
			v.OnRead = i18n.From(ctx).Day(st.On)
		}
		h.page(w, r, http.StatusUnprocessableEntity, pages.StudentStatus(v), pages.StudentStatusCard(v))
		return
	}
	if err := h.students.SetStanding(ctx, h.actor(r), s, st); errors.Is(err, students.ErrNotFound) {
		h.notFound(w, r)
		return
	} else if err != nil {
		h.serverError(w, r, err)
		return
	}
	words := i18n.T(ctx, st.Status.Key())
	if !st.On.IsZero() {
		words = i18n.T(ctx, "students.standing.since", words, i18n.From(ctx).Day(st.On))
	}
	h.addFlash(w, r, "success", i18n.T(ctx, "students.standing.saved", s.Name, words))
	if !st.Status.Active() {
		plan, err := h.corrections.Leaving(ctx, s.NIS, st.On)
		if err != nil {
			h.log.Warn("bills after a student left", "nis", s.NIS, "err", err)
		} else if len(plan.Cancel) > 0 {
			h.redirect(w, r, studentURL(s.NIS)+"/leave")
			return
		}
	}
	h.redirect(w, r, studentURL(s.NIS))
}

// leaveDay is the day a former student left, as a day ("" for an active one).
func leaveDay(s students.Student) time.Time {
	if students.StatusOf(s.Status).Active() {
		return time.Time{}
	}
	return s.StatusOn
}
