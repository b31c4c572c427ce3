package corrections

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/component"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/internal/store"
)

// Instalments (cicilan): an unpaid component (Uang Pangkal Rp 6.000.000, say) replaced by
// N dated parts whose sum is exactly the original, by one correction job of the replace
// kind (replace.go): the parts are made first, then the original is cancelled; a part
// that could not be made leaves the original as it was, and an original paid meanwhile
// has the parts cancelled again. Each part carries its key in its notes at the service
// ("[cicilan <original id> 1/3]"): the job finds a part whose answer was lost by it, the
// student page groups the parts under the original's name with it, and an undo is
// offered from the service's own records even when the portal's database was made anew.
//
// How the original's figures are carried to its parts:
//   - amount: split evenly in whole rupiah, in thousands when the amount is (Rp 1.000.000
//     in 3: 333.000, 333.000, 334.000), the remainder always on the last part;
//   - penalty: split the same way (a parent late on every part pays no more than on the
//     original), zero staying zero;
//   - expiry: each part can be paid for as long after its due day as the original could
//     (its due day plus the original's days between due and expiry);
//   - active day: the original's, on the parts due on or after it; none on the others;
//   - account code and student: the original's; name "<original>, cicilan k/N".
//
// Undoing a split (while none of its parts is paid) makes the original again: a new
// component with the original's name, amount, penalty, days and notes (the service
// cannot bring a cancelled component back), then cancels the parts; it is the same
// kind of job, the other way round.

// The bounds of a split.
const (
	MinParts = 2
	MaxParts = 12
)

// The fields of the split form (problem fields); a typed part's due day is DueField(k).
const (
	FieldParts     = "parts"
	FieldFirstDue  = "first_due"
	FieldComponent = "component"
	FieldAmount    = "amount"
)

// DueField is the problem field of part k's due day (1-based), "due_2".
func DueField(k int) string { return "due_" + strconv.Itoa(k) }

// The message keys of the split's rules.
const (
	KeySplitParts     = "instalments.err.parts"      // args: MinParts, MaxParts
	KeySplitTooSmall  = "instalments.err.too_small"  // args: the amount, the parts
	KeySplitIsPart    = "instalments.err.is_part"    // the component is already an instalment
	KeySplitAscending = "instalments.err.ascending"  // args: k-1 (the part it must follow)
	KeySplitChanged   = "instalments.err.changed"    // the component changed since the preview
	KeySplitAlready   = "instalments.err.already"    // it was split already
	KeyUndoPaid       = "instalments.undo.err.paid"  // args: the names of the parts paid
	KeyUndoIncomplete = "instalments.undo.err.parts" // args: found, N
	KeyUndoGone       = "instalments.undo.err.original"
)

// The audit vocabulary of instalments: a split asked for and an undo asked for (each
// change at the service is the writer's own entry); one that made nothing in the end is
// recorded again as failed, with why.
var (
	keyParts         = audit.Key("parts")
	instalmentsCount = audit.NewFigure("instalments", []audit.Key{keyParts}, func(p i18n.Printer, a audit.Args) string {
		if n, ok := a.Int(keyParts); ok {
			return p.T("instalments.audit.parts", int(n))
		}
		return ""
	})
	auditSplit = audit.Register(audit.Action{Code: "corrections.split", About: audit.AboutStudent,
		Shows: []audit.Figure{audit.ItemName, instalmentsCount, audit.Money, audit.Why}, Keeps: []audit.Key{audit.KeyJob, audit.KeyComp},
		Needs: []audit.Key{audit.KeyNIS, audit.KeyItem, keyParts, audit.KeyTotal, audit.KeyJob}})
	auditSplitUndo = audit.Register(audit.Action{Code: "corrections.split.undo", About: audit.AboutStudent,
		Shows: []audit.Figure{audit.ItemName, instalmentsCount, audit.Money, audit.Why}, Keeps: []audit.Key{audit.KeyJob, audit.KeyComp},
		Needs: []audit.Key{audit.KeyNIS, audit.KeyItem, keyParts, audit.KeyTotal, audit.KeyJob}})
)

// Splits returns total split into n parts in whole rupiah: equal parts (in thousands when
// total is whole thousands and a part is at least a thousand), the remainder on the last.
// The parts always add up to total; with total >= n none is zero. n must be at least 1.
func Splits(total int64, n int) []int64 {
	if n <= 0 {
		return nil
	}
	parts := make([]int64, n)
	unit := int64(1)
	if total%1000 == 0 && total/int64(n) >= 1000 {
		unit = 1000
	}
	each := total / int64(n) / unit * unit
	for i := range n - 1 {
		parts[i] = each
	}
	parts[n-1] = total - each*int64(n-1)
	return parts
}

