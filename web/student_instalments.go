package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/views/pages"
)

// instalmentsView shapes the split of the {cid} component with what was typed.
func (h *Handler) instalmentsView(r *http.Request, f corrections.SplitForm) pages.InstalmentsView {
	ctx := r.Context()
	b := componentFrom(r)
	v := pages.InstalmentsView{Student: studentInfo(studentFrom(r)), ID: b.ComponentID, Name: b.Name, AccountCode: b.AccountCode,
		Amount: b.Amount, Penalty: b.Penalty, Due: b.Due, Expiry: b.Expiry, Parts: f.Parts, FirstDue: f.FirstDue, Reason: f.Reason,
		Errors: map[string]string{}}
	if why := corrections.Refusal(b); why != "" {
		v.Refused = i18n.T(ctx, why)
	} else if p, ok := corrections.PartOf(b.Notes); ok && !p.Restored {
		v.Refused = i18n.T(ctx, corrections.KeySplitIsPart)
	}
	return v
}

// splitForm reads the split form.
func splitForm(r *http.Request) corrections.SplitForm {
	return corrections.SplitForm{Parts: strings.TrimSpace(r.PostFormValue("parts")), FirstDue: r.PostFormValue("first_due"),
		Reason: r.PostFormValue("reason"), Dues: r.PostForm["due"], Amount: strings.TrimSpace(r.PostFormValue("amount"))}
}

// splitPreview fills v's preview from the plan s, or, when its due days were wrong, from
// what was typed (each row keeping its text and saying what is wrong beside it).
func splitPreview(v *pages.InstalmentsView, f corrections.SplitForm, s corrections.Split) {
	v.Preview = true
	if len(s.Parts) > 0 {
		v.Grace = s.Grace
		for k, p := range s.Parts {
			row := pages.InstalmentPart{Name: p.Name, Amount: p.Amount, Penalty: p.Penalty, Due: p.Due, Expiry: p.Expiry, Active: p.Active,
				DueValue: dayValue(p.Due)}
			if k < len(f.Dues) && len(f.Dues) == len(s.Parts) && strings.TrimSpace(f.Dues[k]) != "" {
				row.DueValue = f.Dues[k]
			}
			v.Rows = append(v.Rows, row)
		}
		return
	}
	n, _ := strconv.Atoi(f.Parts)
	amounts, penalties := corrections.Splits(v.Amount, n), corrections.Splits(v.Penalty, n)
	for k := range n {
		row := pages.InstalmentPart{Name: corrections.PartName(v.Name, k+1, n), Amount: amounts[k], Penalty: penalties[k]}
		if k < len(f.Dues) {
			row.DueValue = f.Dues[k]
		}
		v.Rows = append(v.Rows, row)
	}
}

// duesWrong reports problems only of the typed due days (the preview shows them in place).
func duesWrong(probs problem.List, n int) bool {
	if len(probs) == 0 || n < corrections.MinParts || n > corrections.MaxParts {
		return false
	}
	for _, p := range probs {
		if !strings.HasPrefix(p.Field, "due_") && p.Field != corrections.FieldReason {
			return false
		}
	}
	for k := 1; k <= n; k++ {
		if probs.Has(corrections.DueField(k)) {
			return true
		}
	}
	return false
}

// newInstalments is the form to split one unpaid component into instalments.
func (h *Handler) newInstalments(w http.ResponseWriter, r *http.Request) {
	b := componentFrom(r)
	v := h.instalmentsView(r, corrections.SplitForm{Parts: "3", FirstDue: dayValue(b.Due)})
	h.page(w, r, http.StatusOK, pages.Instalments(v), pages.InstalmentsCard(v))
}

// previewInstalments shows the parts a split makes (amounts, days), or the form again
// with what is wrong (422).
func (h *Handler) previewInstalments(w http.ResponseWriter, r *http.Request) {
	h.planInstalments(w, r, false)
}

// confirmInstalments submits the split as a correction job (the parts made, then the
// original cancelled) and shows its progress.
func (h *Handler) confirmInstalments(w http.ResponseWriter, r *http.Request) {
	h.planInstalments(w, r, true)
}

