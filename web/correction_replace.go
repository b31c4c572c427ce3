package web

import (
	"context"

	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
)

// replacementWords words the page of an instalment split or its undo, and of a leaver's
// bills cancelled: what it does and, once it ended, what came of it (a replacement that
// could not finish says the original was left as it was). It reports whether j is one.
func (h *Handler) replacementWords(ctx context.Context, j corrections.Job, v *pages.CorrectionJobView) (bool, error) {
	nis := ""
	switch j.Source {
	case corrections.SourceLeaver:
		v.Title = i18n.T(ctx, "leavers.job.title")
		v.Summary = i18n.T(ctx, "leavers.job.summary", j.Total, i18n.Rupiah(j.AmountBefore), j.Reason)
	case corrections.SourceSplit, corrections.SourceSplitUndo:
	default:
		return false, nil
	}
	items, err := h.corrections.Items(ctx, j.ID)
	if err != nil {
		return true, err
	}
	for _, it := range items {
		nis = it.NIS
	}
	if nis != "" {
		v.BackURL, v.BackLabel = studentURL(nis), i18n.T(ctx, "corrections.job.back_student")
	}
	if j.Source == corrections.SourceLeaver {
		return true, nil
	}
	makes, cancels, _ := corrections.ReplacementSteps(items)
	name, parts := "", len(makes)
	if j.Source == corrections.SourceSplit && len(cancels) > 0 {
		name = cancels[0].Name
	}
	if j.Source == corrections.SourceSplitUndo && len(makes) > 0 {
		name, parts = makes[0].Name, len(cancels)
	}
	key := "instalments.job"
	if j.Source == corrections.SourceSplitUndo {
		key = "instalments.undo.job"
	}
	v.Title = i18n.T(ctx, key+".title", name)
	v.Summary = i18n.T(ctx, key+".summary", name, i18n.Rupiah(j.AmountBefore), parts, j.Reason)
	if o := corrections.ReplacementOutcome(items); o != corrections.OutcomeRunning {
		v.Summary += " " + i18n.T(ctx, key+".outcome."+string(o), name)
	}
	return true, nil
}
