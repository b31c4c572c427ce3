package web

import (
	"context"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/registration"
	"github.com/sekolah/portal/views/components"
	"github.com/sekolah/portal/views/pages"
)

// templateOptions lists the fee templates for a drop-down, after a "choose one" entry.
func (h *Handler) templateOptions(ctx context.Context) ([]components.Option, error) {
	list, err := h.registration.Templates(ctx)
	if err != nil {
		return nil, err
	}
	opts := []components.Option{{Value: "", Label: i18n.T(ctx, "registration.choose_template")}}
	for _, t := range list {
		opts = append(opts, components.Option{Value: t.ID, Label: t.Name + " · " + i18n.Rupiah(t.Total())})
	}
	return opts, nil
}

func registeredLines(comps []registration.RegisteredComponent) []pages.RegisteredLine {
	out := make([]pages.RegisteredLine, len(comps))
	for i, c := range comps {
		out[i] = pages.RegisteredLine{ID: c.ID, Name: c.Name, AccountCode: c.AccountCode, Description: c.Description,
			Amount: c.Amount, Penalty: c.Penalty, Due: c.Due, Expiry: c.Expiry}
	}
	return out
}
