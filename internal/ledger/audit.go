package ledger

import (
	"fmt"
	"strings"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
)

// The audit log's words for what a reconcile corrected: plain sentences a finance
// officer reads, with the old and the new value of each field that differed.

// componentDiff describes one corrected component; "" when nothing a person would call
// a difference changed (the state's follows-the-date part, the student's name, the
// service's updated_at alone).
func componentDiff(c change, loc *time.Location) string {
	p := i18n.NewPrinter(i18n.English, loc)
	n := c.new
	what := fmt.Sprintf("%s of NIS %s (%s, component %s)", n.Name, n.NIS, n.Account, n.ID)
	if c.inserted {
		s := fmt.Sprintf("%s: at the service but missing from the ledger; added: %s, due %s", what, i18n.Rupiah(n.Amount), p.Day(instant(n.DueUS)))
		switch n.Kind {
		case kindPaid:
			s += fmt.Sprintf(", paid %s on %s (ref %s)", i18n.Rupiah(n.AmountPaid), p.DateTime(instant(n.PaidUS)), n.Ref)
		case kindDeleted:
			s += ", deleted at the service"
		}
		return s
	}
	o := c.old
	var diffs []string
	field := func(name, old, new string) {
		if old != new {
			diffs = append(diffs, fmt.Sprintf("%s %s → %s", name, orNone(old), orNone(new)))
		}
	}
	if o.Kind != n.Kind {
		switch n.Kind {
		case kindPaid:
			diffs = append(diffs, fmt.Sprintf("paid at the service (%s on %s, ref %s) but open in the ledger",
				i18n.Rupiah(n.AmountPaid), p.DateTime(instant(n.PaidUS)), n.Ref))
		case kindDeleted:
			diffs = append(diffs, fmt.Sprintf("deleted at the service but %s in the ledger", kindWord(o.Kind)))
		default:
			diffs = append(diffs, fmt.Sprintf("open at the service but %s in the ledger", kindWord(o.Kind)))
		}
	} else if o.Kind == kindPaid {
		field("amount paid", i18n.Rupiah(o.AmountPaid), i18n.Rupiah(n.AmountPaid))
		field("paid on", p.DateTime(instant(o.PaidUS)), p.DateTime(instant(n.PaidUS)))
		field("reference", o.Ref, n.Ref)
		if o.State != n.State || o.RawState != n.RawState {
			field("state", o.RawState, n.RawState)
		}
	} else if o.Kind == kindOpen && !(dayState(o.State) && dayState(n.State)) {
		field("state", o.RawState, n.RawState)
	}
	field("amount", i18n.Rupiah(o.Amount), i18n.Rupiah(n.Amount))
	field("penalty", i18n.Rupiah(o.Penalty), i18n.Rupiah(n.Penalty))
	field("due", p.Day(instant(o.DueUS)), p.Day(instant(n.DueUS)))
	field("expiry", p.Day(instant(o.ExpiryUS)), p.Day(instant(n.ExpiryUS)))
	field("active from", p.Day(instant(o.ActiveUS)), p.Day(instant(n.ActiveUS)))
	field("account", o.Account, n.Account)
	field("name", o.Name, n.Name)
	field("notes", o.Notes, n.Notes)
	field("NIS", o.NIS, n.NIS)
	field("bill", o.BillID, n.BillID)
	if len(diffs) == 0 {
		return ""
	}
	return what + ": " + strings.Join(diffs, "; ")
}

func kindWord(kind int64) string {
	switch kind {
	case kindPaid:
		return "paid"
	case kindDeleted:
		return "deleted"
	}
	return "open"
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// studentDiff describes a roster entry the reconcile added or corrected.
func studentDiff(old store.Student, existed bool, s billing.Student) string {
	if !existed {
		return fmt.Sprintf("%s (NIS %s) is at the service but was not in the student list; added", s.Name, s.NIS)
	}
	var diffs []string
	field := func(name, o, n string) {
		if o != n {
			diffs = append(diffs, fmt.Sprintf("%s %s → %s", name, orNone(o), orNone(n)))
		}
	}
	field("name", old.Name, s.Name)
	field("class", old.Description, s.Description)
	field("phone", old.Phone, s.Phone)
	field("email", old.Email, s.Email)
	field("key name", old.KeyName, s.KeyName)
	return fmt.Sprintf("%s (NIS %s) differed from the service: %s", s.Name, s.NIS, strings.Join(diffs, "; "))
}
