package web

import (
	"context"
	"errors"
	"log/slog"
)

// A request whose person went away (the tab closed, the connection dropped, the portal
// stopping) has its context cancelled; every call under way fails with that
// cancellation, and the handler logs the failure as it would any other. It is not an
// error of the portal, nor of the service it was calling: one load test left 397 ERROR
// lines of "context canceled". clientGoneHandler, around the handlers' logger, writes
// such a line at INFO with canceled=true; ERROR stays for what needs a person (a timeout,
// context.DeadlineExceeded, is one).
type clientGoneHandler struct{ next slog.Handler }

// quietCancellations wraps h so lines about a cancelled request are not errors.
func quietCancellations(h slog.Handler) slog.Handler {
	if _, ok := h.(clientGoneHandler); ok {
		return h
	}
	return clientGoneHandler{next: h}
}

func (c clientGoneHandler) Enabled(ctx context.Context, l slog.Level) bool {
	// A line asked at WARN or ERROR may become an INFO one: it is decided in Handle.
	return c.next.Enabled(ctx, l) || l > slog.LevelInfo && c.next.Enabled(ctx, slog.LevelInfo)
}

func (c clientGoneHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level <= slog.LevelInfo || !cancelledIn(r) {
		if !c.next.Enabled(ctx, r.Level) {
			return nil
		}
		return c.next.Handle(ctx, r)
	}
	if !c.next.Enabled(ctx, slog.LevelInfo) {
		return nil
	}
	out := slog.NewRecord(r.Time, slog.LevelInfo, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(a)
		return true
	})
	out.AddAttrs(slog.Bool("canceled", true))
	return c.next.Handle(ctx, out)
}

func (c clientGoneHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return clientGoneHandler{next: c.next.WithAttrs(as)}
}

func (c clientGoneHandler) WithGroup(name string) slog.Handler {
	return clientGoneHandler{next: c.next.WithGroup(name)}
}

// cancelledIn reports whether a line carries an error that is a cancellation (and not a
// deadline: a timeout needs a person).
func cancelledIn(r slog.Record) bool {
	found := false
	r.Attrs(func(a slog.Attr) bool {
		if err, ok := a.Value.Resolve().Any().(error); ok && isCancellation(err) {
			found = true
			return false
		}
		return true
	})
	return found
}

// isCancellation reports whether err is (or wraps) a context's cancellation.
func isCancellation(err error) bool {
	return errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}
