// Package corrections is how the portal fixes what is already at the service: what a
// correction may touch (an unpaid component: provisioned or expired; a paid one keeps its
// payment history, a deleted one is gone), the change a form asks for reduced to the
// fields that differ, a cancel's reason; the correction steps (Steps: update or cancel a
// component, update a student's record, and read each back to decide it after a lost
// answer or a refusal), which every job that changes what exists sends through (a bulk
// correction, the undo of an upload, a corrections sheet, "naik kelas"); and the correction
// job (job.go, runner.go), a kind of internal/jobs: many changes sent in chunks under a
// lease, exactly once under faults and restarts. Every change goes through
// changes.Writer, so each is audited.
//
// Instalments are a correction of this package too (instalments.go, replace.go): a
// component replaced by dated parts (and the undo, the parts replaced by the original made
// again) is a job of the replace kind, its steps run one after the other (make the new,
// then cancel the old, or withdraw what was made) so that a crash between two never leaves
// both or neither. A leaver's bills due after they left are a cancel job (leaving.go).
// A new kind of correction is added the same way: its steps beside the others (Steps), its
// job's items, its preview beside Bulk, and a hook in the runner's job for its kind.
package corrections

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/problem"
)

// The message keys of a refusal: why a component cannot be corrected.
const (
	KeyPaid    = "corrections.refused.paid"    // payment history is kept
	KeyDeleted = "corrections.refused.deleted" // already cancelled
)

// Refusal says why b cannot be edited or cancelled ("" when it can): the contract lets
// only a provisioned or expired component be updated or deleted.
func Refusal(b billing.Bill) string {
	switch b.State {
	case billing.StatePaid:
		return KeyPaid
	case billing.StateDeleted:
		return KeyDeleted
	}
	return ""
}

// Changes is the update that turns before into in (a component checked with the
// component rules): only the fields that differ are set, so the service is asked to
// change nothing else and the audit entry names only what changed. Days compare as
// calendar days; an active day removed is the zero time.
func Changes(before billing.Bill, in billing.ComponentInput) billing.ComponentUpdate {
	var u billing.ComponentUpdate
	if in.Name != before.Name {
		u.Name = &in.Name
	}
	if in.AccountCode != before.AccountCode {
		u.AccountCode = &in.AccountCode
	}
	if in.Amount != before.Amount {
		u.Amount = &in.Amount
	}
	if in.Penalty != before.Penalty {
		u.Penalty = &in.Penalty
	}
	if !sameDay(in.Due, before.Due) {
		u.Due = &in.Due
	}
	if !sameDay(in.Expiry, before.Expiry) {
		u.Expiry = &in.Expiry
	}
	if !sameDay(in.Active, before.Active) {
		u.Active = &in.Active
	}
	if in.Notes != before.Notes {
		u.Notes = &in.Notes
	}
	return u
}

// Empty reports an update that changes nothing.
func Empty(u billing.ComponentUpdate) bool {
	return u.Name == nil && u.AccountCode == nil && u.Amount == nil && u.Penalty == nil && u.Due == nil &&
		u.Expiry == nil && u.Active == nil && u.Notes == nil
}

// Applied reports whether b already carries every value u sets: an update whose answer
// was lost is then known to have been applied, and sending it again is not needed.
func Applied(b billing.Bill, u billing.ComponentUpdate) bool {
	switch {
	case u.Name != nil && *u.Name != b.Name,
		u.AccountCode != nil && *u.AccountCode != b.AccountCode,
		u.Amount != nil && *u.Amount != b.Amount,
		u.Penalty != nil && *u.Penalty != b.Penalty,
		u.Due != nil && !sameDay(*u.Due, b.Due),
		u.Expiry != nil && !sameDay(*u.Expiry, b.Expiry),
		u.Active != nil && !sameDay(*u.Active, b.Active),
		u.Notes != nil && *u.Notes != b.Notes:
		return false
	}
	return true
}

// sameDay compares component days (UTC dates of their timestamps); two zero days match.
func sameDay(a, b time.Time) bool {
	if a.IsZero() || b.IsZero() {
		return a.IsZero() == b.IsZero()
	}
	return billing.DayIn(a, time.UTC).Equal(billing.DayIn(b, time.UTC))
}

// MaxReasonLen bounds a cancel's reason, in characters.
const MaxReasonLen = 200

// FieldReason is the reason's problem field.
const FieldReason = "reason"

// CheckReason checks a cancel's reason: required (the audit log and the service keep it),
// at most MaxReasonLen characters.
func CheckReason(l *problem.List, reason string) {
	switch {
	case strings.TrimSpace(reason) == "":
		l.Add(FieldReason, "form.required")
	case utf8.RuneCountInString(reason) > MaxReasonLen:
		l.Add(FieldReason, "form.too_long", MaxReasonLen)
	}
}