// MonthlyDues are n due days a month apart from first: the same day of each month, or
// the month's last day when it has fewer (31 January, 28 February, 31 March).
func MonthlyDues(first time.Time, n int) []time.Time {
	out := make([]time.Time, n)
	y, m, d := first.Date()
	for k := range n {
		start := time.Date(y, m+time.Month(k), 1, 0, 0, 0, 0, time.UTC)
		last := start.AddDate(0, 1, -1).Day()
		out[k] = time.Date(start.Year(), start.Month(), min(d, last), 0, 0, 0, 0, time.UTC)
	}
	return out
}

// The instalment keys in a component's notes.
var (
	partMarker     = regexp.MustCompile(`\[cicilan (\S+) (\d+)/(\d+)\]`)
	restoredMarker = regexp.MustCompile(`\[cicilan (\S+) batal\]`)
	anyMarker      = regexp.MustCompile(`\s*\[cicilan \S+ (?:\d+/\d+|batal)\]`)
)

// PartKey is the key part k of n of the split of component original carries in its notes.
func PartKey(original string, k, n int) string {
	return fmt.Sprintf("[cicilan %s %d/%d]", original, k, n)
}

// RestoredKey is the key the original made again by an undo carries in its notes.
func RestoredKey(original string) string { return fmt.Sprintf("[cicilan %s batal]", original) }

// Part is where a component stands among instalments, read from its notes: part Part of
// Of of the split of Original, or (Restored) the original made again by an undo.
type Part struct {
	Original string
	Part, Of int
	Restored bool
}

// PartOf reads the instalment key of a component's notes; false when it carries none.
func PartOf(notes string) (Part, bool) {
	if m := partMarker.FindStringSubmatch(notes); m != nil {
		k, _ := strconv.Atoi(m[2])
		n, _ := strconv.Atoi(m[3])
		return Part{Original: m[1], Part: k, Of: n}, true
	}
	if m := restoredMarker.FindStringSubmatch(notes); m != nil {
		return Part{Original: m[1], Restored: true}, true
	}
	return Part{}, false
}

// PlainNotes are a component's notes without their instalment keys, as a page shows them.
func PlainNotes(notes string) string { return strings.TrimSpace(anyMarker.ReplaceAllString(notes, "")) }

// partSuffix is what a part's name adds to the original's.
func partSuffix(k, n int) string { return fmt.Sprintf(", cicilan %d/%d", k, n) }

// PartName is part k of n's name: the original's (cut to fit) and ", cicilan k/N".
func PartName(name string, k, n int) string {
	suffix := partSuffix(k, n)
	return cutRunes(name, component.MaxNameLen-utf8.RuneCountInString(suffix)) + suffix
}

// OriginalName is the original's name as a part's name shows it.
func OriginalName(partName string, k, n int) string {
	return strings.TrimSuffix(partName, partSuffix(k, n))
}

// keyedNotes are notes with key after them, the notes cut so that both fit.
func keyedNotes(notes, key string) string {
	base := PlainNotes(notes)
	if base == "" {
		return key
	}
	return cutRunes(base, component.MaxNotesLen-utf8.RuneCountInString(key)-1) + " " + key
}

func cutRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n]))
}

// SplitForm is the split as typed: how many parts, the first due day (the others a month
// apart) or each part's due day, and why.
type SplitForm struct {
	Parts, FirstDue, Reason string
	// Dues are the parts' due days as typed on the preview (all empty: monthly from FirstDue).
	Dues []string
	// Amount is the original's amount the preview showed ("" on the first step): a
	// component corrected since is previewed again.
	Amount string
}

// Split is a component's split as it will be made: the parts with their figures and days.
type Split struct {
	Original billing.Bill
	Parts    []billing.ComponentInput
	Reason   string
	// Grace is the days between the original's due day and its expiry, which each part keeps.
	Grace int
}

// Total is what the parts add up to (the original's amount).
func (s Split) Total() int64 {
	var t int64
	for _, p := range s.Parts {
		t += p.Amount
	}
	return t
}

