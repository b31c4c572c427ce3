package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
)

// The add-components form starts with defaultComponentRows rows and offers up to
// maxComponentRows.
const (
	defaultComponentRows = 3
	maxComponentRows     = 20
)

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
