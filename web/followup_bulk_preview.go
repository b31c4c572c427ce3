package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/ledger"
	"github.com/sekolah/portal/internal/outbox"
	"github.com/sekolah/portal/views/pages"
)

// followUpSelection reads the arrears report's selection (its filter: class, account,
// due days) from v, as the report spells it, and the problem with it in words ("" : none).
func followUpSelection(ctx context.Context, v url.Values) (ledger.OutstandingFilter, []pages.Hidden, string) {
	class, account := v.Get("class"), strings.TrimSpace(v.Get("account"))
	fromText, toText := v.Get("due_from"), v.Get("due_to")
	from, okFrom := parseDay(&fromText)
	to, okTo := parseDay(&toText)
	f := ledger.OutstandingFilter{Class: class, Account: account, DueFrom: from, DueTo: to, Overdue: true}
	hidden := []pages.Hidden{{Name: "class", Value: class}, {Name: "account", Value: account}, {Name: "due_from", Value: fromText},
		{Name: "due_to", Value: toText}}
	if !okFrom || !okTo {
		return f, hidden, i18n.T(ctx, "form.invalid_date")
	}
	return f, hidden, rangeMessage(ctx, f.Check())
}

// selectionText says the selection in words: its class, account and due days.
func selectionText(ctx context.Context, f ledger.OutstandingFilter) string {
	var parts []string
	if f.Class != "" {
		parts = append(parts, f.Class)
	}
	if f.Account != "" {
		parts = append(parts, f.Account)
	}
	p := i18n.From(ctx)
	if !f.DueFrom.IsZero() || !f.DueTo.IsZero() {
		parts = append(parts, i18n.T(ctx, "outbox.due_between", p.Day(f.DueFrom), p.Day(f.DueTo)))
	}
	if len(parts) == 0 {
		return i18n.T(ctx, "outbox.selection_all")
	}
	return strings.Join(parts, " · ")
}

// previewFollowUps shows the arrears follow-ups of the report's selection: who gets what
// on which channel, who is skipped and why, when sending starts; then the send button.
func (h *Handler) previewFollowUps(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	f, hidden, problem := followUpSelection(ctx, r.URL.Query())
	v := pages.FollowUpBulkView{Selection: selectionText(ctx, f), ReportURL: outstandingURL(f.Class, f.Account, f.DueFrom, f.DueTo), Error: problem}
	if problem != "" {
		h.render(w, r, http.StatusUnprocessableEntity, pages.FollowUpBulk(v))
		return
	}
	plan, err := h.outbox.PlanFollowUps(ctx, outbox.FollowUpFilter{Report: f})
	if err == nil {
		v.Plan, err = h.planView(ctx, plan, "/followups/bulk", hidden)
	}
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, pages.FollowUpBulk(v))
}
