package web

import (
	"context"
	"errors"
	"mime"
	"net/http"

	"github.com/go-chi/chi/v5/middleware"
	"github.com/sekolah/portal/internal/audit"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/reports"
	"github.com/sekolah/portal/views/viewctx"
)

// exportFormat reads ?format=; ok is false when there is none (the page is wanted).
func (h *Handler) exportFormat(w http.ResponseWriter, r *http.Request) (format reports.Format, ok, handled bool) {
	s := r.URL.Query().Get("format")
	if s == "" || r.Method != http.MethodGet {
		return "", false, false
	}
	f, valid := reports.ParseFormat(s)
	if !valid {
		h.renderError(w, r, http.StatusBadRequest, i18n.T(r.Context(), "reports.bad_format"))
		return "", false, true
	}
	return f, true, false
}

// exportFormatLabel names a file format the way the report pages offer it ("" when the
// format is unknown), for the audit log.
func exportFormatLabel(ctx context.Context, format string) string {
	switch reports.Format(format) {
	case reports.XLSX:
		return i18n.T(ctx, "reports.export_xlsx_short")
	case reports.CSVExcelID:
		return i18n.T(ctx, "reports.export_csv_id")
	case reports.CSV:
		return i18n.T(ctx, "reports.export_csv_comma")
	}
	return ""
}

// flushWriter lets the export push what it has written to the client.
type flushWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// export streams a report file. The response starts (headers sent and flushed) once the
// first data has been read, so a failure before that is still an ordinary error page; a
// failure after it aborts the connection, so the browser reports a failed download
// instead of saving a file that looks complete but is not.
// notFound, when set, answers for an unknown student.
func (h *Handler) export(w http.ResponseWriter, r *http.Request, format reports.Format, filename string, run func(reports.Export) error, notFound func()) {
	ctx := r.Context()
	rc := http.NewResponseController(w)
	started := false
	p, _ := viewctx.CurrentPerson(ctx)
	ex := reports.Export{
		Format: format, W: flushWriter{w, rc}, Printer: i18n.From(ctx), By: p.DisplayName, At: h.now(),
		Start: func() {
			started = true
			hd := w.Header()
			hd.Set("Content-Type", format.ContentType())
			hd.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": filename}))
			hd.Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusOK)
			_ = rc.Flush()
		},
	}
	err := run(ex)
	target := r.URL.Path + "?" + r.URL.RawQuery
	e := auditReportExport.With(audit.File(filename), audit.Format(string(format)))
	e.Target, e.Detail = target, filename
	switch {
	case err == nil:
		e.Outcome = audit.OK
		h.record(r, e)
	case started:
		h.log.Error("report export failed mid-stream", "path", r.URL.Path, "err", err,
			"request_id", middleware.GetReqID(ctx))
		e.Outcome = audit.Failed
		h.record(r, e)
		panic(http.ErrAbortHandler)
	case errors.Is(err, billing.ErrNotFound) && notFound != nil:
		notFound()
	case rangeMessage(ctx, err) != "":
		h.renderError(w, r, http.StatusUnprocessableEntity, rangeMessage(ctx, err))
	default:
		h.log.Error("report export", "path", r.URL.Path, "err", err, "request_id", middleware.GetReqID(ctx))
		h.renderError(w, r, http.StatusBadGateway, i18n.T(ctx, "reports.export_failed", h.upstreamMessage(ctx, err, false)))
	}
}

// Write sends p on to the client.
func (f flushWriter) Write(p []byte) (int, error) { return f.w.Write(p) }

// Flush sends what is buffered; a writer that cannot flush simply sends it later.
func (f flushWriter) Flush() { _ = f.rc.Flush() }
