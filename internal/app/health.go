package app

import "context"

// Ping reports whether the portal can serve: its database answers. The health route asks.
func (a *App) Ping(ctx context.Context) error { return a.DB.Ping(ctx) }
