package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
)

// The add-components form starts with defaultComponentRows rows and offers up to
// maxComponentRows.
const (
	defaultComponentRows = 3
	maxComponentRows     = 20
)

// componentFields maps the service's component fields to the form's columns.
var componentFields = map[string]string{
	"bill_component_name": component.FieldName, "account_code": component.FieldAccount, "amount": component.FieldAmount,
	"penalty_amount": component.FieldPenalty, "due_date": component.FieldDue, "expiry_date": component.FieldExpiry,
	"active_date": component.FieldActive, "notes": component.FieldNotes,
}

// readComponentRows reads n rows of the form ("name-0", "amount-0", ...) from vals.
func readComponentRows(vals url.Values, n int) []component.Input {
	rows := make([]component.Input, n)
	for i := range rows {
		for _, col := range component.Fields {
			rows[i].Set(col, vals.Get(col+"-"+strconv.Itoa(i)))
		}
	}
	return rows
}

// rowCount is how many rows the form shows: what it asked for, never fewer than the
// rows that carry values, within 1..maxComponentRows.
func rowCount(vals url.Values) int {
	n, err := strconv.Atoi(vals.Get("rows"))
	if err != nil {
		n = defaultComponentRows
	}
	for i := maxComponentRows - 1; i >= n; i-- {
		if vals.Get(component.FieldName+"-"+strconv.Itoa(i)) != "" || vals.Get(component.FieldAmount+"-"+strconv.Itoa(i)) != "" {
			n = i + 1
			break
		}
	}
	return min(max(n, 1), maxComponentRows)
}

func (h *Handler) componentsForm(r *http.Request, rows []component.Input) pages.ComponentsForm {
	f := pages.ComponentsForm{Student: studentInfo(studentFrom(r)), MaxRows: maxComponentRows}
	for _, code := range h.cfg.AccountCodes {
		f.Accounts = append(f.Accounts, components.Option{Value: code, Label: code})
	}
	for _, row := range rows {
		vals := map[string]string{}
		for _, col := range component.Fields {
			vals[col] = row.Get(col)
		}
		if vals[component.FieldAccount] == "" && len(h.cfg.AccountCodes) > 0 {
			vals[component.FieldAccount] = h.cfg.AccountCodes[0]
		}
		f.Rows = append(f.Rows, pages.ComponentRowForm{Values: vals, Errors: map[string]string{}})
	}
	return f
}

// newComponents shows the form; ?rows=N asks for N rows (how "add row" works without
// JavaScript), and row values in the query are kept (how HTMX adds one instantly).
func (h *Handler) newComponents(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := h.componentsForm(r, readComponentRows(q, rowCount(q)))
	h.page(w, r, http.StatusOK, pages.StudentComponentsNew(f), pages.ComponentsFormCard(f))
}

// createComponents checks every row with the service's rules, then sends the filled rows
// in one batch (all or none).
func (h *Handler) createComponents(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		h.renderError(w, r, http.StatusBadRequest, "")
		return
	}
	nis := studentFrom(r).NIS
	rows := readComponentRows(r.PostForm, rowCount(r.PostForm))
	f := h.componentsForm(r, rows)
	plan := component.PlanRows(nis, rows, h.cfg.AccountCodes)
	for i, probs := range plan.Problems {
		f.Rows[i].Errors = problemMessages(ctx, probs)
	}
	status := http.StatusUnprocessableEntity
	switch {
	case len(plan.Problems) > 0:
	case len(plan.Inputs) == 0:
		f.General = i18n.T(ctx, "students.components.none")
	default:
		uctx, cancel := h.upstreamCtx(ctx)
		bills, err := h.writer.CreateComponents(uctx, h.actor(r), plan.Inputs, "form")
		cancel()
		if err == nil {
			h.addFlash(w, r, "success", i18n.T(ctx, "students.components.created_ok", max(len(bills), len(plan.Inputs)), f.Student.Name))
			h.redirect(w, r, studentURL(nis))
			return
		}
		h.log.Warn("create components", "nis", nis, "err", err)
		if !h.componentsRefused(r, &f, plan, err) {
			f.General = h.upstreamMessage(ctx, err, true)
			status = upstreamStatus(err)
		}
	}
	h.page(w, r, status, pages.StudentComponentsNew(f), pages.ComponentsFormCard(f))
}

// componentsRefused puts each item the service rejected beside its row and field, and
// reports whether it could.
func (h *Handler) componentsRefused(r *http.Request, f *pages.ComponentsForm, plan component.Plan, err error) bool {
	var apiErr *billing.APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, billing.ErrValidation) || len(apiErr.Items) == 0 {
		return false
	}
	placed := false
	for _, it := range apiErr.Items {
		col, ok := componentFields[it.Field]
		if !ok || it.Index < 0 || it.Index >= len(plan.Rows) {
			continue
		}
		f.Rows[plan.Rows[it.Index]].Errors[col] = i18n.T(r.Context(), "students.err.service", it.Message)
		placed = true
	}
	if !placed {
		return false
	}
	f.General = i18n.T(r.Context(), "students.components.refused")
	return true
}
