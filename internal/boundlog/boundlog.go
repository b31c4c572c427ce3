// Package boundlog bounds what one log line can carry: a slog.Handler that cuts every
// value longer than MaxValue (a string, an error's text, anything printed) before the
// handler it wraps sees it. Values logged from a request (its path, its query, what was
// typed, an error quoting them) are the person's to choose: a 50,000-character search once
// became one 50,000-character line. The portal's logger is wrapped once, in internal/app
// and cmd/portal.
package boundlog

import (
	"context"
	"fmt"
	"log/slog"
	"unicode/utf8"
)

// MaxValue is the most bytes of one value a log line keeps: enough for any path, query,
// error or stack line the portal writes itself.
const MaxValue = 1024

// Handler wraps a slog.Handler and bounds every value it is given.
type Handler struct{ next slog.Handler }

// New wraps next; a handler that is already bounded is returned as it is.
func New(next slog.Handler) slog.Handler {
	if _, ok := next.(*Handler); ok {
		return next
	}
	return &Handler{next: next}
}

// Enabled is the wrapped handler's.
func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

// Handle passes the record on with its message and every attribute bounded.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, Cut(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(bound(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

// WithAttrs bounds the attributes before the wrapped handler keeps them.
func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	b := make([]slog.Attr, len(as))
	for i, a := range as {
		b[i] = bound(a)
	}
	return &Handler{next: h.next.WithAttrs(b)}
}

// WithGroup is the wrapped handler's, bounded.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{next: h.next.WithGroup(Cut(name))}
}

func bound(a slog.Attr) slog.Attr {
	a.Key = Cut(a.Key)
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		if s := v.String(); len(s) > MaxValue {
			return slog.String(a.Key, Cut(s))
		}
	case slog.KindGroup:
		g := v.Group()
		b := make([]any, len(g))
		for i, x := range g {
			b[i] = bound(x)
		}
		return slog.Group(a.Key, b...)
	case slog.KindAny:
		var s string
		switch x := v.Any().(type) {
		case error:
			s = x.Error()
		case []byte:
			s = string(x)
		default:
			s = fmt.Sprintf("%+v", x)
		}
		if len(s) > MaxValue {
			return slog.String(a.Key, Cut(s))
		}
	}
	a.Value = v
	return a
}

// Cut is s when it is at most MaxValue bytes, else its first MaxValue bytes (whole
// characters) and how much was cut.
func Cut(s string) string {
	if len(s) <= MaxValue {
		return s
	}
	end := MaxValue
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return fmt.Sprintf("%s…(%d more bytes)", s[:end], len(s)-end)
}
