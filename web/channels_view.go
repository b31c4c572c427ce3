package web

import (
	"context"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/reports"
	"github.com/sekolah/portal/views/pages"
)

// channelSum shapes one channel's (or every channel's) receipts for the pages.
func channelSum(ctx context.Context, t reports.ChannelTotal) pages.ChannelSum {
	s := pages.ChannelSum{Channel: string(t.Channel), Payments: t.Payments, Paid: t.Paid, AdminFee: t.AdminFee}
	if t.Channel != "" {
		s.Label = reports.ChannelLabel(i18n.From(ctx), t.Channel)
	}
	return s
}

// notes says whether a report's figures have payments of a channel not known, and admin
// fees, which the pages explain.
func channelNotes(rep reports.ChannelReport) (unknown, fees bool) {
	for _, c := range rep.Channels {
		unknown = unknown || c.Channel == ledger.ChannelUnknown
	}
	return unknown, rep.Total.AdminFee > 0
}

// dashboardChannels is today's and this month's receipts by channel for the dashboard;
// nil (the card left out, the rest of the dashboard shown) when they cannot be read.
func (h *Handler) dashboardChannels(ctx context.Context) *pages.DashboardChannels {
	rep, err := h.reports.MonthChannels(ctx)
	if err != nil {
		h.log.Error("dashboard receipts by channel", "err", err)
		return nil
	}
	today := rep.Period(rep.To)
	v := &pages.DashboardChannels{Today: channelSum(ctx, today.Total), Month: channelSum(ctx, rep.Total),
		ReportURL: paymentsURL(rep.From, rep.To, "")}
	v.Unknown, v.Fees = channelNotes(rep)
	for _, c := range rep.Channels {
		v.Rows = append(v.Rows, pages.ChannelToday{Channel: string(c.Channel), Label: reports.ChannelLabel(i18n.From(ctx), c.Channel),
			Today: channelSum(ctx, today.Of(c.Channel)), Month: channelSum(ctx, c)})
	}
	return v
}

// channelBreakdown is the payments report's receipts by channel.
func channelBreakdown(ctx context.Context, rep reports.ChannelReport) *pages.ChannelBreakdown {
	v := &pages.ChannelBreakdown{Total: channelSum(ctx, rep.Total)}
	v.Unknown, v.Fees = channelNotes(rep)
	for _, c := range rep.Channels {
		v.Channels = append(v.Channels, channelSum(ctx, c))
	}
	for _, c := range rep.Used {
		v.Columns = append(v.Columns, channelSum(ctx, reports.ChannelTotal{Channel: c}))
	}
	period := func(p reports.ChannelPeriod, month bool) pages.ChannelPeriod {
		out := pages.ChannelPeriod{Start: p.Start, Month: month, Total: channelSum(ctx, p.Total)}
		for _, c := range rep.Used {
			out.Cells = append(out.Cells, channelSum(ctx, p.Of(c)))
		}
		return out
	}
	for _, p := range rep.Months {
		v.Months = append(v.Months, period(p, true))
	}
	for _, p := range rep.Days {
		v.Days = append(v.Days, period(p, false))
	}
	return v
}

// paymentWhere says where one payment of the list was made: its channel, and the
// merchant's name (as the callback sent it) or the counter's cashier.
func paymentWhere(ctx context.Context, r ledger.PaymentRow) (channel, label, where string) {
	p := i18n.From(ctx)
	switch {
	case r.Channel == ledger.ChannelCounter && r.Cashier != "":
		where = p.T("channels.cashier", r.Cashier)
	case r.Merchant != "" && r.Merchant != reports.ChannelLabel(p, r.Channel):
		where = r.Merchant
	}
	if r.AdminFee > 0 {
		fee := p.T("channels.fee_of", i18n.Rupiah(r.AdminFee))
		if where != "" {
			where += " · " + fee
		} else {
			where = fee
		}
	}
	return string(r.Channel), reports.ChannelLabel(p, r.Channel), where
}
