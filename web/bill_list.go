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
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
)

// billsFieldLabels name the filter fields in the list of problems above the table.
var billsFieldLabels = map[string]string{
	billlist.ParamState: "term.state", billlist.ParamAccount: "term.account_code",
	billlist.ParamDueFrom: "bills.filter.due_from", billlist.ParamDueTo: "bills.filter.due_to",
	billlist.ParamPaidFrom: "bills.filter.paid_from", billlist.ParamPaidTo: "bills.filter.paid_to",
	billlist.ParamNIS: "term.nis", billlist.ParamNotes: "term.notes", billlist.ParamClass: "term.class", billlist.ParamRef: "term.ref_number",
	billlist.ParamSearch: "bills.search", billlist.ParamName: "term.component_name",
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
			State: f.State, Account: f.Account, Class: f.Class, DueFrom: f.DueFrom, DueTo: f.DueTo,
			PaidFrom: f.PaidFrom, PaidTo: f.PaidTo, NIS: f.NIS, Search: f.Search, Notes: f.Notes, Name: f.Name, Ref: f.Ref,
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
	v.Classes = h.knownClasses(ctx)
	for _, n := range billlist.PageSizes {
		v.PageSizes = append(v.PageSizes, components.Option{Value: strconv.Itoa(n), Label: i18n.T(ctx, "bills.page_size", n)})
	}
	reset := billlist.Filter{State: billlist.DefaultState, Limit: f.Limit}
	if slices.Contains(billlist.States, f.State) {
		reset.State = f.State
	}
	v.ResetURL = reset.URL("/bills")
	if v.CanPay && f.Narrowed() {
		v.CorrectURL = f.WithOffset(0).URL("/bills/correct")
	}
	v.NarrowFirst = v.CanPay && !f.Narrowed()
	if names, err := h.ledger.OpenNames(ctx); err == nil {
		v.Names = names
	} else {
		h.log.Warn("bills: the open items' names", "err", err)
	}
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
		Offset: f.Offset, Limit: f.Limit, Target: "#bills-results",
		URL: func(off int) string { return f.WithOffset(off).URL("/bills") },
	}
	return v
}

// billsRow is b as the browser shows it; back is the list's address, where a correction
// started from a row returns.
func billsRow(b billing.Bill, today time.Time, canPay bool, back string) pages.BillsRow {
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
	if canPay {
		if corrections.Refusal(b) == "" && c.Status != component.StatusPaid {
			r.EditURL, r.CancelURL = componentEditURL(b.NIS, b.ComponentID, back), componentCancelURL(b.NIS, back, b.ComponentID)
		} else {
			r.PaidKept = c.Status == component.StatusPaid
		}
	}
	return r
}

// listBills is the bills browser, read from the ledger: one page of the whole result in
// the order asked for, the count and totals of all of it, the filters and the search in
// the URL. An open page asks every LiveEvery whether it changed (?live=token).
func (h *Handler) listBills(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	today := h.today()
	req, probs := billlist.ParseFilter(r.URL.Query(), h.cfg.AccountCodes)
	f := req.Filter
	fresh, err := h.ledger.Freshness(ctx)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	token := h.liveToken(fresh)
	if len(probs) == 0 && h.unchanged(w, r, token) {
		return
	}
	v := h.billsView(ctx, f)
	status := http.StatusOK
	if len(probs) > 0 {
		v.Errors, v.Problems = problemMessages(ctx, probs), billsProblemList(ctx, probs)
		status = http.StatusUnprocessableEntity
	} else {
		page, err := h.ledger.Bills(ctx, req.Query)
		if err != nil {
			h.log.Error("bills from the ledger", "err", err)
			v.Notice, v.Failed, status = i18n.T(ctx, "ledger.unreadable"), true, http.StatusInternalServerError
		} else {
			back := f.URL("/bills")
			for _, b := range page.Bills {
				v.Rows = append(v.Rows, billsRow(b, today, v.CanPay, back))
			}
			t := page.Totals
			v.Totals = pages.BillsTotals{Count: t.Count, Amount: t.Amount, PenaltyToday: t.PenaltyToday, DueToday: t.DueToday, AmountPaid: t.Paid}
			v.Pager.Shown, v.Pager.Total = len(v.Rows), t.Count
			if t.Count == 0 && f.NIS != "" && !h.studentKnown(r, f.NIS) {
				v.Notice = i18n.T(ctx, "bills.unknown_student", f.NIS)
			}
			if t.Count == 0 && f.Search != "" && f.Name == "" {
				// "Iuran Pramuka" typed in the student search: offered as an item's name.
				asName := f
				asName.Search, asName.Name, asName.Offset = "", f.Search, 0
				v.NameSearchURL = asName.URL("/bills")
			}
			if v.CorrectURL != "" {
				v.Selection = selectionWords(ctx, f, t.Count)
			}
			v.Fresh = h.freshness(ctx, fresh, "")
			v.Live = h.live(f.URL("/bills")+"&", token)
		}
	}
	if isPartial(r) && r.URL.Query().Get("live") == "" {
		// The form sends every field, empty ones included; the address bar gets the short form.
		w.Header().Set("HX-Push-Url", f.URL("/bills"))
	}
	h.page(w, r, status, pages.Bills(v), pages.BillsResults(v))
}

// studentKnown reports whether the roster knows nis (a failure to read it counts as known:
// the notice would be wrong, not missing).
func (h *Handler) studentKnown(r *http.Request, nis string) bool {
	_, err := h.students.InRoster(r.Context(), nis)
	return !errors.Is(err, students.ErrNotFound)
}
