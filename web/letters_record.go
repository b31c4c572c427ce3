package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/letters"
	"github.com/sekolah/portal/views/viewctx"
)

// recordLetters records the reminders of a class (or a list) as sent, each a follow-up by
// letter with its audit entry, as the single reminder's button does; students with
// nothing overdue any more are not recorded, and the flash says how many were.
func (h *Handler) recordLetters(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	class, nis := strings.TrimSpace(r.PostFormValue("class")), nisList(r.PostForm["nis"])
	var b letters.Batch
	var err error
	if len(nis) > 0 {
		b, err = h.letters.Students(ctx, letters.Reminder, nis)
	} else {
		b, err = h.letters.Class(ctx, letters.Reminder, class)
	}
	back := withQuery("/students/letters", "kind", string(letters.Reminder), "class", class)
	if len(nis) > 0 {
		back = "/students/letters?" + url.Values{"kind": {string(letters.Reminder)}, "nis": {strings.Join(nis, ",")}}.Encode()
	}
	if err != nil {
		h.addFlash(w, r, "error", i18n.T(ctx, "letters.no_students"))
		h.redirect(w, r, back)
		return
	}
	list := make([]string, len(b.Letters))
	for i, l := range b.Letters {
		list[i] = l.NIS
	}
	p, _ := viewctx.CurrentPerson(ctx)
	rec, err := h.letters.RecordReminders(ctx, h.actor(r), p.DisplayName, list)
	if err != nil {
		h.log.Error("record printed reminders", "class", class, "recorded", rec.Recorded, "err", err)
		h.addFlash(w, r, "error", i18n.T(ctx, "letters.record_failed", rec.Recorded))
		h.redirect(w, r, back)
		return
	}
	h.addFlash(w, r, "success", i18n.T(ctx, "letters.recorded", rec.Recorded))
	h.redirect(w, r, back)
}