// PlanSplit checks the split f of component orig and makes its parts. The component must
// be unpaid and not an instalment already; the parts 2 to 12, no more than the rupiah of
// the amount; the days typed or a month apart from the first, each after the one before.
func PlanSplit(orig billing.Bill, f SplitForm) (Split, problem.List) {
	var l problem.List
	s := Split{Original: orig, Reason: strings.TrimSpace(f.Reason)}
	if why := Refusal(orig); why != "" {
		l.Add(FieldComponent, why)
	} else if p, ok := PartOf(orig.Notes); ok && !p.Restored {
		l.Add(FieldComponent, KeySplitIsPart)
	}
	if f.Amount != "" && f.Amount != strconv.FormatInt(orig.Amount, 10) {
		l.Add(FieldAmount, KeySplitChanged)
	}
	n, err := strconv.Atoi(strings.TrimSpace(f.Parts))
	switch {
	case strings.TrimSpace(f.Parts) == "":
		l.Add(FieldParts, "form.required")
	case err != nil || n < MinParts || n > MaxParts:
		l.Add(FieldParts, KeySplitParts, strconv.Itoa(MinParts), strconv.Itoa(MaxParts))
	case orig.Amount < int64(n):
		l.Add(FieldParts, KeySplitTooSmall, i18n.Rupiah(orig.Amount), n)
	}
	CheckReason(&l, s.Reason)
	if l.Has(FieldParts) {
		return s, l
	}
	dues := make([]time.Time, n)
	typed := len(f.Dues) == n
	if typed {
		typed = false
		for _, d := range f.Dues {
			typed = typed || strings.TrimSpace(d) != ""
		}
	}
	if typed {
		for k, d := range f.Dues {
			dues[k] = component.ParseDay(&l, DueField(k+1), d, true)
			if k > 0 && !dues[k].IsZero() && !dues[k-1].IsZero() && !dues[k].After(dues[k-1]) {
				l.Add(DueField(k+1), KeySplitAscending, k)
			}
		}
	} else {
		first := component.ParseDay(&l, FieldFirstDue, f.FirstDue, true)
		if !first.IsZero() {
			dues = MonthlyDues(first, n)
		}
	}
	if len(l) > 0 {
		return s, l
	}
	s.Grace = max(int(orig.Expiry.Sub(orig.Due).Hours()/24), 0)
	amounts, penalties := Splits(orig.Amount, n), Splits(orig.Penalty, n)
	for k := range n {
		in := billing.ComponentInput{NIS: orig.NIS, AccountCode: orig.AccountCode, Name: PartName(orig.Name, k+1, n),
			Amount: amounts[k], Penalty: penalties[k], Due: dues[k], Expiry: dues[k].AddDate(0, 0, s.Grace),
			Notes: keyedNotes(orig.Notes, PartKey(orig.ComponentID, k+1, n))}
		if !orig.Active.IsZero() && !orig.Active.After(dues[k]) {
			in.Active = orig.Active
		}
		s.Parts = append(s.Parts, in)
	}
	return s, l
}

// SplitRecord is a component's split as the portal keeps it: its job and its undo's.
type SplitRecord = store.InstalmentSplit

// SubmitSplit stores the split s as a correction job (the parts made, then the original
// cancelled) and wakes the runner; the split asked for is audited. A component split
// already (or being split) is ErrSplitTaken.
func (r *Runner) SubmitSplit(ctx context.Context, s Split, actor auth.Actor) (string, error) {
	o := s.Original
	rep := replacement{Source: SourceSplit, NIS: o.NIS, StudentName: o.StudentName, Make: s.Parts, Cancel: []billing.Bill{o},
		Reason: s.Reason, AmountBefore: o.Amount, AmountAfter: s.Total(), Actor: actor}
	rec := store.InstalmentSplit{OriginalID: o.ComponentID, NIS: o.NIS, Name: o.Name, Amount: o.Amount, Parts: len(s.Parts)}
	id, err := r.submitReplacement(ctx, rep, func(j store.CorrectionJob, items []store.CorrectionItem) error {
		return r.db.CreateSplitJob(ctx, rec, j, items)
	})
	if err != nil {
		return "", err
	}
	r.recordSplit(ctx, auditSplit, actor, o, len(s.Parts), s.Reason, id, audit.OK)
	return id, nil
}

// ErrSplitTaken is the answer to a split of a component split already, or to the undo of
// a split undone already (or on its way).
var ErrSplitTaken = errors.New("corrections: the component's instalments were changed already")

// SplitUndo is what undoing the split of Original does: the original made again as it
// was (Restore), the parts cancelled. Refused says why it cannot be done (a catalogue
// key with Args: a part paid, a part missing, the original unknown); "" when it can.
type SplitUndo struct {
	Original billing.Bill
	Parts    []billing.Bill
	Restore  billing.ComponentInput
	Refused  string
	Args     []any
	// Expired: the original's expiry has passed; made again, it cannot be paid until its
	// expiry is moved (the page says so before the undo).
	Expired bool
}

