package parents

import (
	"sync"
	"time"

	"github.com/sekolah/portal/internal/clock"
)

// Limiter bounds how often one address may open parent pages. Parents on mobile data
// share addresses (carrier-grade NAT), so opening a real page is allowed often, while a
// wrong token counts heavily: guessing links is stopped long before it could find one,
// and a school's parents behind one address are not. In memory: each instance limits
// its own share, which bounds guessing all the same.
type Limiter struct {
	// Pages is how many pages an address may open per Window; Misses how many wrong
	// links (404) it may try per Window.
	Pages, Misses int
	Window        time.Duration
	Clock         clock.Clock

	mu    sync.Mutex
	addrs map[string]*window
}

type window struct {
	start         time.Time
	pages, misses int
}

// maxAddresses bounds the limiter's memory; past it the oldest windows are dropped.
const maxAddresses = 100_000

// NewLimiter allows pages pages and misses wrong links per window from one address.
func NewLimiter(clk clock.Clock, pages, misses int, window time.Duration) *Limiter {
	return &Limiter{Pages: pages, Misses: misses, Window: window, Clock: clk}
}

func (l *Limiter) current(addr string) *window {
	now := l.Clock.Now()
	if l.addrs == nil {
		l.addrs = map[string]*window{}
	}
	w, ok := l.addrs[addr]
	if !ok || now.Sub(w.start) >= l.Window {
		if len(l.addrs) >= maxAddresses {
			for a, old := range l.addrs {
				if now.Sub(old.start) >= l.Window {
					delete(l.addrs, a)
				}
			}
		}
		if len(l.addrs) >= maxAddresses {
			return &window{start: now} // counted nowhere: the map stays bounded
		}
		w = &window{start: now}
		l.addrs[addr] = w
	}
	return w
}

// Allow counts one page from addr and reports whether it may be served, and if not,
// how long until it may.
func (l *Limiter) Allow(addr string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.current(addr)
	if w.pages >= l.Pages || w.misses >= l.Misses {
		return false, l.Window - l.Clock.Now().Sub(w.start)
	}
	w.pages++
	return true, 0
}

// Miss counts a wrong link from addr.
func (l *Limiter) Miss(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.current(addr).misses++
}
