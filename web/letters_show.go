package web

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/letters"
	"github.com/sekolah/portal/views/pages"
)

// showLetters prints the bill letters or the reminders of a class (?class=), or of a list
// of students (?nis=, repeated or comma-separated: the arrears report's selection), one
// student per A4 page; students with nothing to ask for are left out and counted.
// Without a class or a list it is the form that chooses one.
func (h *Handler) showLetters(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	kind, ok := letters.ParseKind(q.Get("kind"))
	if !ok {
		h.renderError(w, r, http.StatusBadRequest, i18n.T(ctx, "error.400.body"))
		return
	}
	v := pages.LettersView{Class: strings.TrimSpace(q.Get("class")), NIS: nisList(q["nis"]), Classes: h.knownClasses(ctx)}
	v.Set.Reminder = kind == letters.Reminder
	var b letters.Batch
	var err error
	switch {
	case len(v.NIS) > 0:
		b, err = h.letters.Students(ctx, kind, v.NIS)
		v.Class, v.ReportURL = "", outstandingURL("", "", time.Time{}, time.Time{})
	case v.Class != "":
		b, err = h.letters.Class(ctx, kind, v.Class)
	default:
		h.render(w, r, http.StatusOK, pages.Letters(v))
		return
	}
	status := http.StatusOK
	switch {
	case errors.Is(err, letters.ErrNoStudents):
		v.Message, status = i18n.T(ctx, "letters.no_students"), http.StatusNotFound
	case errors.Is(err, letters.ErrTooMany):
		v.Message, status = i18n.T(ctx, "letters.too_many", letters.MaxLetters), http.StatusUnprocessableEntity
	case err != nil:
		h.log.Error("letters from the ledger", "class", v.Class, "err", err)
		h.renderError(w, r, http.StatusInternalServerError, i18n.T(ctx, "ledger.unreadable"))
		return
	}
	v.Set, v.Skipped, v.Missing = letterSetOf(ctx, b), b.Skipped, b.Missing
	if err == nil && len(b.Letters) == 0 {
		v.Message = i18n.T(ctx, "letters.none_to_print")
	}
	if kind == letters.Reminder && can(ctx, auth.WriteBilling) {
		v.RecordURL = "/students/letters/record"
	}
	h.render(w, r, status, pages.Letters(v))
}

// nisList reads NIS given repeated or comma-separated.
func nisList(values []string) []string {
	var out []string
	for _, v := range values {
		for _, n := range strings.Split(v, ",") {
			if n = strings.TrimSpace(n); n != "" {
				out = append(out, n)
			}
		}
	}
	return out
}
