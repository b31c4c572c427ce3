package reports

import (
	"context"
	"fmt"
	"time"

	"github.com/sekolah/portal/internal/ledger"
)

// ChannelTotal is what one channel took over a period: payments (a reference's
// components are one payment), components, what they paid (the school's receipts) and
// the admin fees their callbacks stated (paid by parents to the provider on top).
type ChannelTotal struct {
	Channel    ledger.Channel // "" for a total of every channel
	Payments   int
	Components int
	Paid       int64
	AdminFee   int64
}

func (t *ChannelTotal) add(o ChannelTotal) {
	t.Payments += o.Payments
	t.Components += o.Components
	t.Paid += o.Paid
	t.AdminFee += o.AdminFee
}

// ChannelPeriod is what each channel took over one day or one month.
type ChannelPeriod struct {
	// Start is the day, or the first day of the month.
	Start time.Time
	// Channels are those with payments, in ledger.Channels' order.
	Channels []ChannelTotal
	// Total is every channel's.
	Total ChannelTotal
}

// Of is channel c's total in the period (zero when it took nothing).
func (p ChannelPeriod) Of(c ledger.Channel) ChannelTotal {
	for _, t := range p.Channels {
		if t.Channel == c {
			return t
		}
	}
	return ChannelTotal{Channel: c}
}

// ChannelReport breaks a range's receipts down by channel: per day, per month, and over
// the whole range. Its figures are the payments report's, so its totals are that
// report's.
type ChannelReport struct {
	From, To time.Time
	Days     []ChannelPeriod // days with payments only
	Months   []ChannelPeriod // months with payments only
	// Channels are the whole range's totals by channel, those with payments; Used every
	// channel that took a payment, in order (the columns of a table by day).
	Channels []ChannelTotal
	Used     []ledger.Channel
	Total    ChannelTotal
}

// Period is the day or month starting at start (zero when nothing came in).
func (r ChannelReport) Period(start time.Time) ChannelPeriod {
	for _, list := range [][]ChannelPeriod{r.Days, r.Months} {
		for _, p := range list {
			if p.Start.Equal(start) {
				return p
			}
		}
	}
	return ChannelPeriod{Start: start}
}

// channelReport adds the ledger's rows (a day and a channel each, in order) up by day, by
// month and over the range.
func channelReport(from, to time.Time, rows []ledger.ChannelDay) ChannelReport {
	r := ChannelReport{From: from, To: to}
	whole := map[ledger.Channel]*ChannelTotal{}
	for _, d := range rows {
		t := ChannelTotal{Channel: d.Channel, Payments: d.Payments, Components: d.Components, Paid: d.Paid, AdminFee: d.AdminFee}
		r.Days = addTo(r.Days, d.Day, t)
		r.Months = addTo(r.Months, ledger.MonthStart(d.Day), t)
		if whole[d.Channel] == nil {
			whole[d.Channel] = &ChannelTotal{Channel: d.Channel}
		}
		whole[d.Channel].add(t)
		r.Total.add(t)
	}
	for _, c := range ledger.Channels() {
		if t := whole[c]; t != nil {
			r.Channels = append(r.Channels, *t)
			r.Used = append(r.Used, c)
		}
	}
	return r
}

// addTo adds t to the period starting at start, the last one of ps or a new one after
// it (rows come in order of day, so of month too), its channels kept in order.
func addTo(ps []ChannelPeriod, start time.Time, t ChannelTotal) []ChannelPeriod {
	if len(ps) == 0 || !ps[len(ps)-1].Start.Equal(start) {
		ps = append(ps, ChannelPeriod{Start: start})
	}
	p := &ps[len(ps)-1]
	p.Total.add(t)
	for i := range p.Channels {
		if p.Channels[i].Channel == t.Channel {
			p.Channels[i].add(t)
			return ps
		}
	}
	p.Channels = append(p.Channels, t)
	for i := len(p.Channels) - 1; i > 0 && channelIndex(p.Channels[i].Channel) < channelIndex(p.Channels[i-1].Channel); i-- {
		p.Channels[i], p.Channels[i-1] = p.Channels[i-1], p.Channels[i]
	}
	return ps
}

func channelIndex(c ledger.Channel) int {
	for i, k := range ledger.Channels() {
		if k == c {
			return i
		}
	}
	return len(ledger.Channels())
}

// Channels is the receipts of f's range broken down by channel (the payments report's
// figures: f's account too).
func (s *Service) Channels(ctx context.Context, f PaymentsFilter) (ChannelReport, error) {
	if err := f.Check(); err != nil {
		return ChannelReport{}, err
	}
	rows, err := s.l.PaymentChannels(ctx, f.From, f.To, f.Account)
	if err != nil {
		return ChannelReport{}, fmt.Errorf("reports: payments by channel: %w", err)
	}
	return channelReport(f.From, f.To, rows), nil
}

// MonthChannels is this month's receipts by channel, up to today (the dashboard's
// breakdown: today's is its day, the month's its range).
func (s *Service) MonthChannels(ctx context.Context) (ChannelReport, error) {
	today := s.Today()
	return s.Channels(ctx, PaymentsFilter{From: ledger.MonthStart(today), To: today})
}
