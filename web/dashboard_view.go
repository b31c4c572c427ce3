package web

import (
	"context"
	"fmt"
	"time"

	"github.com/sekolah/portal/internal/billlist"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/reports"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
)

// percent shows tenths of a percent: "52,0%" (Indonesian) or "52.0%".
func percent(ctx context.Context, permille int64) string {
	sep := ","
	if i18n.From(ctx).Lang == i18n.English {
		sep = "."
	}
	return fmt.Sprintf("%d%s%d%%", permille/10, sep, permille%10)
}

// compact shows an amount for a chart axis: "2,5 jt", "750 rb" ("2.5M", "750k").
func compact(ctx context.Context, v int64) string {
	p := i18n.From(ctx)
	sep := ","
	if p.Lang == i18n.English {
		sep = "."
	}
	for _, u := range []struct {
		unit int64
		key  string
	}{{1_000_000_000, "dashboard.axis.billion"}, {1_000_000, "dashboard.axis.million"}, {1_000, "dashboard.axis.thousand"}} {
		if v >= u.unit {
			whole, frac := v/u.unit, v%u.unit*10/u.unit
			s := i18n.Number(whole)
			if frac != 0 && whole < 100 {
				s += sep + fmt.Sprint(frac)
			}
			return p.T(u.key, s)
		}
	}
	return i18n.Number(v)
}

