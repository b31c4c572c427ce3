package web

import (
	"net/http"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/billlist"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
)

// listUpcomingBills shows the unpaid components due in the next days, grouped by day, with
// whether the service's reminder has gone out; read from the ledger.
func (h *Handler) listUpcomingBills(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	today := h.today()
	first, last := billlist.UpcomingRange(today)
	v := pages.BillsUpcomingView{First: first, Last: last, CanPay: can(ctx, auth.WriteBilling)}
	status := http.StatusOK
	var got []billing.Bill
	var err error
	for b, e := range h.ledger.All(ctx, billlist.UpcomingQuery(today)) {
		if e != nil {
			err = e
			break
		}
		got = append(got, b)
	}
	if err != nil {
		h.log.Error("upcoming bills from the ledger", "err", err)
		v.Notice, status = i18n.T(ctx, "ledger.unreadable"), http.StatusInternalServerError
	} else {
		u := billlist.GroupUpcoming(got, today)
		v.Count, v.Total, v.Reminded, v.RemindedSoon = u.Count, u.Total, u.Reminded, u.RemindedSoon
		for _, d := range u.Days {
			day := pages.BillsUpcomingDay{Day: d.Day, DaysAway: int(d.Day.Sub(first).Hours() / 24), Total: d.Total}
			for _, it := range d.Items {
				b := it.Bill
				day.Rows = append(day.Rows, pages.BillsUpcomingRow{
					ComponentID: b.ComponentID, NIS: b.NIS, StudentName: b.StudentName, Name: b.Name,
					AccountCode: b.AccountCode, Amount: b.Amount, Penalty: b.Penalty,
					ReminderSent: it.ReminderSent, ReminderDay: b.ReminderDay(), ReminderIn: it.ReminderIn,
					StudentURL: studentURL(b.NIS), PayURL: paymentNewURL(b.NIS),
				})
			}
			v.Days = append(v.Days, day)
		}
	}
	h.page(w, r, status, pages.BillsUpcoming(v), pages.BillsUpcomingResults(v))
}
