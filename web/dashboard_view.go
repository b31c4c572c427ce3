package web

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/sekolah/portal/internal/billlist"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
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
func dashboardView(ctx context.Context, d ledger.Dashboard) pages.DashboardView {
	p := i18n.From(ctx)
	today := d.Today
	yesterday := today.AddDate(0, 0, -1)
	v := pages.DashboardView{Today: today, Ready: true}

	// The lead: the principal's ten seconds. What is overdue, how much of this month's
	// bills is paid, and what came in this month, counted in payments (receipts).
	rate, rateSub := "—", p.T("dashboard.rate_none")
	if r, ok := d.RatePermille(); ok {
		rate = percent(ctx, r)
		rateSub = p.T("dashboard.rate_sub", i18n.Rupiah(d.PaidDueMonth.Amount), i18n.Rupiah(d.DueMonth.Amount))
	}
	overdueSub := p.T("words.dashboard.overdue_students", d.OverdueStudents, d.Overdue.Count)
	if d.OverduePenalty > 0 {
		overdueSub += " · " + p.T("words.dashboard.penalty_incl", i18n.Rupiah(d.OverduePenalty))
	}
	monthEnd := ledger.MonthEnd(today)
	// Arrears: the overdue bills and the expired ones, each named apart (an unpaid bill
	// past its expiry is still owed; the counter extends it and takes the payment).
	v.Lead = []pages.StatCard{
		{TestID: "card-arrears", Label: p.T("term.arrears"), Value: i18n.Rupiah(d.Arrears.Amount),
			Sub:  p.T("words.dashboard.arrears_sub", d.ArrearsStudents, i18n.Rupiah(d.Overdue.Amount), i18n.Rupiah(d.Expired.Amount)),
			Hint: p.T("words.dashboard.arrears_hint"), Href: outstandingURL("", "", time.Time{}, yesterday), Variant: "danger"},
		{TestID: "card-rate", Label: p.T("dashboard.rate"), Value: rate, Sub: rateSub,
			Hint: p.T("words.dashboard.rate_hint", p.Day(d.MonthStart), p.Day(monthEnd)),
			Href: billsURL(billlist.Filter{State: billlist.StateAll, DueFrom: dayParam(d.MonthStart), DueTo: dayParam(monthEnd)}), Variant: "warning"},
		{TestID: "card-collected-month", Label: p.T("words.dashboard.receipts_month"), Value: i18n.Rupiah(d.CollectedMonth.Amount),
			Sub:  p.T("words.dashboard.payments_items", d.PaymentsMonth, d.CollectedMonth.Count),
			Hint: p.T("words.dashboard.receipts_hint"), Href: paymentsURL(d.MonthStart, today, ""), Variant: "success"},
	}
	v.Cards = []pages.StatCard{
		{TestID: "card-overdue", Label: p.T("term.overdue"), Value: i18n.Rupiah(d.Overdue.Amount), Sub: overdueSub,
			Hint: p.T("words.dashboard.overdue_hint"), Href: outstandingURL("", "", time.Time{}, yesterday), Variant: "danger"},
		{TestID: "card-collected-today", Label: p.T("dashboard.collected_today"), Value: i18n.Rupiah(d.CollectedToday.Amount),
			Sub: p.T("words.dashboard.payments_items", d.PaymentsToday, d.CollectedToday.Count), Href: paymentsURL(today, today, ""), Variant: "success"},
		{TestID: "card-collected-year", Label: p.T("dashboard.collected_year"), Value: i18n.Rupiah(d.CollectedYear.Amount),
			Sub:  p.T("dashboard.year_span", p.Day(d.YearStart)) + " · " + p.T("words.items_paid", d.CollectedYear.Count),
			Href: paymentsURL(d.YearStart, today, ""), Variant: "success"},
		{TestID: "card-outstanding", Label: p.T("term.unpaid"), Value: i18n.Rupiah(d.Outstanding.Amount),
			Sub: p.T("dashboard.outstanding_sub", d.Outstanding.Count), Href: outstandingAllURL("", "", time.Time{}, time.Time{})},
		{TestID: "card-not-due", Label: p.T("term.not_due"), Value: i18n.Rupiah(d.NotYetDue.Amount),
			Sub: p.T("dashboard.count_items", d.NotYetDue.Count), Href: outstandingAllURL("", "", today, time.Time{})},
		{TestID: "card-expired", Label: p.T("term.expired"), Value: i18n.Rupiah(d.Expired.Amount),
			Sub: p.T("words.dashboard.expired_students", d.ExpiredStudents, d.Expired.Count), Hint: p.T("words.dashboard.expired_hint"),
			Href: billsURL(billlist.Filter{State: billlist.StateExpired}), Variant: "danger"},
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
		monthEnd := ledger.MonthEnd(m.Month)
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
				Href:  outstandingAllURL("", "", b.DueFrom, b.DueTo)}})
	}
	v.Aging = components.LayoutBars(aging)

	classes := components.BarChart{ID: "chart-classes", Title: p.T("dashboard.chart.classes")}
	for _, c := range d.TopClasses {
		label, filter := reports.ClassLabel(p, c.Class), c.Class
		if filter == "" {
			filter = ledger.NoClass
		}
		classes.Bars = append(classes.Bars, components.Bar{Label: label, Value: i18n.Rupiah(c.Amount),
			Segment: components.Segment{Value: c.Amount, Class: 4,
				Title: p.T("dashboard.chart.bar_title", label+" · "+p.T("dashboard.students_in_class", c.Students), i18n.Rupiah(c.Amount)),
				Href:  outstandingURL(filter, "", time.Time{}, yesterday)}})
	}
	v.Classes = components.LayoutBars(classes)

	for _, g := range d.DueSoon {
		v.DueSoon = append(v.DueSoon, pages.DueSoonRow{
			Due: g.Due, DaysLate: g.DaysLate, Name: g.Name, Account: g.Account,
			Count: g.Sum.Count, Amount: g.Sum.Amount, Reminder: g.Reminder, ReminderSent: !g.Reminder.After(today),
			Href: billsURL(billlist.Filter{State: billlist.StateOutstanding, Account: g.Account, DueFrom: dayParam(g.Due), DueTo: dayParam(g.Due)}),
		})
	}
	for _, a := range d.TopArrears {
		v.TopArrears = append(v.TopArrears, pages.ArrearsRow{
			NIS: a.NIS, Name: a.Name, Class: reports.ClassLabel(p, a.Class), Count: a.Count, Amount: a.Amount,
			OldestDays: a.DaysLate, StudentHref: studentURL(a.NIS), StatementHref: statementURL(a.NIS),
		})
	}
	return v
}

