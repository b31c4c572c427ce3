package reports

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// Cache keeps the last good result of each query for a short time. At most one
// computation of the same key runs at once (singleflight): a hundred principals opening
// the dashboard at eight o'clock make one pass over the bills. When a refresh fails, the
// last good result is served with the error as a warning.
type Cache struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	entries map[string]*cacheEntry
	group   singleflight.Group

	// OnStale, when set, hears of each failed refresh that fell back to older figures
	// (once per failure, not once per waiting request).
	OnStale func(key string, err error)
}

type cacheEntry struct {
	val      any
	at       time.Time // when val was computed
	failedAt time.Time // last failed refresh since val
	err      error
}

// Cached is a result and how fresh it is.
type Cached[T any] struct {
	Value T
	// At is when Value was computed.
	At time.Time
	// Warning is the error of a refresh that failed; Value is then the last good one.
	Warning error
}

// maxEntries bounds the cache; the oldest entry goes first.
const maxEntries = 64

// minRefreshAge keeps a pressed "refresh" from recomputing figures that are only seconds old.
const minRefreshAge = 5 * time.Second

// computeTimeout bounds one computation: it runs detached from the request that
// started it, since others may be waiting for it too.
const computeTimeout = 2 * time.Minute

// NewCache returns a cache whose entries are fresh for ttl.
func NewCache(ttl time.Duration, now func() time.Time) *Cache {
	if now == nil {
		now = time.Now
	}
	return &Cache{ttl: ttl, now: now, entries: map[string]*cacheEntry{}}
}

// retryAfter is how long after a failed refresh the stale figures are served without
// trying again, so a service that is down is not asked on every page view.
func (c *Cache) retryAfter() time.Duration { return min(c.ttl, 30*time.Second) }

// get returns the cached value of key, computing it when missing, stale or when refresh
// asks (and it is not seconds old). A failed computation returns the last good value with
// the error as Cached.Warning, or the error when there is none.
func get[T any](ctx context.Context, c *Cache, key string, refresh bool, compute func(context.Context) (T, error)) (Cached[T], error) {
	now := c.now()
	c.mu.Lock()
	e := c.entries[key]
	if e != nil {
		age := now.Sub(e.at)
		fresh := age < c.ttl && !(refresh && age >= minRefreshAge)
		backingOff := !refresh && e.err != nil && now.Sub(e.failedAt) < c.retryAfter()
		if fresh || backingOff {
			out := Cached[T]{Value: e.val.(T), At: e.at, Warning: e.err}
			c.mu.Unlock()
			return out, nil
		}
	}
	c.mu.Unlock()

	ch := c.group.DoChan(key, func() (any, error) {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), computeTimeout)
		defer cancel()
		v, err := compute(cctx)
		c.mu.Lock()
		if err != nil {
			old := c.entries[key]
			if old != nil {
				old.err, old.failedAt = err, c.now()
			}
			c.mu.Unlock()
			if old != nil && c.OnStale != nil {
				c.OnStale(key, err)
			}
			return nil, err
		}
		c.store(key, &cacheEntry{val: v, at: c.now()})
		c.mu.Unlock()
		return v, nil
	})
	var res singleflight.Result
	select {
	case res = <-ch:
	case <-ctx.Done():
		return Cached[T]{}, ctx.Err()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if res.Err != nil {
		if old := c.entries[key]; old != nil {
			return Cached[T]{Value: old.val.(T), At: old.at, Warning: res.Err}, nil
		}
		return Cached[T]{}, res.Err
	}
	at := now
	if e := c.entries[key]; e != nil {
		at = e.at
	}
	return Cached[T]{Value: res.Val.(T), At: at}, nil
}

// store adds e under key, dropping the oldest entry when full; c.mu is held.
func (c *Cache) store(key string, e *cacheEntry) {
	if _, ok := c.entries[key]; !ok && len(c.entries) >= maxEntries {
		var oldest string
		var at time.Time
		for k, v := range c.entries {
			if oldest == "" || v.at.Before(at) {
				oldest, at = k, v.at
			}
		}
		delete(c.entries, oldest)
	}
	c.entries[key] = e
}
