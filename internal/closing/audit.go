package closing

import (
	"time"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/i18n"
)

// The audit actions of the closings; their entries are about the cashier whose day it is.
const (
	// ActionClose: a cashier closed (signed off and locked) their cash of a day; a refused
	// second closing is the same action, denied.
	ActionClose = "closing.close"
	// ActionReopen: an admin reopened a cashier's closed day, with the reason.
	ActionReopen = "closing.reopen"
)

// The closings' own arguments: the school day (YYYY-MM-DD) and the cash counted (rupiah;
// the expected cash is audit.Total).
const (
	keyDay     audit.Key = "day"
	keyCounted audit.Key = "counted"
)

func dayArg(day time.Time) audit.Arg { return audit.ArgOf(keyDay, day.Format(time.DateOnly)) }

var (
	// dayFigure is the school day closed: "kas 15 Mar 2027" (the day as written when it
	// is not a date: the entry still says which day it was about).
	dayFigure = audit.NewFigure("day", []audit.Key{keyDay}, func(p i18n.Printer, a audit.Args) string {
		s := a.Get(keyDay)
		if s == "" {
			return ""
		}
		if d, err := time.Parse(time.DateOnly, s); err == nil {
			s = p.Day(d)
		}
		return p.T("closing.audit_day", s)
	})
	// receiptsFigure is how many receipts the closing counted: "3 kuitansi".
	receiptsFigure = audit.NewFigure("receipts", []audit.Key{audit.KeyCount}, func(p i18n.Printer, a audit.Args) string {
		if n, ok := a.Int(audit.KeyCount); ok {
			return p.T("closing.audit_receipts", int(n))
		}
		return ""
	})
	// cashFigure is the cash counted beside the cash expected, and the difference:
	// "dihitung Rp 745.000 dari Rp 750.000 (kurang Rp 5.000)".
	cashFigure = audit.NewFigure("cash", []audit.Key{audit.KeyTotal, keyCounted}, func(p i18n.Printer, a audit.Args) string {
		expected, ok1 := a.Int(audit.KeyTotal)
		counted, ok2 := a.Int(keyCounted)
		if !ok1 || !ok2 {
			return ""
		}
		switch d := counted - expected; {
		case d < 0:
			return p.T("closing.audit_cash_short", i18n.Rupiah(counted), i18n.Rupiah(expected), i18n.Rupiah(-d))
		case d > 0:
			return p.T("closing.audit_cash_over", i18n.Rupiah(counted), i18n.Rupiah(expected), i18n.Rupiah(d))
		}
		return p.T("closing.audit_cash", i18n.Rupiah(counted))
	})

	auditClose = audit.Register(audit.Action{Code: ActionClose, About: audit.AboutStaff,
		Shows: []audit.Figure{dayFigure, receiptsFigure, cashFigure, audit.Why},
		Needs: []audit.Key{audit.KeyUser, keyDay, audit.KeyCount, audit.KeyTotal, keyCounted}})
	auditReopen = audit.Register(audit.Action{Code: ActionReopen, About: audit.AboutStaff,
		Shows: []audit.Figure{dayFigure, audit.Why}, Needs: []audit.Key{audit.KeyUser, keyDay, audit.KeyReason}})
)