// agingClass colours the age buckets from calm to alarming.
func agingClass(bucket int) int {
	return [...]int{1, 3, 3, 4, 4}[bucket]
}

// freshness words how fresh the ledger's figures are for a page; action is where its
// "sync now" control posts (empty: none).
func (h *Handler) freshness(ctx context.Context, f ledger.Freshness, action string) pages.Freshness {
	p := i18n.From(ctx)
	now := h.now()
	v := pages.Freshness{Permille: -1, Action: action, Asked: !f.SyncAsked.IsZero()}
	problem := func() string {
		if f.Failing() {
			return p.T("ledger.problem." + cmp.Or(f.LastProblem, ledger.ProblemOther))
		}
		return p.T("ledger.problem.idle")
	}
	switch {
	case f.Fill == ledger.FillEmpty && !f.Failing():
		v.State, v.Text = pages.FreshEmpty, p.T("ledger.empty")
	case f.Filling():
		v.State = pages.FreshFilling
		if f.FillTotal > 0 {
			v.Permille = f.FillPermille()
			v.Text = p.T("ledger.filling", v.Permille/10, i18n.Number(int64(f.FillRead)), i18n.Number(int64(max(f.FillTotal, f.FillRead))))
		} else {
			v.Text = p.T("ledger.filling_count", i18n.Number(int64(f.FillRead)))
		}
		if f.Failing() {
			v.Text = p.T("ledger.filling_stopped", v.Text, p.Ago(now.Sub(f.LastEnd)), problem())
		}
	// One failed sync of a minute-old ledger is not worth a warning; a missed interval is.
	case f.Failing() && (f.SyncedAt.IsZero() || f.Age(now) > 2*h.sync.Every()) || h.syncLate(f, now):
		v.State = pages.FreshStale
		if f.SyncedAt.IsZero() {
			v.Text = p.T("ledger.stale_never", problem())
		} else {
			v.Text = p.T("ledger.stale", p.Ago(f.Age(now)), problem())
		}
	default:
		v.State, v.Text = pages.FreshUpToDate, p.T("ledger.fresh", h.clock(ctx, f.SyncedAt))
	}
	return v
}

