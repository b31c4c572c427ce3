package web

import (
	"net/http"

	"github.com/sekolah/portal/views/pages"
)

// confirmYes is what a confirmation step sends back: a POST to a guarded action without
// confirm=yes is answered by the step, never by the action, so a form sent without the
// browser's JavaScript (or by a stale page, or a second tab) still asks first.
const confirmYes = "yes"

// confirmed reports whether r was confirmed; when it was not, it answers with a page that
// restates what the action does (step.Question), a button that sends the same fields again
// with confirm=yes, and a way back (step.Back). The fields of r are kept as they were
// typed or ticked (an upload's acknowledgements), apart from the CSRF token, which the page
// renews.
func (h *Handler) confirmed(w http.ResponseWriter, r *http.Request, step pages.ConfirmStep) bool {
	if err := r.ParseForm(); err != nil {
		h.renderError(w, r, http.StatusBadRequest, "")
		return false
	}
	if r.PostForm.Get("confirm") == confirmYes {
		return true
	}
	step.Action = r.URL.Path
	for name, values := range r.PostForm {
		if name == "csrf_token" || name == "confirm" {
			continue
		}
		for _, v := range values {
			step.Fields = append(step.Fields, pages.ConfirmField{Name: name, Value: v})
		}
	}
	pages.SortConfirmFields(step.Fields)
	h.render(w, r, http.StatusOK, pages.Confirm(step))
	return false
}
