package web

import (
	"bytes"
	"net/http"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/billlist"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/uploads"
)

// exportBillsTemplate sends the outstanding (unpaid) bills the list's filter selects as a
// components upload template with each bill's ID Tagihan: a bursar corrects the cells in
// Excel and uploads the file back, which changes those bills. The open tabs (payable,
// expired) export what they show; the paid and all tabs export every unpaid bill the
// other filters select. A filter that cannot be read answers the list with its problems.
func (h *Handler) exportBillsTemplate(w http.ResponseWriter, r *http.Request) {
	req, probs := billlist.ParseFilter(r.URL.Query(), h.cfg.AccountCodes)
	if len(probs) > 0 {
		h.redirect(w, r, req.Filter.URL("/bills"))
		return
	}
	q := req.Query
	tabs := []ledger.Tab{q.Tab}
	if q.Tab != ledger.TabOutstanding && q.Tab != ledger.TabExpired {
		tabs = []ledger.Tab{ledger.TabOutstanding, ledger.TabExpired}
		// The payment filters select paid bills only: none of the unpaid ones.
		q.PaidFrom, q.PaidTo, q.Ref = time.Time{}, time.Time{}, ""
	}
	bills := func(yield func(billing.Bill, error) bool) {
		for _, tab := range tabs {
			q.Tab = tab
			for b, err := range h.ledger.EachBill(r.Context(), q) {
				if !yield(b, err) || err != nil {
					return
				}
			}
		}
	}
	var buf bytes.Buffer
	if err := uploads.WriteCorrectionSheet(&buf, h.cfg.AccountCodes, bills); err != nil {
		h.serverError(w, r, err)
		return
	}
	sendXLSX(w, "koreksi-tagihan-"+h.today().Format("2006-01-02")+".xlsx", buf.Bytes())
}
