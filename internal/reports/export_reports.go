package reports

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
)

// ClassLabel is how a class shows: the roster's description, or "no class".
func ClassLabel(p i18n.Printer, class string) string {
	if class == "" {
		return p.T("reports.no_class")
	}
	return class
}

// AccountLabel is how an account filter shows: the code, or "all".
func AccountLabel(p i18n.Printer, account string) string {
	if account == "" {
		return p.T("term.all")
	}
	return account
}

// RangeLabel shows a range of days, either end open.
func RangeLabel(p i18n.Printer, from, to time.Time) string {
	switch {
	case from.IsZero() && to.IsZero():
		return p.T("term.all")
	case from.IsZero():
		return p.T("reports.until", p.Day(to))
	case to.IsZero():
		return p.T("reports.since", p.Day(from))
	case from.Equal(to):
		return p.Day(from)
	}
	return p.Day(from) + " – " + p.Day(to)
}

// Filename is the download name of an export: ASCII, the report's name, its filters and,
// for a CSV, its flavour.
func Filename(report string, format Format, parts ...string) string {
	name := report
	for _, p := range parts {
		if p = strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.':
				return r
			}
			return '_'
		}, p); p != "" {
			name += "_" + p
		}
	}
	if f := format.Flavour(); f != "" {
		name += "_" + f
	}
	return name + "." + format.Ext()
}

// exporter runs one export: the writer, and whether the response has started.
type exporter struct {
	w       tableWriter
	started bool
}

func newExporter(ex Export) (*exporter, error) {
	w, err := newTableWriter(ex)
	if err != nil {
		return nil, err
	}
	return &exporter{w: w}, nil
}

// begin starts the first table once, when the first data is there (or at the end).
func (e *exporter) begin(t table) error {
	if e.started {
		return nil
	}
	e.started = true
	return e.w.begin(t)
}

// finish ends the table and the file.
func (e *exporter) finish(t table) error {
	if err := e.begin(t); err != nil {
		return err
	}
	return e.w.end()
}

// PaymentsFilename is the download name of the payments report.
func PaymentsFilename(f PaymentsFilter, format Format) string {
	return Filename("laporan-pembayaran", format, f.From.Format(time.DateOnly), f.To.Format(time.DateOnly), f.Account)
}

func paymentsTable(p i18n.Printer, f PaymentsFilter) table {
	return table{
		Sheet: p.T("reports.sheet.payments"),
		Title: p.T("reports.payments.title"),
		Filters: []Filter{
			{p.T("term.period"), RangeLabel(p, f.From, f.To)},
			{p.T("term.account_code"), AccountLabel(p, f.Account)},
		},
		Columns: []Column{
			{Title: p.T("term.paid_date"), Kind: KindDate, Width: 13},
			{Title: p.T("reports.paid_time"), Kind: KindTime, Width: 9},
			{Title: p.T("term.nis"), Kind: KindID, Width: 14},
			{Title: p.T("term.student_name"), Width: 30},
			{Title: p.T("term.class"), Width: 12},
			{Title: p.T("term.component"), Width: 32},
			{Title: p.T("term.account_code"), Width: 13},
			{Title: p.T("term.amount"), Kind: KindMoney, Width: 16, Total: true},
			{Title: p.T("reports.penalty_part"), Kind: KindMoney, Width: 14, Total: true},
			{Title: p.T("term.amount_paid"), Kind: KindMoney, Width: 17, Total: true},
			{Title: p.T("term.ref_number"), Width: 24},
			{Title: p.T("reports.col.channel"), Width: 16},
			{Title: p.T("reports.col.merchant"), Width: 18},
			{Title: p.T("reports.col.merchant_ref"), Width: 20},
			{Title: p.T("reports.col.cashier"), Width: 18},
			{Title: p.T("reports.col.admin_fee"), Kind: KindMoney, Width: 13, Total: true},
		},
		TotalLabel: p.T("term.total"),
	}
}

