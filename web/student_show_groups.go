package web

import (
	"cmp"
	"context"
	"net/http"
	"slices"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/students"
	"github.com/sekolah/portal/views/pages"
)

// standingInfo is a student's status as the pages show it.
func standingInfo(s students.Student) pages.StandingInfo {
	st := students.StandingOf(s)
	return pages.StandingInfo{Status: string(st.Status), On: st.On, Note: st.Note}
}

// studentExtras adds to the student page what leavers and instalments show: the status
// (and, for a former student, the offer to cancel what fell due after they left), the
// parts of each split grouped under the original's name with the undo, the splits on
// their way, and the split offered on each unpaid component.
func (h *Handler) studentExtras(r *http.Request, v *pages.StudentView) {
	ctx := r.Context()
	s := studentFrom(r)
	v.Standing = standingInfo(s)
	if v.Standing.Former() && !s.StatusOn.IsZero() {
		if plan, err := h.corrections.Leaving(ctx, s.NIS, s.StatusOn); err != nil {
			h.log.Warn("bills after a student left", "nis", s.NIS, "err", err)
		} else if len(plan.Cancel) > 0 {
			v.Leave = &pages.LeaveOffer{Count: len(plan.Cancel), Amount: plan.CancelAmount, URL: studentURL(s.NIS) + "/leave"}
		}
	}
	running := h.runningSplits(ctx, s.NIS, v)
	v.Bills = groupInstalments(ctx, v.Bills, s.NIS, can(ctx, auth.WriteBilling), running)
}

// runningSplits lists the student's splits and undos on their way on the page, and
// returns the undos running by original.
func (h *Handler) runningSplits(ctx context.Context, nis string, v *pages.StudentView) map[string]string {
	undos := map[string]string{}
	splits, err := h.corrections.StudentSplits(ctx, nis)
	if err != nil {
		h.log.Warn("instalment splits", "nis", nis, "err", err)
		return undos
	}
	for _, sp := range splits {
		for _, id := range []string{sp.JobID, sp.UndoJobID} {
			if id == "" {
				continue
			}
			j, err := h.corrections.Job(ctx, id)
			if err != nil || !corrections.Running(j.State) {
				continue
			}
			undo := id == sp.UndoJobID
			v.SplitsRunning = append(v.SplitsRunning, pages.SplitRunning{Name: sp.Name, Undo: undo, JobURL: correctionURL(id)})
			if undo {
				undos[sp.OriginalID] = correctionURL(id)
			}
		}
	}
	return undos
}

// groupInstalments puts the parts of each split together, in their order, where the
// first of them was, under a head row; offers the split on unpaid components that are
// not parts; and shows notes without their instalment keys.
func groupInstalments(ctx context.Context, rows []pages.BillRow, nis string, canWrite bool, undos map[string]string) []pages.BillRow {
	type part struct {
		row pages.BillRow
		key corrections.Part
	}
	groups := map[string][]part{}
	for _, b := range rows {
		if p, ok := corrections.PartOf(b.Notes); ok && !p.Restored {
			groups[p.Original] = append(groups[p.Original], part{b, p})
		}
	}
	out := make([]pages.BillRow, 0, len(rows))
	placed := map[string]bool{}
	for _, b := range rows {
		p, ok := corrections.PartOf(b.Notes)
		if !ok || p.Restored {
			b.Notes = corrections.PlainNotes(b.Notes)
			if canWrite && b.State != "paid" {
				b.SplitURL = studentURL(nis) + "/components/" + b.ID + "/instalments"
			}
			out = append(out, b)
			continue
		}
		if placed[p.Original] {
			continue
		}
		placed[p.Original] = true
		parts := groups[p.Original]
		slices.SortFunc(parts, func(a, b part) int { return cmp.Compare(a.key.Part, b.key.Part) })
		g := &pages.InstalmentGroup{Name: corrections.OriginalName(parts[0].row.Name, parts[0].key.Part, parts[0].key.Of), Of: p.Of}
		for _, pt := range parts {
			g.Total += pt.row.Amount
			if pt.row.State == "paid" {
				g.PaidCount++
				g.Paid += pt.row.AmountPaid
			}
		}
		switch {
		case undos[p.Original] != "":
			g.Running, g.JobURL = true, undos[p.Original]
		case g.PaidCount > 0:
			g.Why = i18n.T(ctx, "instalments.undo.no_paid")
		case len(parts) != p.Of:
			g.Why = i18n.T(ctx, "instalments.undo.no_parts", len(parts), p.Of)
		case canWrite:
			g.UndoURL = studentURL(nis) + "/instalments/" + p.Original + "/undo"
		}
		for i, pt := range parts {
			row := pt.row
			row.Notes, row.InGroup = corrections.PlainNotes(row.Notes), true
			if i == 0 {
				row.Group = g
			}
			out = append(out, row)
		}
	}
	return out
}