// PlanUndo reads what undoing the split of component original of student nis would do,
// from the ledger (and the service for an original the ledger lacks): every part of the
// split must be there and none paid.
func (r *Runner) PlanUndo(ctx context.Context, nis, original string, today time.Time) (SplitUndo, error) {
	w := r.steps.Writer
	var u SplitUndo
	of := 0
	var paid []string
	bills := w.Client.AllForStudent(ctx, nis, billing.Query{Limit: billing.MaxLimit})
	if w.Ledger != nil {
		bills = w.Ledger.AllForStudent(ctx, nis, billing.Query{})
	}
	for b, err := range bills {
		if err != nil {
			return u, fmt.Errorf("corrections: parts of %s: %w", original, err)
		}
		p, ok := PartOf(b.Notes)
		if !ok || p.Restored || p.Original != original {
			continue
		}
		of = p.Of
		u.Parts = append(u.Parts, b)
		if b.State == billing.StatePaid {
			paid = append(paid, b.Name)
		}
	}
	orig, err := billing.Bill{}, error(billing.ErrNotFound)
	if w.Ledger != nil {
		orig, err = w.Ledger.Component(ctx, original)
	}
	if errors.Is(err, billing.ErrNotFound) {
		orig, err = w.Client.GetComponent(ctx, original)
	}
	switch {
	case errors.Is(err, billing.ErrNotFound):
		u.Refused = KeyUndoGone
		return u, nil
	case err != nil:
		return u, fmt.Errorf("corrections: the original %s: %w", original, err)
	}
	u.Original = orig
	slices.SortFunc(u.Parts, func(a, b billing.Bill) int {
		pa, _ := PartOf(a.Notes)
		pb, _ := PartOf(b.Notes)
		return cmp.Compare(pa.Part, pb.Part)
	})
	switch {
	case len(paid) > 0:
		u.Refused, u.Args = KeyUndoPaid, []any{strings.Join(paid, ", ")}
	case len(u.Parts) == 0 || len(u.Parts) != of:
		u.Refused, u.Args = KeyUndoIncomplete, []any{len(u.Parts), of}
	}
	u.Restore = billing.ComponentInput{NIS: orig.NIS, AccountCode: orig.AccountCode, Name: orig.Name, Amount: orig.Amount,
		Penalty: orig.Penalty, Due: orig.Due, Expiry: orig.Expiry, Active: orig.Active,
		Notes: keyedNotes(orig.Notes, RestoredKey(original))}
	u.Expired = billing.DayIn(today, time.UTC).After(orig.Expiry)
	return u, nil
}

// SubmitUndo stores the undo u as a correction job (the original made again, then the
// parts cancelled) and wakes the runner; audited. A split undone already is ErrSplitTaken.
func (r *Runner) SubmitUndo(ctx context.Context, u SplitUndo, reason string, actor auth.Actor) (string, error) {
	if u.Refused != "" {
		return "", ErrSplitTaken
	}
	o := u.Original
	var total int64
	for _, p := range u.Parts {
		total += p.Amount
	}
	rep := replacement{Source: SourceSplitUndo, NIS: o.NIS, StudentName: o.StudentName, Make: []billing.ComponentInput{u.Restore},
		Cancel: u.Parts, Reason: reason, AmountBefore: total, AmountAfter: u.Restore.Amount, Actor: actor}
	rec := store.InstalmentSplit{OriginalID: o.ComponentID, NIS: o.NIS, Name: o.Name, Amount: o.Amount, Parts: len(u.Parts)}
	id, err := r.submitReplacement(ctx, rep, func(j store.CorrectionJob, items []store.CorrectionItem) error {
		return r.db.CreateSplitUndoJob(ctx, rec, j, items)
	})
	if err != nil {
		return "", err
	}
	r.recordSplit(ctx, auditSplitUndo, actor, o, len(u.Parts), reason, id, audit.OK)
	return id, nil
}

// StudentSplits are the splits of student nis the portal keeps, newest first.
func (r *Runner) StudentSplits(ctx context.Context, nis string) ([]SplitRecord, error) {
	return r.db.InstalmentSplits(ctx, nis)
}

// recordSplit writes the audit entry of a split or an undo asked for (ok), or of one
// that made nothing in the end (failed).
func (r *Runner) recordSplit(ctx context.Context, a *audit.Action, actor auth.Actor, o billing.Bill, parts int, reason, job string, outcome audit.Outcome) {
	name := o.StudentName
	if st, err := r.db.StudentByNIS(ctx, o.NIS); err == nil {
		name = st.Name
	}
	e := a.With(audit.Student(o.NIS, name), audit.Item(o.Name), audit.ArgOf(keyParts, strconv.Itoa(parts)), audit.Total(o.Amount),
		audit.Reason(reason), audit.Job(job), audit.Component(o.ComponentID))
	e.Actor, e.Target, e.Outcome, e.Detail = actor.Audit(), o.NIS, outcome, "correction "+job
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := (audit.Log{DB: r.db, Clock: r.cfg.Clock}).Record(actx, e); err != nil {
		r.log.Error("audit an instalment split", "component", o.ComponentID, "err", err)
	}
}