// ChannelLabel is how a channel shows.
func ChannelLabel(p i18n.Printer, c ledger.Channel) string { return p.T("channel." + string(c)) }

// paymentValues fills v with one payment: the day and the time of day are the school's
// (loc), so a payment at 23:30 in Jakarta is on that day, at 23:30. A payment's admin fee
// is on its first row only (first: the row starts a payment), so the column adds up to
// the fees paid.
func paymentValues(v []any, r ledger.PaymentRow, first bool, p i18n.Printer, loc *time.Location) {
	v[0], v[1], v[2], v[3], v[4], v[5] = r.Day, ClockOf(r.PaidAt, loc), r.NIS, r.Name, ClassLabel(p, r.Class), r.Component
	v[6], v[7], v[8], v[9], v[10] = r.Account, r.Amount, r.Penalty, r.Paid, r.Ref
	v[11], v[12], v[13], v[14], v[15] = ChannelLabel(p, r.Channel), r.Merchant, r.MerchantRef, r.Cashier, int64(0)
	if first {
		v[15] = r.AdminFee
	}
}

// paymentKey is what makes a row part of a payment of its day: its student and reference
// (a component paid without one is a payment of its own: the zero key).
type paymentKey struct{ nis, ref string }

func keyOf(r ledger.PaymentRow) paymentKey {
	if r.Ref == "" {
		return paymentKey{}
	}
	return paymentKey{r.NIS, r.Ref}
}

func channelsTable(p i18n.Printer, f PaymentsFilter, month bool) table {
	t := table{
		Sheet: p.T("reports.sheet.channels"),
		Title: p.T("reports.payments.channels"),
		Filters: []Filter{
			{p.T("term.period"), RangeLabel(p, f.From, f.To)},
			{p.T("term.account_code"), AccountLabel(p, f.Account)},
		},
		Columns: []Column{
			{Title: p.T("term.date"), Kind: KindDate, Width: 13},
			{Title: p.T("reports.col.channel"), Width: 18},
			{Title: p.T("channels.payments"), Kind: KindInt, Width: 12, Total: true},
			{Title: p.T("term.amount_paid"), Kind: KindMoney, Width: 18, Total: true},
			{Title: p.T("reports.col.admin_fee"), Kind: KindMoney, Width: 14, Total: true},
		},
		TotalLabel: p.T("term.total"),
	}
	if month {
		t.Sheet, t.Title = p.T("reports.sheet.channels_month"), p.T("reports.payments.channels_month")
		t.Columns[0] = Column{Title: p.T("reports.col.month"), Width: 16}
	}
	return t
}

// exportChannels writes the xlsx's sheets of receipts by day and channel and by month and
// channel.
func (s *Service) exportChannels(ctx context.Context, e *exporter, f PaymentsFilter, p i18n.Printer) error {
	rep, err := s.Channels(ctx, f)
	if err != nil {
		return err
	}
	for _, month := range []bool{false, true} {
		t := channelsTable(p, f, month)
		if err := e.w.begin(t); err != nil {
			return err
		}
		v := make([]any, len(t.Columns))
		periods := rep.Days
		if month {
			periods = rep.Months
		}
		for _, d := range periods {
			for _, c := range d.Channels {
				v[0] = any(d.Start)
				if month {
					v[0] = p.MonthYear(d.Start)
				}
				v[1], v[2], v[3], v[4] = ChannelLabel(p, c.Channel), c.Payments, c.Paid, c.AdminFee
				if err := e.w.row(v); err != nil {
					return err
				}
			}
		}
		if err := e.w.end(); err != nil {
			return err
		}
	}
	return nil
}