func (h *Handler) planInstalments(w http.ResponseWriter, r *http.Request, confirm bool) {
	ctx := r.Context()
	b := componentFrom(r)
	f := splitForm(r)
	if !confirm {
		f.Amount = "" // a preview shows the component as it is now
	}
	v := h.instalmentsView(r, f)
	if v.Refused != "" {
		h.page(w, r, http.StatusConflict, pages.Instalments(v), pages.InstalmentsCard(v))
		return
	}
	s, probs := corrections.PlanSplit(b, f)
	if probs.Has(corrections.FieldAmount) {
		// Corrected since the preview: the new preview, with the dues typed cleared.
		f.Dues = nil
		s, _ = corrections.PlanSplit(b, corrections.SplitForm{Parts: f.Parts, FirstDue: f.FirstDue, Reason: f.Reason})
		splitPreview(&v, f, s)
		v.Errors = problemMessages(ctx, probs)
		h.page(w, r, http.StatusConflict, pages.Instalments(v), pages.InstalmentsCard(v))
		return
	}
	if len(probs) > 0 {
		v.Errors = problemMessages(ctx, probs)
		if n, _ := strconv.Atoi(f.Parts); duesWrong(probs, n) || len(f.Dues) > 0 && !probs.Has(corrections.FieldParts) && !probs.Has(corrections.FieldFirstDue) {
			splitPreview(&v, f, s)
		}
		h.page(w, r, http.StatusUnprocessableEntity, pages.Instalments(v), pages.InstalmentsCard(v))
		return
	}
	if !confirm {
		splitPreview(&v, f, s)
		h.page(w, r, http.StatusOK, pages.Instalments(v), pages.InstalmentsCard(v))
		return
	}
	id, err := h.corrections.SubmitSplit(ctx, s, h.actor(r))
	if errors.Is(err, corrections.ErrSplitTaken) {
		v.General = i18n.T(ctx, corrections.KeySplitAlready)
		splitPreview(&v, f, s)
		h.page(w, r, http.StatusConflict, pages.Instalments(v), pages.InstalmentsCard(v))
		return
	} else if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.addFlash(w, r, "success", i18n.T(ctx, "instalments.started", b.Name, len(s.Parts)))
	h.redirect(w, r, correctionURL(id))
}

// undoInstalmentsView reads what undoing the split of {orig} does.
func (h *Handler) undoInstalmentsView(r *http.Request, orig string) (pages.InstalmentsUndoView, corrections.SplitUndo, error) {
	ctx := r.Context()
	s := studentFrom(r)
	u, err := h.corrections.PlanUndo(ctx, s.NIS, orig, h.today())
	v := pages.InstalmentsUndoView{Student: studentInfo(s), Errors: map[string]string{},
		Action: studentURL(s.NIS) + "/instalments/" + orig + "/undo"}
	if err != nil {
		return v, u, err
	}
	if u.Original.ComponentID != "" && u.Original.NIS != s.NIS {
		return v, u, billing.ErrNotFound
	}
	o := u.Original
	v.Name, v.AccountCode, v.Amount, v.Penalty, v.Due, v.Expiry, v.Active, v.Expired = o.Name, o.AccountCode, o.Amount, o.Penalty,
		o.Due, o.Expiry, o.Active, u.Expired
	for _, p := range u.Parts {
		v.Parts = append(v.Parts, pages.CancelItem{ID: p.ComponentID, Name: p.Name, AccountCode: p.AccountCode, Amount: p.Amount, Due: p.Due})
	}
	if u.Refused != "" {
		v.Refused = i18n.T(ctx, u.Refused, u.Args...)
	}
	return v, u, nil
}

// confirmUndoInstalments is the confirmation before undoing a split.
func (h *Handler) confirmUndoInstalments(w http.ResponseWriter, r *http.Request) {
	v, _, err := h.undoInstalmentsView(r, chi.URLParam(r, "orig"))
	if errors.Is(err, billing.ErrNotFound) {
		h.notFound(w, r)
		return
	} else if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.page(w, r, http.StatusOK, pages.InstalmentsUndo(v), pages.InstalmentsUndoCard(v))
}

// undoInstalments submits the undo as a correction job: the original made again as it was,
// then the parts cancelled.
func (h *Handler) undoInstalments(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	v, u, err := h.undoInstalmentsView(r, chi.URLParam(r, "orig"))
	if errors.Is(err, billing.ErrNotFound) {
		h.notFound(w, r)
		return
	} else if err != nil {
		h.serverError(w, r, err)
		return
	}
	v.Reason = strings.TrimSpace(r.PostFormValue("reason"))
	if v.Refused != "" {
		h.page(w, r, http.StatusConflict, pages.InstalmentsUndo(v), pages.InstalmentsUndoCard(v))
		return
	}
	var probs problem.List
	corrections.CheckReason(&probs, v.Reason)
	if len(probs) > 0 {
		v.Errors = problemMessages(ctx, probs)
		h.page(w, r, http.StatusUnprocessableEntity, pages.InstalmentsUndo(v), pages.InstalmentsUndoCard(v))
		return
	}
	id, err := h.corrections.SubmitUndo(ctx, u, v.Reason, h.actor(r))
	if errors.Is(err, corrections.ErrSplitTaken) {
		v.Refused = i18n.T(ctx, "instalments.undo.err.taken")
		h.page(w, r, http.StatusConflict, pages.InstalmentsUndo(v), pages.InstalmentsUndoCard(v))
		return
	} else if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.addFlash(w, r, "success", i18n.T(ctx, "instalments.undo.started", v.Name))
	h.redirect(w, r, correctionURL(id))
}
