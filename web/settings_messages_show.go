package web

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/messaging"
	"github.com/sekolah/portal/internal/problem"
	"github.com/sekolah/portal/views/pages"
)

// showMessagesSettings is the Messages settings page: how WhatsApp and e-mail are set
// up, the WhatsApp template of each kind of message, and a test message to send.
func (h *Handler) showMessagesSettings(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	tpls, err := h.messaging.Templates(ctx)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	v := h.messagesSettingsView(ctx)
	for _, k := range messaging.Kinds() {
		v.Templates = append(v.Templates, templateRow(ctx, k, tpls[k]))
	}
	if v.Outbox, err = h.currentOutboxSettings(ctx); err != nil {
		h.serverError(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, pages.SettingsMessages(v))
}

// messagesSettingsView is what the page shows besides its forms: the channels' state
// (never a token, a secret or a password) and the webhook's address and verify token.
func (h *Handler) messagesSettingsView(ctx context.Context) pages.SettingsMessagesView {
	v := pages.SettingsMessagesView{WebhookURL: h.messaging.WebhookURL, VerifyToken: h.messaging.VerifyToken()}
	state := func(c messaging.Channel, detail string) pages.ChannelState {
		switch {
		case h.messaging.Sandboxed[c]:
			return pages.ChannelState{State: "sandbox", Detail: i18n.T(ctx, "messages.sandbox_detail")}
		case h.messaging.Configured(c):
			return pages.ChannelState{State: "on", Detail: detail}
		}
		return pages.ChannelState{State: "off", Detail: i18n.T(ctx, "messages.off_detail")}
	}
	v.WhatsApp = state(messaging.WhatsApp, i18n.T(ctx, "messages.phone_id", h.cfg.WhatsApp.PhoneID))
	v.Email = state(messaging.Email, h.cfg.SMTP.Address()+" · "+h.cfg.SMTP.From)
	if h.messaging.Sandboxed[messaging.WhatsApp] {
		v.WebhookURL, v.VerifyToken = "", ""
	}
	return v
}

func templateRow(ctx context.Context, k messaging.Kind, t messaging.Template) pages.MessageTemplateRow {
	return pages.MessageTemplateRow{Kind: string(k), Label: i18n.T(ctx, "messages.kind."+string(k)),
		Fields: i18n.T(ctx, "messages.fields."+string(k)), Name: t.Name, Language: t.Language}
}

// saveMessagesSettings stores the WhatsApp templates; a mistake shows the form again
// with what was typed (422).
func (h *Handler) saveMessagesSettings(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	in := map[messaging.Kind]messaging.Template{}
	for _, k := range messaging.Kinds() {
		in[k] = messaging.Template{Name: r.PostFormValue(messaging.TemplateField(k, false)), Language: r.PostFormValue(messaging.TemplateField(k, true))}
	}
	_, err := h.messaging.SaveTemplates(ctx, h.actor(r), in)
	if err == nil {
		h.addFlash(w, r, "success", i18n.T(ctx, "messages.saved"))
		h.redirect(w, r, "/settings/messages")
		return
	}
	ps, ok := problem.As(err)
	if !ok {
		h.serverError(w, r, err)
		return
	}
	v := h.messagesSettingsView(ctx)
	v.Outbox, _ = h.currentOutboxSettings(ctx)
	v.Errors = problemMessages(ctx, ps)
	for _, k := range messaging.Kinds() {
		v.Templates = append(v.Templates, templateRow(ctx, k, in[k]))
	}
	h.render(w, r, http.StatusUnprocessableEntity, pages.SettingsMessages(v))
}

// sendTestMessage sends an admin's test message through a channel, so they see the
// configuration works; it lands on the sent messages with its status.
func (h *Handler) sendTestMessage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	ch, ok := messaging.ParseChannel(r.PostFormValue("channel"))
	to := strings.TrimSpace(r.PostFormValue("to"))
	fail := func(status int, msg string) {
		tpls, err := h.messaging.Templates(ctx)
		if err != nil {
			h.serverError(w, r, err)
			return
		}
		v := h.messagesSettingsView(ctx)
		for _, k := range messaging.Kinds() {
			v.Templates = append(v.Templates, templateRow(ctx, k, tpls[k]))
		}
		v.Outbox, _ = h.currentOutboxSettings(ctx)
		v.TestChannel, v.TestTo, v.TestError = string(ch), r.PostFormValue("to"), msg
		h.render(w, r, status, pages.SettingsMessages(v))
	}
	if !ok {
		fail(http.StatusUnprocessableEntity, i18n.T(ctx, "error.400.body"))
		return
	}
	addr, err := messaging.TestAddress(ch, to)
	if err != nil {
		fail(http.StatusUnprocessableEntity, i18n.T(ctx, "messages.err.test_to_"+string(ch)))
		return
	}
	prof, _ := h.school.Profile(ctx)
	_, err = h.messaging.SendTest(ctx, h.actor(r), ch, addr, prof.Name)
	switch se, isSend := messaging.AsSendError(err); {
	case err == nil:
		h.addFlash(w, r, "success", i18n.T(ctx, "messages.test_sent", to))
		h.redirect(w, r, "/settings/messages/sent")
	case errors.Is(err, messaging.ErrNoChannel):
		fail(http.StatusUnprocessableEntity, i18n.T(ctx, "messages.err.no_channel"))
	case isSend:
		h.log.Warn("test message", "channel", ch, "code", se.Code, "err", err)
		fail(http.StatusBadGateway, i18n.T(ctx, se.Key, se.Code))
	default:
		h.serverError(w, r, err)
	}
}
