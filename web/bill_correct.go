package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/billlist"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/views/pages"
)

// maxPreviewRows bounds the rows a bulk correction's preview lists (the counts and
// totals are of all of them).
const maxPreviewRows = 200

// bulkFields are the bulk form's fields beside the list's filter.
var bulkFields = []string{"amount", "penalty", "due", "expiry", "reason"}

// bulkSelection reads the bills list's filter from vals: the selection of a bulk
// correction. The page, its size and order do not change what is selected.
func (h *Handler) bulkSelection(ctx context.Context, vals url.Values) (pages.BulkCorrectionView, billlist.Request, problem.List) {
	req, probs := billlist.ParseFilter(vals, h.cfg.AccountCodes)
	f := req.Filter
	f.Offset, f.Limit = 0, billlist.DefaultPageSize
	v := pages.BulkCorrectionView{ListURL: f.URL("/bills"), Values: map[string]string{}, Errors: map[string]string{}}
	for k, vs := range f.Values() {
		if k != billlist.ParamSort {
			v.Filter = append(v.Filter, pages.Hidden{Name: k, Value: vs[0]})
		}
	}
	if len(probs) == 0 && !f.Narrowed() {
		// A whole tab is never corrected at once: the person narrows it first.
		probs.Add(fieldSelection, "corrections.bulk.unfiltered")
	}
	if len(probs) == 0 {
		q := req.Query
		q.Offset, q.Limit = 0, 1
		if page, err := h.ledger.Bills(ctx, q); err == nil {
			v.SelCount, v.SelAmount = page.Totals.Count, page.Totals.Amount
		}
		v.Selection = selectionWords(ctx, f, v.SelCount)
	}
	return v, req, probs
}

// fieldSelection is the problem of a selection that is not narrowed.
const fieldSelection = "selection"

// bulkFilterMessage says why the list's filter cannot be corrected at once.
func bulkFilterMessage(ctx context.Context, probs problem.List) string {
	if probs.Has(fieldSelection) {
		return i18n.T(ctx, "corrections.bulk.unfiltered")
	}
	return i18n.T(ctx, "corrections.bulk.bad_filter")
}

