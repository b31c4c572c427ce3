package web

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/plans"
	"github.com/sekolah/portal/internal/reports"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
)

// showKartu is a plan's kartu SPP: every class's overview, or one class's grid (students
// × periods, each cell paid with its day, unpaid, late, expired, waived or not billed);
// ?format=xlsx gives the class's grid as a file.
func (h *Handler) showKartu(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p := planFrom(r)
	class := r.URL.Query().Get("class")
	v := pages.KartuView{PlanURL: planURL(p.ID), PlanName: p.Name, Code: p.Code, Class: class, Today: h.clk.Day(),
		XLSXURL: kartuURL(p.ID, class) + "&format=xlsx"}
	for _, pe := range p.Periods() {
		v.Periods = append(v.Periods, periodShort(ctx, pe))
	}
	sizes, err := h.plans.Classes(ctx)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	v.Classes = append(v.Classes, components.Option{Value: "", Label: i18n.T(ctx, "plans.kartu.all_classes")})
	known := false
	for _, c := range sizes {
		v.Classes = append(v.Classes, components.Option{Value: c.Class, Label: c.Class})
		known = known || c.Class == class
	}
	if class != "" && !known {
		h.notFound(w, r)
		return
	}
	if class == "" {
		h.kartuOverview(w, r, p, v)
		return
	}
	k, err := h.plans.Kartu(ctx, p, class)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	if format, ok, handled := h.exportFormat(w, r); handled {
		return
	} else if ok {
		h.export(w, r, format, reports.KartuFilename(p.Code, class, h.clk.Day(), format),
			func(ex reports.Export) error { return reports.ExportKartu(k, ex) }, nil)
		return
	}
	v.PaidCount = k.PaidCount
	pr := i18n.From(ctx)
	for _, row := range k.Rows {
		kr := pages.KartuRow{NIS: row.Student.NIS, Name: row.Student.Name, CardURL: planURL(p.ID, "/kartu/", row.Student.NIS),
			StudentURL: studentURL(row.Student.NIS), Paid: row.Paid, Owed: row.Owed}
		if !row.Status.Active() {
			kr.Status = i18n.T(ctx, row.Status.Key())
		}
		for i, c := range row.Cells {
			kr.Cells = append(kr.Cells, kartuCell(ctx, pr, k.Periods[i], c))
		}
		v.Rows = append(v.Rows, kr)
	}
	h.render(w, r, http.StatusOK, pages.Kartu(v))
}

// kartuOverview is the plan's classes, each period's paid and billed counts.
func (h *Handler) kartuOverview(w http.ResponseWriter, r *http.Request, p plans.Plan, v pages.KartuView) {
	ctx := r.Context()
	sums, _, err := h.plans.Overview(ctx, p)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	for _, s := range sums {
		if s.Class == "" {
			continue
		}
		v.Overview = append(v.Overview, pages.KartuClass{Class: s.Class, URL: kartuURL(p.ID, s.Class), Students: s.Students,
			Billed: s.Billed, Paid: s.Paid, Amount: s.Amount, Collected: s.AmountPaid})
	}
	h.render(w, r, http.StatusOK, pages.Kartu(v))
}

// periodShort is a period's column head: "Jul" over "2026", "Jul–Des" over "2026",
// "Cicilan" over "1/3".
func periodShort(ctx context.Context, pe plans.Period) pages.PeriodHead {
	lang := i18n.From(ctx).Lang
	switch {
	case pe.Parts > 1:
		return pages.PeriodHead{Top: i18n.T(ctx, "plans.kartu.part"), Sub: strconv.Itoa(pe.Part) + "/" + strconv.Itoa(pe.Parts)}
	case pe.Months > 1:
		return pages.PeriodHead{Top: i18n.MonthShort(lang, pe.Month.Month()) + "–" + i18n.MonthShort(lang, pe.Last().Month()),
			Sub: strconv.Itoa(pe.Last().Year())}
	}
	return pages.PeriodHead{Top: i18n.MonthShort(lang, pe.Month.Month()), Sub: strconv.Itoa(pe.Month.Year())}
}

// shortDay is a day without its year: "12 Jul".
func shortDay(pr i18n.Printer, day time.Time) string {
	_, m, d := day.UTC().Date()
	return strconv.Itoa(d) + " " + i18n.MonthShort(pr.Lang, m)
}

// kartuCell words a cell: the day it was paid, or its state; its title in full.
func kartuCell(ctx context.Context, pr i18n.Printer, pe plans.Period, c plans.Cell) pages.KartuCell {
	kc := pages.KartuCell{State: string(c.State), Text: i18n.T(ctx, "plans.cell_short."+string(c.State)),
		Title: pe.Name + " · " + reports.KartuCellText(pr, c)}
	switch c.State {
	case plans.CellPaid:
		kc.Text = shortDay(pr, c.PaidOn)
		kc.Title += " · " + i18n.Rupiah(c.Paid)
	case plans.CellUnpaid, plans.CellLate:
		kc.Title += " · " + i18n.Rupiah(c.Price)
	}
	if c.Parts > 1 {
		kc.Parts = strconv.Itoa(c.PaidParts) + "/" + strconv.Itoa(c.Parts)
	}
	return kc
}