// syncLate reports a ledger whose last good sync is much older than the interval and
// that no run is bringing up to date (every instance that syncs has stopped).
func (h *Handler) syncLate(f ledger.Freshness, now time.Time) bool {
	return !f.SyncedAt.IsZero() && !f.Running() && f.Age(now) > max(5*h.sync.Every(), 5*time.Minute)
}

// clock shows instant t as a time of day in the school's zone ("12.03"), with its date
// when it is not today.
func (h *Handler) clock(ctx context.Context, t time.Time) string {
	p := i18n.From(ctx)
	lt, now := h.clk.In(t), h.clk.Today()
	if y, m, d := lt.Date(); !(y == now.Year() && m == now.Month() && d == now.Day()) {
		return p.DateTime(t)
	}
	return p.T("ledger.clock", fmt.Sprintf("%02d", lt.Hour()), fmt.Sprintf("%02d", lt.Minute()))
}

// liveToken names the state of the ledger a page was made from: the change sequence
// (every write moves it on), the sync's state (what the freshness line says) and today
// (the figures that follow the date). A page whose token is still current is up to date.
func (h *Handler) liveToken(f ledger.Freshness) string {
	asked := 0
	if !f.SyncAsked.IsZero() {
		asked = 1
	}
	return fmt.Sprintf("%d.%d.%d.%d.%d.%s", f.ChangeSeq, f.SyncedAt.Unix(), f.LastEnd.Unix(), f.FillRead, asked,
		h.today().Format("20060102"))
}

// live is how a page asks whether it changed: url (ending in "?" or "&") with the token.
func (h *Handler) live(url, token string) pages.Live {
	return pages.Live{URL: url + "live=" + token, Every: fmt.Sprintf("every %ds, live:show", int(h.cfg.LiveEvery.Seconds()))}
}

// unchanged answers 204 to a page asking whether it changed (HTMX leaves the page as it
// is) when its token is still current.
func (h *Handler) unchanged(w http.ResponseWriter, r *http.Request, token string) bool {
	if !isPartial(r) || r.URL.Query().Get("live") != token {
		return false
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
	return true
}

// unconfirmedNotice says how many payments banks announced that the payment service has
// not confirmed yet (none of them is in a figure until it does); "" when none wait. A
// failure to count them is logged and leaves the notice out: the figures stand.
func (h *Handler) unconfirmedNotice(ctx context.Context) string {
	u, err := h.ledger.UnconfirmedPayments(ctx)
	if err != nil {
		h.log.Error("dashboard: count the payments announced but not confirmed", "err", err)
		return ""
	}
	if u.Count == 0 {
		return ""
	}
	p := i18n.From(ctx)
	return p.T("callbacks.unconfirmed", u.Count, i18n.Rupiah(u.Total), p.DateTime(u.Since))
}
