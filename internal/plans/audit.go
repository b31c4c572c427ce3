package plans

import (
	"strconv"
	"strings"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/i18n"
)

// The plans' own arguments of audit entries: a plan's code, and a discount's size
// ("percent:5000", "amount:100000").
const (
	keyPlan     audit.Key = "plan"
	keyDiscount audit.Key = "discount"
)

// discountFigure words a discount's size: "50%", "Rp 100.000".
var discountFigure = audit.NewFigure("discount", []audit.Key{keyDiscount}, func(p i18n.Printer, a audit.Args) string {
	kind, value, ok := strings.Cut(a.Get(keyDiscount), ":")
	n, err := strconv.ParseInt(value, 10, 64)
	if !ok || err != nil {
		return ""
	}
	return Discount{Kind: DiscountKind(kind), Value: n}.Text(p)
})

// The plans' actions in the audit log. A plan's entries name it by its name (as a fee
// template's are); a discount's are about the student, with its size, the plan it is for
// and why. The components an apply creates, and the corrections it offers, are each
// audited by changes.Writer as they are sent.
var (
	auditPlanCreate = audit.Register(audit.Action{Code: "plans.create", About: audit.AboutFeeTemplate,
		Shows: []audit.Figure{audit.Money}, Keeps: []audit.Key{keyPlan}, Needs: []audit.Key{audit.KeyName, keyPlan}})
	auditPlanUpdate = audit.Register(audit.Action{Code: "plans.update", About: audit.AboutFeeTemplate,
		Shows: []audit.Figure{audit.Money}, Keeps: []audit.Key{keyPlan, audit.KeyFields}, Needs: []audit.Key{audit.KeyName, keyPlan}})
	auditPlanApply = audit.Register(audit.Action{Code: "plans.apply", About: audit.AboutFeeTemplate,
		Shows: []audit.Figure{audit.Items, audit.Money}, Keeps: []audit.Key{keyPlan, audit.KeyJob, audit.KeyStudents},
		Needs: []audit.Key{audit.KeyName, audit.KeyCount, audit.KeyTotal, audit.KeyJob}})
	auditPlanUndo = audit.Register(audit.Action{Code: "plans.undo", About: audit.AboutFeeTemplate,
		Shows: []audit.Figure{audit.Items, audit.Money, audit.Why}, Keeps: []audit.Key{keyPlan, audit.KeyJob},
		Needs: []audit.Key{audit.KeyName, audit.KeyCount, audit.KeyJob}})
	auditPlanCorrect = audit.Register(audit.Action{Code: "plans.correct", About: audit.AboutFeeTemplate,
		Shows: []audit.Figure{audit.Items}, Keeps: []audit.Key{keyPlan, audit.KeyJob},
		Needs: []audit.Key{audit.KeyName, audit.KeyCount, audit.KeyJob}})
	auditDiscountGrant = audit.Register(audit.Action{Code: "discounts.grant", About: audit.AboutStudent,
		Shows: []audit.Figure{discountFigure, audit.ItemName, audit.Why}, Needs: []audit.Key{audit.KeyNIS, keyDiscount}})
	auditDiscountChange = audit.Register(audit.Action{Code: "discounts.change", About: audit.AboutStudent,
		Shows: []audit.Figure{discountFigure, audit.ItemName, audit.Why}, Needs: []audit.Key{audit.KeyNIS, keyDiscount}})
	auditDiscountRemove = audit.Register(audit.Action{Code: "discounts.remove", About: audit.AboutStudent,
		Shows: []audit.Figure{discountFigure, audit.ItemName, audit.Why}, Needs: []audit.Key{audit.KeyNIS, keyDiscount}})
)

// planArg is a plan's code as an entry keeps it.
func planArg(code string) audit.Arg { return audit.ArgOf(keyPlan, code) }

// discountArg is a discount's size as an entry keeps it.
func discountArg(d Discount) audit.Arg {
	return audit.ArgOf(keyDiscount, string(d.Kind)+":"+strconv.FormatInt(d.Value, 10))
}
