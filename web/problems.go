package web

import (
	"context"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/problem"
)

// problemMessage says one problem in the person's language. Every form, filter and
// upload page words its problems through here (or problemMessages): no handler turns a
// rule into words of its own.
func problemMessage(ctx context.Context, p problem.Problem) string { return p.Message(i18n.From(ctx)) }

// problemMessages says a form's problems in the person's language, by field: the first
// problem of each field is the one shown beside it.
func problemMessages(ctx context.Context, l problem.List) map[string]string {
	out := make(map[string]string, len(l))
	for _, p := range l {
		if _, seen := out[p.Field]; !seen {
			out[p.Field] = problemMessage(ctx, p)
		}
	}
	return out
}