func dailyTable(p i18n.Printer, f PaymentsFilter) table {
	return table{
		Sheet: p.T("reports.sheet.daily"),
		Title: p.T("reports.payments.daily"),
		Filters: []Filter{
			{p.T("term.period"), RangeLabel(p, f.From, f.To)},
			{p.T("term.account_code"), AccountLabel(p, f.Account)},
		},
		Columns: []Column{
			{Title: p.T("term.date"), Kind: KindDate, Width: 13},
			{Title: p.T("reports.payments_count"), Kind: KindInt, Width: 12, Total: true},
			{Title: p.T("term.amount"), Kind: KindMoney, Width: 18, Total: true},
			{Title: p.T("reports.penalty_part"), Kind: KindMoney, Width: 16, Total: true},
			{Title: p.T("term.amount_paid"), Kind: KindMoney, Width: 18, Total: true},
		},
		TotalLabel: p.T("term.total"),
	}
}

// ExportPayments streams the payments of f into ex: every payment as it is read, day by
// day; the xlsx also gets a sheet of daily totals.
func (s *Service) ExportPayments(ctx context.Context, f PaymentsFilter, ex Export) error {
	if err := f.Check(); err != nil {
		return err
	}
	e, err := newExporter(ex)
	if err != nil {
		return err
	}
	defer e.w.discard()
	t := paymentsTable(ex.Printer, f)
	vals := make([]any, len(t.Columns))
	// The payments of the day being written: a payment's fee goes on its first row (a day
	// at a time, so what is kept is one day's references).
	var day time.Time
	seen := map[paymentKey]bool{}
	days, _, err := s.eachPayment(ctx, f, func(r ledger.PaymentRow) error {
		if err := e.begin(t); err != nil {
			return err
		}
		if !r.Day.Equal(day) {
			day = r.Day
			clear(seen)
		}
		k := keyOf(r)
		first := k == paymentKey{} || !seen[k]
		if k != (paymentKey{}) {
			seen[k] = true
		}
		paymentValues(vals, r, first, ex.Printer, s.Location())
		return e.w.row(vals)
	})
	if err != nil {
		return err
	}
	if err := e.finish(t); err != nil {
		return err
	}
	if e.w.more() {
		dt := dailyTable(ex.Printer, f)
		if err := e.w.begin(dt); err != nil {
			return err
		}
		v := make([]any, len(dt.Columns))
		for _, d := range days {
			v[0], v[1], v[2], v[3], v[4] = d.Day, d.Count, d.Amount, d.Penalty, d.Paid
			if err := e.w.row(v); err != nil {
				return err
			}
		}
		if err := e.w.end(); err != nil {
			return err
		}
		if err := s.exportChannels(ctx, e, f, ex.Printer); err != nil {
			return err
		}
	}
	return e.w.close()
}

// OutstandingFilename is the download name of the arrears report ("…-semua" with every
// unpaid component).
func OutstandingFilename(f ledger.OutstandingFilter, today time.Time, format Format) string {
	scope := "semua"
	if f.Overdue {
		scope = ""
	}
	return Filename("laporan-tunggakan", format, today.Format(time.DateOnly), scope, f.Class, f.Account, dayKey(f.DueFrom), dayKey(f.DueTo))
}

func outstandingTable(p i18n.Printer, f ledger.OutstandingFilter, today time.Time) table {
	class := p.T("term.all")
	switch f.Class {
	case "":
	case ledger.NoClass:
		class = ClassLabel(p, "")
	default:
		class = f.Class
	}
	scope := p.T("reports.outstanding.showing_all")
	if f.Overdue {
		scope = p.T("reports.outstanding.showing_late")
	}
	cols := []Column{
		{Title: p.T("term.nis"), Kind: KindID, Width: 14},
		{Title: p.T("term.student_name"), Width: 30},
		{Title: p.T("term.class"), Width: 12},
		{Title: p.T("reports.components"), Kind: KindInt, Width: 11, Total: true},
		{Title: p.T("term.overdue"), Kind: KindMoney, Width: 16, Total: true},
	}
	if !f.Overdue {
		cols = append(cols,
			Column{Title: p.T("term.not_due"), Kind: KindMoney, Width: 18, Total: true},
			Column{Title: p.T("term.unpaid"), Kind: KindMoney, Width: 16, Total: true})
	}
	cols = append(cols,
		Column{Title: p.T("term.penalty"), Kind: KindMoney, Width: 14, Total: true},
		Column{Title: p.T("term.expired"), Kind: KindMoney, Width: 15, Total: true},
		Column{Title: p.T("reports.outstanding.oldest"), Kind: KindDate, Width: 14},
		Column{Title: p.T("term.days_late"), Kind: KindInt, Width: 12},
		Column{Title: p.T("followups.last"), Width: 34},
	)
	return table{
		Sheet: p.T("reports.sheet.outstanding"),
		Title: p.T("reports.outstanding.title"),
		Filters: []Filter{
			{p.T("reports.as_of"), p.Day(today)},
			{p.T("reports.outstanding.scope"), scope},
			{p.T("term.class"), class},
			{p.T("term.account_code"), AccountLabel(p, f.Account)},
			{p.T("term.due_date"), RangeLabel(p, f.DueFrom, f.DueTo)},
		},
		Columns:    cols,
		TotalLabel: p.T("term.total"),
	}
}

