package plans

import (
	"strconv"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/i18n"
)

// The plans' own arguments of audit entries: a plan's code, and a discount's size, each
// kind under its own key as a whole number (a percentage in hundredths, "5000" for 50%;
// an amount in rupiah), so a size is never read as the other kind.
const (
	keyPlan            audit.Key = "plan"
	keyDiscountPercent audit.Key = "discount_percent"
	keyDiscountAmount  audit.Key = "discount_amount"
)

// discountFigure words a discount's size: "50%", "Rp 100.000".
var discountFigure = audit.NewFigure("discount", []audit.Key{keyDiscountPercent, keyDiscountAmount}, func(p i18n.Printer, a audit.Args) string {
	if n, ok := a.Int(keyDiscountPercent); ok {
		return Discount{Kind: Percent, Value: n}.Text(p)
	}
	if n, ok := a.Int(keyDiscountAmount); ok {
		return Discount{Kind: Amount, Value: n}.Text(p)
	}
	return ""
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
		Shows: []audit.Figure{discountFigure, audit.ItemName, audit.Why}, Needs: []audit.Key{audit.KeyNIS}})
	auditDiscountChange = audit.Register(audit.Action{Code: "discounts.change", About: audit.AboutStudent,
		Shows: []audit.Figure{discountFigure, audit.ItemName, audit.Why}, Needs: []audit.Key{audit.KeyNIS}})
	auditDiscountRemove = audit.Register(audit.Action{Code: "discounts.remove", About: audit.AboutStudent,
		Shows: []audit.Figure{discountFigure, audit.ItemName, audit.Why}, Needs: []audit.Key{audit.KeyNIS}})
)

// planArg is a plan's code as an entry keeps it.
func planArg(code string) audit.Arg { return audit.ArgOf(keyPlan, code) }

// discountArg is a discount's size as an entry keeps it.
func discountArg(d Discount) audit.Arg {
	k := keyDiscountAmount
	if d.Kind == Percent {
		k = keyDiscountPercent
	}
	return audit.ArgOf(k, strconv.FormatInt(d.Value, 10))
}
