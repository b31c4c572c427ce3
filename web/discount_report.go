package web

import (
	"net/http"
	"net/url"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/reports"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
)

// maxDiscountLines bounds the lines the discounts report shows on screen (the totals and
// the files hold all of them).
const maxDiscountLines = 500

// discountsReportURL is the discounts report of class ("" every class).
func discountsReportURL(class string) string {
	if class == "" {
		return "/reports/discounts"
	}
	return "/reports/discounts?class=" + url.QueryEscape(class)
}

// reportDiscounts is the discounts report: who had a discount on which fee, the full
// price, what was taken off and what is charged, and why, with totals by reason and by
// class; also as .xlsx and CSV.
func (h *Handler) reportDiscounts(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	class := r.URL.Query().Get("class")
	today := h.clk.Day()
	if format, ok, handled := h.exportFormat(w, r); handled {
		return
	} else if ok {
		h.export(w, r, format, reports.DiscountsFilename(class, today, format), func(ex reports.Export) error {
			return h.discounts.Export(ctx, class, today, ex)
		}, nil)
		return
	}
	rep, err := h.discounts.Report(ctx, class)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	v := pages.DiscountsReportView{ReportShell: reportShell(discountsReportURL(class)), Class: class, Students: rep.Students,
		Count: len(rep.Lines), Full: rep.Full, Off: rep.Off, Charged: rep.Charged, Pending: rep.Pending}
	if f, err := h.ledger.Freshness(ctx); err == nil {
		v.Fresh = h.freshness(ctx, f, v.URL)
	}
	v.Classes = append(v.Classes, components.Option{Value: "", Label: i18n.T(ctx, "term.all")})
	if classes, err := h.students.Classes(ctx); err == nil {
		for _, c := range classes {
			v.Classes = append(v.Classes, components.Option{Value: c, Label: c})
		}
	}
	pr := i18n.From(ctx)
	for i, ln := range rep.Lines {
		if i == maxDiscountLines {
			v.More = len(rep.Lines) - i
			break
		}
		v.Lines = append(v.Lines, pages.DiscountLineRow{NIS: ln.Student.NIS, Name: ln.Student.Name, Class: ln.Student.Description,
			Fee: ln.Period.Name, Size: ln.Discount.Text(pr), Reason: ln.Discount.ReasonText(pr), State: reports.LineState(pr, ln),
			URL: discountsURL(ln.Student.NIS), Full: ln.Full, Off: ln.Off, Charged: ln.Charged})
	}
	for _, t := range rep.ByReason {
		v.ByReason = append(v.ByReason, pages.DiscountTotalRow{Label: i18n.T(ctx, "plans.reason."+t.Key), Students: t.Students,
			Lines: t.Lines, Full: t.Full, Off: t.Off, Charged: t.Charged})
	}
	for _, t := range rep.ByClass {
		v.ByClass = append(v.ByClass, pages.DiscountTotalRow{Label: reports.ClassLabel(pr, t.Key), Students: t.Students,
			Lines: t.Lines, Full: t.Full, Off: t.Off, Charged: t.Charged})
	}
	h.render(w, r, http.StatusOK, pages.DiscountsReport(v))
}