// selectionWords restates a selection of the bills list in words, each filter once, the
// count last: "Kelas 8A · “Iuran Pramuka” · BCA · jatuh tempo 15 Des 2026 · 28 tagihan".
func selectionWords(ctx context.Context, f billlist.Filter, count int) string {
	p := i18n.From(ctx)
	var parts []string
	add := func(s string) {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if f.State != billlist.DefaultState {
		add(p.T("bills.tab." + f.State))
	}
	add(f.Class)
	if f.Name != "" {
		add(p.T("bills.sel.name", f.Name))
	}
	add(f.Account)
	if f.Search != "" {
		add(p.T("bills.sel.search", f.Search))
	}
	if f.NIS != "" {
		add(p.T("bills.sel.nis", f.NIS))
	}
	add(dayRange(p, "bills.sel.due", f.DueFrom, f.DueTo))
	add(dayRange(p, "bills.sel.paid", f.PaidFrom, f.PaidTo))
	if f.Notes != "" {
		add(p.T("bills.sel.notes", f.Notes))
	}
	if f.Ref != "" {
		add(p.T("bills.sel.ref", f.Ref))
	}
	add(p.T("bills.count", i18n.Number(int64(count))))
	return strings.Join(parts, " · ")
}

// dayRange words a range of days of the list's filter: "jatuh tempo 15 Des 2026" (one
// day), "… sejak 1 Des 2026", "… sampai 15 Des 2026", "… 1 Des 2026 – 15 Des 2026".
func dayRange(p i18n.Printer, key, from, to string) string {
	day := func(s string) string {
		if d, err := time.Parse(billlist.DateLayout, s); err == nil {
			return p.Day(d)
		}
		return s
	}
	switch {
	case from == "" && to == "":
		return ""
	case from == to:
		return p.T(key, day(from))
	case to == "":
		return p.T(key+"_from", day(from))
	case from == "":
		return p.T(key+"_to", day(to))
	}
	return p.T(key, day(from)+" – "+day(to))
}

// selectionString is how a job remembers its selection: the list's address.
func selectionString(v pages.BulkCorrectionView) string { return v.ListURL }

// bulkForm reads the action and the values as typed.
func bulkForm(v *pages.BulkCorrectionView, vals url.Values) {
	v.Action = vals.Get("action")
	for _, k := range bulkFields {
		v.Values[k] = vals.Get(k)
	}
}

// bulkChange checks the form with the component rules.
func bulkChange(v pages.BulkCorrectionView) (corrections.Change, problem.List) {
	value := ""
	switch v.Action {
	case corrections.ActionAmount, corrections.ActionPenalty, corrections.ActionDue, corrections.ActionExpiry:
		value = v.Values[v.Action]
	}
	return corrections.ParseChange(v.Action, value, v.Values["reason"])
}

// bulkPreviewView words a preview.
func (h *Handler) bulkPreviewView(ctx context.Context, p corrections.Preview) *pages.BulkPreviewView {
	pv := &pages.BulkPreviewView{Count: p.Count, Fingerprint: p.Fingerprint, TooMany: p.TooMany}
	if p.TooMany {
		pv.Count = corrections.MaxSelection
		return pv
	}
	c := p.Change
	switch c.Action {
	case corrections.ActionCancel:
		pv.Summary = i18n.T(ctx, "corrections.bulk.summary_cancel", p.Count, i18n.Rupiah(p.AmountBefore))
	case corrections.ActionPenalty:
		pv.Summary = i18n.T(ctx, "corrections.bulk.summary_penalty", p.Count, i18n.Rupiah(p.PenaltyBefore), i18n.Rupiah(p.PenaltyAfter))
	case corrections.ActionAmount:
		pv.Summary = i18n.T(ctx, "corrections.bulk.summary", p.Count, i18n.Rupiah(p.AmountBefore), i18n.Rupiah(p.AmountAfter))
	default:
		pv.Summary = i18n.T(ctx, "corrections.bulk.summary_day", p.Count, i18n.T(ctx, "corrections.bulk.field."+c.Action), i18n.From(ctx).Day(c.Day))
	}
	for _, key := range []string{corrections.LeftPaid, corrections.LeftUnchanged, corrections.LeftDays} {
		if n := p.LeftOut[key]; n > 0 {
			pv.LeftOut = append(pv.LeftOut, pages.BulkLeftOut{Label: i18n.T(ctx, key), Count: n})
		}
	}
	for i, r := range p.Rows {
		if i == maxPreviewRows {
			pv.More = len(p.Rows) - i
			break
		}
		before, after := bulkValue(ctx, c.Action, r.Bill), bulkValue(ctx, c.Action, r.After)
		if c.Action == corrections.ActionCancel {
			after = i18n.T(ctx, "corrections.bulk.cancelled")
		}
		row := pages.BulkRow{NIS: r.Bill.NIS, Student: r.Bill.StudentName, Name: r.Bill.Name, Before: before, After: after}
		if r.Left != "" {
			row.Left = i18n.T(ctx, r.Left)
		}
		pv.Rows = append(pv.Rows, row)
	}
	return pv
}

// bulkValue is the field a bulk correction changes, as b holds it.
func bulkValue(ctx context.Context, action string, b billing.Bill) string {
	switch action {
	case corrections.ActionPenalty:
		return i18n.Rupiah(b.Penalty)
	case corrections.ActionDue:
		return i18n.From(ctx).Day(b.Due)
	case corrections.ActionExpiry:
		return i18n.From(ctx).Day(b.Expiry)
	}
	return i18n.Rupiah(b.Amount)
}

// correctBills is the bulk correction form for the bills list's current filter.
func (h *Handler) correctBills(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	v, _, probs := h.bulkSelection(ctx, r.URL.Query())
	status := http.StatusOK
	if len(probs) > 0 {
		v.General, status = bulkFilterMessage(ctx, probs), http.StatusUnprocessableEntity
	}
	h.page(w, r, status, pages.BulkCorrection(v), pages.BulkCorrectionBody(v))
}
