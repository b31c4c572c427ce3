package app

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// Periodic is a background worker that runs a task at once and then every Interval until
// it is stopped (the pruner of sign-in attempts and sessions is one).
type Periodic struct {
	Name     string
	Interval time.Duration
	Run      func(ctx context.Context) error
	Log      *slog.Logger

	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

// Start runs the task in the background under ctx until Stop.
func (p *Periodic) Start(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done != nil {
		return errors.New("app: " + p.Name + " already started")
	}
	ctx, p.cancel = context.WithCancel(ctx)
	p.done = make(chan struct{})
	go p.loop(ctx, p.done)
	return nil
}

func (p *Periodic) loop(ctx context.Context, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(p.Interval)
	defer t.Stop()
	for {
		if err := p.Run(ctx); err != nil && ctx.Err() == nil && p.Log != nil {
			p.Log.Warn(p.Name, "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Stop ends the loop and waits for a run under way to return, or for ctx.
func (p *Periodic) Stop(ctx context.Context) error {
	p.mu.Lock()
	done := p.done
	if p.cancel != nil {
		p.cancel()
	}
	p.mu.Unlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
