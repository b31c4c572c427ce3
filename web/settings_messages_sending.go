package web

import (
	"context"
	"net/http"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/messaging"
	"github.com/sekolah/portal/internal/outbox"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/views/pages"
)

// outboxSettingsView is the sending's settings as the form shows them.
func outboxSettingsView(in outbox.SettingsInput, errs map[string]string) pages.OutboxSettingsView {
	return pages.OutboxSettingsView{ReminderDays: in.ReminderDays, HoursFrom: in.HoursFrom, HoursTo: in.HoursTo, PerMinute: in.PerMinute,
		Errors: errs}
}

// currentOutboxSettings is the sending's settings as stored, for the form.
func (h *Handler) currentOutboxSettings(ctx context.Context) (pages.OutboxSettingsView, error) {
	set, err := h.outbox.Settings(ctx)
	if err != nil {
		return pages.OutboxSettingsView{}, err
	}
	return outboxSettingsView(outbox.InputOf(set), nil), nil
}

// saveOutboxSettings stores the sending's settings (reminder days, sending hours, the
// gateway's pace); a mistake shows the page again with what was typed (422).
func (h *Handler) saveOutboxSettings(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	in := outbox.SettingsInput{ReminderDays: r.PostFormValue(outbox.FieldReminderDays), HoursFrom: r.PostFormValue(outbox.FieldHoursFrom),
		HoursTo: r.PostFormValue(outbox.FieldHoursTo), PerMinute: r.PostFormValue(outbox.FieldPerMinute)}
	_, err := h.outbox.SaveSettings(ctx, h.actor(r), in)
	if err == nil {
		h.addFlash(w, r, "success", i18n.T(ctx, "outbox.settings_saved"))
		h.redirect(w, r, "/settings/messages")
		return
	}
	ps, ok := problem.As(err)
	if !ok {
		h.serverError(w, r, err)
		return
	}
	tpls, err := h.messaging.Templates(ctx)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	v := h.messagesSettingsView(ctx)
	for _, k := range messaging.Kinds() {
		v.Templates = append(v.Templates, templateRow(ctx, k, tpls[k]))
	}
	v.Outbox = outboxSettingsView(in, problemMessages(ctx, ps))
	h.render(w, r, http.StatusUnprocessableEntity, pages.SettingsMessages(v))
}
