package app

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/sekolah/portal/internal/jobs"
)

// Periodic is a background worker that runs a task at once and then every Interval until
// it is stopped (the pruner of sign-in attempts and sessions is one). Its lifecycle is
// internal/jobs' Worker, like every worker's.
type Periodic struct {
	Name     string
	Interval time.Duration
	Run      func(ctx context.Context) error
	Log      *slog.Logger

	once   sync.Once
	worker *jobs.Worker
}

func (p *Periodic) w() *jobs.Worker {
	p.once.Do(func() { p.worker = jobs.NewWorker() })
	return p.worker
}

// Start runs the task in the background until Stop.
func (p *Periodic) Start(ctx context.Context) error {
	if err := p.w().Run(ctx, p.loop); err != nil {
		return fmt.Errorf("app: %s: %w", p.Name, err)
	}
	return nil
}

func (p *Periodic) loop(ctx context.Context) {
	for {
		if err := p.Run(ctx); err != nil && ctx.Err() == nil && p.Log != nil {
			p.Log.Warn(p.Name, "err", err)
		}
		if !p.w().Sleep(ctx, p.Interval) {
			return
		}
	}
}

// Stop ends the loop, cutting a run under way, and waits for it to return, or for ctx.
func (p *Periodic) Stop(ctx context.Context) error { return p.w().Halt(ctx) }
