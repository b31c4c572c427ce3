package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/views/pages"
)

// correctionURL is a correction job's page.
func correctionURL(id string) string { return "/corrections/" + url.PathEscape(id) }

// correctionView shapes a job's page: what it does, how far it is, and the items left
// alone or refused with why.
func (h *Handler) correctionView(r *http.Request, j corrections.Job) (pages.CorrectionJobView, error) {
	ctx := r.Context()
	v := pages.CorrectionJobView{ID: j.ID, State: j.State, Running: corrections.Running(j.State), WaitingSince: j.WaitingSince,
		Total: j.Total, Done: j.Done, Skipped: j.Skipped, Failed: j.Failed, LeftOut: j.LeftOut, Actor: h.staffNames(ctx)(j.Actor),
		CreatedAt: j.CreatedAt, FinishedAt: j.FinishedAt, URL: correctionURL(j.ID)}
	if j.Total > 0 {
		v.Percent = (j.Done + j.Skipped + j.Failed) * 100 / j.Total
	} else {
		v.Percent = 100
	}
	replaced, err := h.replacementWords(ctx, j, &v) // correction_replace.go: instalments, leavers
	if err != nil {
		return v, err
	}
	switch {
	case replaced:
	case j.Source == corrections.SourceUpload:
		v.Title = i18n.T(ctx, "corrections.job.title_undo")
		v.BackURL, v.BackLabel = uploadURL(j.UploadID), i18n.T(ctx, "corrections.job.back_upload")
		v.Summary = i18n.T(ctx, "corrections.job.summary_undo", i18n.Rupiah(j.AmountBefore), j.Reason)
	case j.Kind == corrections.KindCancel:
		v.Title = i18n.T(ctx, "corrections.job.title_cancel")
		v.Summary = i18n.T(ctx, "corrections.job.summary_cancel", j.Total, i18n.Rupiah(j.AmountBefore), j.Reason)
	default:
		v.Title = i18n.T(ctx, "corrections.job.title_update", i18n.T(ctx, "corrections.bulk.field."+j.Field))
		v.Summary = i18n.T(ctx, "corrections.job.summary_update", j.Total, i18n.T(ctx, "corrections.bulk.field."+j.Field), jobValue(ctx, j))
		if j.Field == corrections.ActionAmount {
			v.Summary += " " + i18n.T(ctx, "corrections.job.totals", i18n.Rupiah(j.AmountBefore), i18n.Rupiah(j.AmountAfter))
		}
	}
	if v.BackURL == "" {
		v.BackURL, v.BackLabel = "/bills", i18n.T(ctx, "bills.title")
		if strings.HasPrefix(j.Selection, "/bills?") {
			v.BackURL = j.Selection
		}
	}
	items, err := h.corrections.Items(ctx, j.ID, corrections.ItemSkipped, corrections.ItemFailed)
	if err != nil {
		return v, err
	}
	for _, it := range items {
		v.Problems = append(v.Problems, pages.CorrectionItemRow{NIS: it.NIS, Student: it.StudentName, Name: it.Name, State: it.State,
			Why: problemWords(ctx, it.Problem)})
	}
	return v, nil
}

// jobValue words the value a bulk update sets: rupiah, or a day.
func jobValue(ctx context.Context, j corrections.Job) string {
	if d, err := time.Parse("2006-01-02", j.Value); err == nil {
		return i18n.From(ctx).Day(d)
	}
	if n, err := strconv.ParseInt(j.Value, 10, 64); err == nil {
		return i18n.Rupiah(n)
	}
	return j.Value
}

// showCorrection is a correction job's page; HTMX polls it while the job runs.
func (h *Handler) showCorrection(w http.ResponseWriter, r *http.Request) {
	j, err := h.corrections.Job(r.Context(), chi.URLParam(r, "id"))
	if errors.Is(err, corrections.ErrNotFound) {
		h.notFound(w, r)
		return
	} else if err != nil {
		h.serverError(w, r, err)
		return
	}
	v, err := h.correctionView(r, j)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.page(w, r, http.StatusOK, pages.CorrectionJob(v), pages.CorrectionJobBody(v))
}