// dashboardView shapes the dashboard's figures for the page.
func dashboardView(ctx context.Context, d reports.Dashboard) pages.DashboardView {
	p := i18n.From(ctx)
	today := d.Today
	yesterday := today.AddDate(0, 0, -1)
	v := pages.DashboardView{Today: today, Ready: true}

	rate, rateSub := "—", p.T("dashboard.rate_none")
	if r, ok := d.RatePermille(); ok {
		rate = percent(ctx, r)
		rateSub = p.T("dashboard.rate_sub", i18n.Rupiah(d.PaidDueMonth.Amount), i18n.Rupiah(d.DueMonth.Amount))
	}
	v.Cards = []pages.StatCard{
		{TestID: "card-collected-today", Label: p.T("dashboard.collected_today"), Value: i18n.Rupiah(d.CollectedToday.Amount),
			Sub: p.T("dashboard.payments", d.CollectedToday.Count), Href: paymentsURL(today, today, ""), Variant: "success"},
		{TestID: "card-collected-month", Label: p.T("dashboard.collected_month"), Value: i18n.Rupiah(d.CollectedMonth.Amount),
			Sub: p.T("dashboard.payments", d.CollectedMonth.Count), Href: paymentsURL(d.MonthStart, today, ""), Variant: "success"},
		{TestID: "card-collected-year", Label: p.T("dashboard.collected_year"), Value: i18n.Rupiah(d.CollectedYear.Amount),
			Sub:  p.T("dashboard.year_span", p.Day(d.YearStart)) + " · " + p.T("dashboard.payments", d.CollectedYear.Count),
			Href: paymentsURL(d.YearStart, today, ""), Variant: "success"},
		{TestID: "card-outstanding", Label: p.T("dashboard.outstanding"), Value: i18n.Rupiah(d.Outstanding.Amount),
			Sub: p.T("dashboard.outstanding_sub", d.Outstanding.Count), Href: outstandingURL("", "", time.Time{}, time.Time{})},
		{TestID: "card-not-due", Label: p.T("dashboard.not_due"), Value: i18n.Rupiah(d.NotYetDue.Amount),
			Sub: p.T("dashboard.count_items", d.NotYetDue.Count), Href: outstandingURL("", "", today, time.Time{})},
		{TestID: "card-overdue", Label: p.T("dashboard.overdue"), Value: i18n.Rupiah(d.Overdue.Amount),
			Sub: p.T("dashboard.overdue_sub", d.Overdue.Count, i18n.Rupiah(d.OverduePenalty)), Href: outstandingURL("", "", time.Time{}, yesterday), Variant: "danger"},
		{TestID: "card-expired", Label: p.T("dashboard.expired"), Value: i18n.Rupiah(d.Expired.Amount),
			Sub: p.T("dashboard.expired_sub", d.Expired.Count), Href: billsURL(billlist.Filter{State: billlist.StateExpired}), Variant: "neutral"},
		{TestID: "card-rate", Label: p.T("dashboard.rate"), Value: rate, Sub: rateSub,
			Href: billsURL(billlist.Filter{State: billlist.StateAll, DueFrom: dayParam(d.MonthStart), DueTo: dayParam(reports.MonthEnd(today))}), Variant: "warning"},
	}

	// Collections per month, stacked by account code (the largest first; past the
	// colours, the rest fold into "other").
	series := []components.Series{}
	classOf := make([]int, len(d.Accounts))
	for i, code := range d.Accounts {
		if i < components.MaxSeries-1 || len(d.Accounts) == components.MaxSeries {
			series = append(series, components.Series{Label: code, Class: i + 1})
			classOf[i] = i + 1
			continue
		}
		if i == components.MaxSeries-1 {
			series = append(series, components.Series{Label: p.T("dashboard.chart.other"), Class: components.MaxSeries})
		}
		classOf[i] = components.MaxSeries
	}
	cols := components.ColumnChart{ID: "chart-collections", Series: series,
		Title: p.T("dashboard.chart.collections", fmt.Sprintf("%d/%d", d.YearStart.Year(), d.YearStart.Year()+1))}
	for _, m := range d.Months {
		monthEnd := reports.MonthEnd(m.Month)
		label := i18n.MonthShort(p.Lang, m.Month.Month())
		col := components.ChartColumn{Label: label}
		byClass := map[int]*components.Segment{}
		for i, amount := range m.ByAccount {
			if amount == 0 {
				continue
			}
			cl := classOf[i]
			if s := byClass[cl]; s != nil {
				s.Value += amount
				s.Title = p.T("dashboard.chart.bar_title", label+" · "+p.T("dashboard.chart.other"), i18n.Rupiah(s.Value))
				s.Href = paymentsURL(m.Month, monthEnd, "")
				continue
			}
			col.Segments = append(col.Segments, components.Segment{Value: amount, Class: cl,
				Title: p.T("dashboard.chart.bar_title", label+" · "+d.Accounts[i], i18n.Rupiah(amount)),
				Href:  paymentsURL(m.Month, monthEnd, d.Accounts[i])})
			byClass[cl] = &col.Segments[len(col.Segments)-1]
		}
		cols.Columns = append(cols.Columns, col)
	}
	v.Collections = components.LayoutColumns(cols, func(x int64) string { return compact(ctx, x) })

	aging := components.BarChart{ID: "chart-aging", Title: p.T("dashboard.chart.aging")}
	for i, b := range d.Buckets {
		label := p.T("reports.bucket." + b.Key)
		aging.Bars = append(aging.Bars, components.Bar{Label: label, Value: i18n.Rupiah(b.Sum.Amount),
			Segment: components.Segment{Value: b.Sum.Amount, Class: agingClass(i),
				Title: p.T("dashboard.chart.bar_title", label, i18n.Rupiah(b.Sum.Amount)),
				Href:  outstandingURL("", "", b.DueFrom, b.DueTo)}})
	}
	v.Aging = components.LayoutBars(aging)

	classes := components.BarChart{ID: "chart-classes", Title: p.T("dashboard.chart.classes")}
	for _, c := range d.TopClasses {
		label, filter := reports.ClassLabel(p, c.Class), c.Class
		if filter == "" {
			filter = reports.NoClass
		}
		classes.Bars = append(classes.Bars, components.Bar{Label: label, Value: i18n.Rupiah(c.Amount),
			Segment: components.Segment{Value: c.Amount, Class: 4,
				Title: p.T("dashboard.chart.bar_title", label+" · "+p.T("dashboard.students_in_class", c.Students), i18n.Rupiah(c.Amount)),
				Href:  outstandingURL(filter, "", time.Time{}, yesterday)}})
	}
	v.Classes = components.LayoutBars(classes)

	for _, g := range d.DueSoon {
		v.DueSoon = append(v.DueSoon, pages.DueSoonRow{
			Due: g.Due, DaysLate: reports.DaysBetween(g.Due, today), Name: g.Name, Account: g.Account,
			Count: g.Sum.Count, Amount: g.Sum.Amount, Reminder: g.Reminder, ReminderSent: !g.Reminder.After(today),
			Href: billsURL(billlist.Filter{State: billlist.StateOutstanding, Account: g.Account, DueFrom: dayParam(g.Due), DueTo: dayParam(g.Due)}),
		})
	}
	for _, a := range d.TopArrears {
		v.TopArrears = append(v.TopArrears, pages.ArrearsRow{
			NIS: a.NIS, Name: a.Name, Class: reports.ClassLabel(p, a.Class), Count: a.Count, Amount: a.Amount,
			OldestDays: reports.DaysBetween(a.OldestDue, today), StudentHref: studentURL(a.NIS), StatementHref: statementURL(a.NIS),
		})
	}
	return v
}

// agingClass colours the age buckets from calm to alarming.
func agingClass(bucket int) int {
	return [...]int{1, 3, 3, 4, 4}[bucket]
}

// freshness tells the page how old its figures are; warning is a refresh that failed,
// whose detail the reports service has logged.
func (h *Handler) freshness(ctx context.Context, at time.Time, warning error, action string) pages.Freshness {
	f := pages.Freshness{At: at, Now: h.now(), Action: action}
	if warning != nil {
		f.Warning = i18n.T(ctx, "dashboard.stale", i18n.From(ctx).DateTime(at), h.upstreamMessage(ctx, warning, false))
	}
	return f
}