func outstandingValues(v []any, r ledger.OutstandingRow, f ledger.OutstandingFilter, today time.Time, p i18n.Printer) {
	row := []any{r.NIS, r.Name, ClassLabel(p, r.Class), r.Count, r.Overdue}
	if !f.Overdue {
		row = append(row, r.Total-r.Overdue, r.Total)
	}
	var days any = ""
	if r.DaysLate > 0 {
		days = r.DaysLate
	}
	last := ""
	if fu := r.LastFollowUp; fu.ID != "" {
		by := fu.ActorName
		if by == "" {
			by = fu.Actor
		}
		last = p.DateTime(fu.At) + ", " + p.T("followups.channel."+fu.Channel) + ", " + by
	}
	copy(v, append(row, r.Penalty, r.Expired, r.OldestDue, days, last))
}

// ExportOutstanding writes the outstanding report of f into ex. The rows are one per
// student, grouped by the ledger in SQL (bounded by the roster, not the bills).
func (s *Service) ExportOutstanding(ctx context.Context, f ledger.OutstandingFilter, ex Export) error {
	if err := f.Check(); err != nil {
		return err
	}
	rep, err := s.l.Outstanding(ctx, f)
	if err != nil {
		return err
	}
	today := rep.Today
	e, err := newExporter(ex)
	if err != nil {
		return err
	}
	defer e.w.discard()
	t := outstandingTable(ex.Printer, f, today)
	if err := e.begin(t); err != nil {
		return err
	}
	vals := make([]any, len(t.Columns))
	for _, r := range rep.Rows {
		outstandingValues(vals, r, f, today, ex.Printer)
		if err := e.w.row(vals); err != nil {
			return err
		}
	}
	if err := e.finish(t); err != nil {
		return err
	}
	return e.w.close()
}

// StatementFilename is the download name of a student's statement.
func StatementFilename(nis string, today time.Time, format Format) string {
	return Filename("rincian-tagihan", format, nis, today.Format(time.DateOnly))
}

func statementTable(p i18n.Printer, st Statement) table {
	return table{
		Sheet: p.T("reports.sheet.statement"),
		Title: p.T("reports.statement.title"),
		Filters: []Filter{
			{p.T("term.nis"), st.NIS},
			{p.T("term.student_name"), st.Name},
			{p.T("term.class"), ClassLabel(p, st.Class)},
			{p.T("reports.as_of"), p.Day(st.Today)},
		},
		Columns: []Column{
			{Title: p.T("term.due_date"), Kind: KindDate, Width: 13},
			{Title: p.T("term.component"), Width: 32},
			{Title: p.T("term.account_code"), Width: 13},
			{Title: p.T("term.amount"), Kind: KindMoney, Width: 16, Total: true},
			{Title: p.T("term.penalty"), Kind: KindMoney, Width: 13},
			{Title: p.T("term.state"), Width: 14},
			{Title: p.T("term.paid_date"), Kind: KindDate, Width: 13},
			{Title: p.T("term.amount_paid"), Kind: KindMoney, Width: 17, Total: true},
			{Title: p.T("term.ref_number"), Width: 24},
			{Title: p.T("reports.due_today"), Kind: KindMoney, Width: 18, Total: true},
			{Title: p.T("reports.running_total"), Kind: KindMoney, Width: 18},
		},
		TotalLabel: p.T("term.total"),
	}
}

