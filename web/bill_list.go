package web

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/billlist"
	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
)

// billsFieldLabels name the filter fields in the list of problems above the table.
var billsFieldLabels = map[string]string{
	billlist.ParamState: "term.state", billlist.ParamAccount: "term.account_code",
	billlist.ParamDueFrom: "bills.filter.due_from", billlist.ParamDueTo: "bills.filter.due_to",
	billlist.ParamPaidFrom: "bills.filter.paid_from", billlist.ParamPaidTo: "bills.filter.paid_to",
	billlist.ParamNIS: "term.nis", billlist.ParamNotes: "term.notes", billlist.ParamRef: "term.ref_number",
}

// billsProblemList words the problems as a list above the table, each naming its field.
func billsProblemList(ctx context.Context, probs problem.List) []string {
	var list []string
	for _, p := range probs {
		msg := problemMessage(ctx, p)
		if key, ok := billsFieldLabels[p.Field]; ok {
			msg = i18n.T(ctx, key) + ": " + msg
		}
		list = append(list, msg)
	}
	return list
}

// billsView is the browser's frame for filter f: tabs, form, choices and sort links.
func (h *Handler) billsView(ctx context.Context, f billlist.Filter) pages.BillsView {
	v := pages.BillsView{
		Form: pages.BillsForm{
			State: f.State, Account: f.Account, DueFrom: f.DueFrom, DueTo: f.DueTo,
			PaidFrom: f.PaidFrom, PaidTo: f.PaidTo, NIS: f.NIS, Notes: f.Notes, Ref: f.Ref,
			Sort: f.Sort, Limit: strconv.Itoa(f.Limit),
		},
		Sorts:  map[string]pages.BillsSortLink{},
		CanPay: can(ctx, auth.WriteBilling),
	}
	for _, s := range billlist.States {
		v.Tabs = append(v.Tabs, pages.BillsTab{
			State: s, Label: i18n.T(ctx, "bills.tab."+s), URL: f.WithState(s).URL("/bills"), Current: s == f.State,
		})
	}
	for _, a := range h.cfg.AccountCodes {
		v.Accounts = append(v.Accounts, components.Option{Value: a, Label: a})
	}
	for _, n := range billlist.PageSizes {
		v.PageSizes = append(v.PageSizes, components.Option{Value: strconv.Itoa(n), Label: i18n.T(ctx, "bills.page_size", n)})
	}
	reset := billlist.Filter{State: billlist.DefaultState, Limit: f.Limit}
	if slices.Contains(billlist.States, f.State) {
		reset.State = f.State
	}
	v.ResetURL = reset.URL("/bills")
	cur, _ := billlist.ParseSort(f.Sort)
	for _, k := range billlist.SortKeys {
		link := pages.BillsSortLink{URL: f.WithSort(billlist.Toggle(f.Sort, k)).URL("/bills")}
		if cur.Key == k {
			link.Aria = "ascending"
			if cur.Desc {
				link.Aria = "descending"
			}
		}
		v.Sorts[k] = link
	}
	v.Pager = components.Pager{
		Offset: f.Offset, Limit: f.Limit, Total: -1, Target: "#bills-results",
		URL: func(off int) string { return f.WithOffset(off).URL("/bills") },
	}
	return v
}

func billsRow(b billing.Bill, today time.Time, canPay bool) pages.BillsRow {
	c := component.On(b, today)
	r := pages.BillsRow{
		ComponentID: b.ComponentID, NIS: b.NIS, StudentName: b.StudentName, Name: b.Name,
		AccountCode: b.AccountCode, Notes: b.Notes, Due: b.Due, DaysLate: c.DaysLate,
		Status: string(c.Status), Amount: b.Amount, PenaltyToday: c.Penalty,
		DueToday: c.Price, AmountPaid: b.AmountPaid, PaidAt: b.PaidAt, Ref: b.RefNumber,
		StudentURL: studentURL(b.NIS),
	}
	if b.RefNumber != "" && c.Status == component.StatusPaid {
		r.ReceiptURL = paymentReceiptURL(b.NIS, b.RefNumber)
	}
	if canPay && (c.Status == component.StatusProvisioned || c.Status == component.StatusOverdue) {
		r.PayURL = paymentNewURL(b.NIS)
	}
	return r
}

// listBills is the bills browser: one page of the service's search, with the filters in
// the URL. Sorting and totals apply to the page shown (the service has no total).
func (h *Handler) listBills(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	today := h.today()
	req, probs := billlist.ParseFilter(r.URL.Query(), h.cfg.AccountCodes)
	f := req.Filter
	v := h.billsView(ctx, f)
	status := http.StatusOK
	if len(probs) > 0 {
		v.Errors, v.Problems = problemMessages(ctx, probs), billsProblemList(ctx, probs)
		status = http.StatusUnprocessableEntity
	} else {
		var got []billing.Bill
		var err error
		if req.NIS != "" {
			got, err = h.billing.StudentBills(ctx, req.NIS, req.Query)
		} else {
			got, err = h.billing.Search(ctx, req.Query)
		}
		switch {
		case err != nil && req.NIS != "" && errors.Is(err, billing.ErrNotFound):
			v.Notice = i18n.T(ctx, "bills.unknown_student", req.NIS)
		case err != nil:
			h.log.Warn("bills search", "err", err)
			v.Notice, v.Failed, status = h.upstreamMessage(ctx, err, false), true, http.StatusBadGateway
		default:
			rows, next := billlist.Page(got, f.Limit)
			billlist.SortBills(rows, f.Sort)
			for _, b := range rows {
				v.Rows = append(v.Rows, billsRow(b, today, v.CanPay))
			}
			t := billlist.Total(rows, today)
			v.Totals = pages.BillsTotals{Count: t.Count, Amount: t.Amount, PenaltyToday: t.PenaltyToday, DueToday: t.DueToday, AmountPaid: t.Paid}
			v.Pager.Shown, v.Pager.HasNext = len(rows), next
		}
	}
	if isPartial(r) {
		// The form sends every field, empty ones included; the address bar gets the short form.
		w.Header().Set("HX-Push-Url", f.URL("/bills"))
	}
	h.page(w, r, status, pages.Bills(v), pages.BillsResults(v))
}
