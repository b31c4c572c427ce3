package web

import (
	"context"
	"fmt"
	"time"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/messaging"
	"github.com/sekolah/portal/internal/outbox"
	"github.com/sekolah/portal/views/pages"
)

// planView shapes a batch's preview for the page: each student's message and channels
// in words, when sending starts, the send form posting to action with hidden.
func (h *Handler) planView(ctx context.Context, p outbox.Plan, action string, hidden []pages.Hidden) (pages.OutboxPlanView, error) {
	set, err := h.outbox.Settings(ctx)
	if err != nil {
		return pages.OutboxPlanView{}, err
	}
	v := pages.OutboxPlanView{Messages: p.Messages, Students: p.Students, Skipped: p.Skipped, StartsAt: p.At,
		Later: p.At.After(h.now().Add(time.Second)), Hours: hoursText(set.Hours), PerMinute: set.PerMinute,
		SampleSubject: p.Sample.Subject, SampleText: p.Sample.Text, Action: action, Hidden: hidden,
		NoChannel: !h.messaging.Configured(messaging.WhatsApp) && !h.messaging.Configured(messaging.Email)}
	for _, r := range p.Rows {
		row := pages.OutboxPlanRow{NIS: r.NIS, Name: r.Name, Class: r.Class, Amount: r.Amount, Sends: r.Sends(),
			StudentURL: studentURL(r.NIS), WhatsApp: channelCell(ctx, r.WhatsApp), Email: channelCell(ctx, r.Email)}
		switch p.Kind {
		case messaging.KindFollowUp:
			row.What = i18n.T(ctx, "outbox.what_followup", r.Count)
		default:
			row.What = i18n.T(ctx, "outbox.what_components", r.Count)
		}
		v.Rows = append(v.Rows, row)
		if r.Sends() {
			v.Hidden = append(v.Hidden, pages.Hidden{Name: "nis", Value: r.NIS})
		}
	}
	return v, nil
}

func channelCell(ctx context.Context, c outbox.PlanChannel) pages.OutboxChannelCell {
	if c.Skip != "" {
		return pages.OutboxChannelCell{Skip: outboxProblemWords(ctx, c.Skip)}
	}
	return pages.OutboxChannelCell{To: c.To}
}

// outboxProblemWords says an outbox message's problem (why it was skipped or failed).
func outboxProblemWords(ctx context.Context, problem string) string {
	key, arg := outbox.ProblemKey(problem)
	if arg != "" {
		return i18n.T(ctx, key, arg)
	}
	return i18n.T(ctx, key)
}

// hoursText is the sending hours as people write them: "06.00–20.00".
func hoursText(h outbox.Hours) string {
	t := func(m int) string { return fmt.Sprintf("%02d.%02d", m/60, m%60) }
	return t(h.From) + "–" + t(h.To)
}