// ExportStatement writes one student's statement into ex.
func (s *Service) ExportStatement(ctx context.Context, nis string, ex Export) error {
	st, err := s.computeStatement(ctx, nis)
	if err != nil {
		return err
	}
	e, err := newExporter(ex)
	if err != nil {
		return err
	}
	defer e.w.discard()
	t := statementTable(ex.Printer, st)
	if err := e.begin(t); err != nil {
		return err
	}
	v := make([]any, len(t.Columns))
	for _, r := range st.Rows {
		paidDay := time.Time{}
		if !r.PaidAt.IsZero() {
			paidDay = billing.DayIn(r.PaidAt, s.Location())
		}
		v[0], v[1], v[2], v[3], v[4], v[5] = r.Due, r.Component, r.Account, r.Amount, r.Penalty, ex.Printer.T("state."+string(r.Status))
		v[6], v[7], v[8], v[9], v[10] = paidDay, r.Paid, r.Ref, r.DueToday, r.Running
		if err := e.w.row(v); err != nil {
			return err
		}
	}
	if err := e.finish(t); err != nil {
		return err
	}
	return e.w.close()
}

// AccountsFilename is the download name of the per account code summary.
func AccountsFilename(f PaymentsFilter, format Format) string {
	return Filename("ringkasan-rekening", format, f.From.Format(time.DateOnly), f.To.Format(time.DateOnly))
}

func accountsTable(p i18n.Printer, f PaymentsFilter, today time.Time) table {
	return table{
		Sheet: p.T("reports.sheet.accounts"),
		Title: p.T("reports.accounts.title"),
		Filters: []Filter{
			{p.T("term.period"), RangeLabel(p, f.From, f.To)},
			{p.T("reports.as_of"), p.Day(today)},
		},
		Columns: []Column{
			{Title: p.T("term.account_code"), Width: 16},
			{Title: p.T("reports.payments_count"), Kind: KindInt, Width: 12, Total: true},
			{Title: p.T("term.amount"), Kind: KindMoney, Width: 18, Total: true},
			{Title: p.T("reports.penalty_part"), Kind: KindMoney, Width: 16, Total: true},
			{Title: p.T("reports.received"), Kind: KindMoney, Width: 18, Total: true},
			{Title: p.T("reports.bucket.not_due"), Kind: KindMoney, Width: 18, Total: true},
			{Title: p.T("reports.overdue_now"), Kind: KindMoney, Width: 18, Total: true},
			{Title: p.T("reports.outstanding_now"), Kind: KindMoney, Width: 18, Total: true},
		},
		TotalLabel: p.T("term.total"),
	}
}

// ExportAccounts writes the per account code summary into ex.
func (s *Service) ExportAccounts(ctx context.Context, f PaymentsFilter, ex Export) error {
	rep, err := s.computeAccounts(ctx, f)
	if err != nil {
		return err
	}
	today := rep.Today
	e, err := newExporter(ex)
	if err != nil {
		return err
	}
	defer e.w.discard()
	t := accountsTable(ex.Printer, rep.Filter, today)
	if err := e.begin(t); err != nil {
		return err
	}
	v := make([]any, len(t.Columns))
	for _, r := range rep.Rows {
		v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7] = r.Account, r.Payments, r.Amount, r.Penalty, r.Paid, r.NotYetDue, r.Overdue, r.Outstanding
		if err := e.w.row(v); err != nil {
			return fmt.Errorf("reports: accounts export: %w", err)
		}
	}
	if err := e.finish(t); err != nil {
		return err
	}
	return e.w.close()
}
