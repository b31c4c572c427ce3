package sandbox

import (
	"bytes"
	"context"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// ServeHTTP authenticates the request, evaluates the day's reminders when the
// service date has changed, injects the configured faults and routes it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("sandbox: panic", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v))
			writeJSON(w, http.StatusInternalServerError, "internal error", nil)
		}
	}()
	// The Date header shows the service's clock, fixed or not, as a real
	// server's shows its own: clients judge its date rule by it.
	w.Header().Set("Date", s.Now().UTC().Format(http.TimeFormat))
	if code := s.authenticate(r); code != 0 {
		if code == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Basic realm="billing", charset="UTF-8"`)
		}
		writeJSON(w, code, "check the credentials", nil)
		return
	}
	if err := s.evaluateReminders(r.Context(), false); err != nil {
		s.writeError(w, r, err)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/_sandbox/") {
		s.mux.ServeHTTP(w, r)
		return
	}
	s.serveWithFaults(w, r)
}

// authenticate returns 0 for valid credentials of the enabled user, 403 for
// valid credentials of a disabled user, and 401 otherwise. Only the password
// of the service's current date is accepted.
func (s *Server) authenticate(r *http.Request) int {
	user, pass, ok := r.BasicAuth()
	if !ok {
		return http.StatusUnauthorized
	}
	now := s.Now()
	if user == s.username && equal(pass, DailyPassword(s.password, now, s.loc)) {
		return 0
	}
	if issued, found := s.disabled[user]; found && equal(pass, DailyPassword(issued, now, s.loc)) {
		return http.StatusForbidden
	}
	return http.StatusUnauthorized
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// Faults makes a share of later requests fail, slow or hang (sandbox routes
// are never affected).
type Faults struct {
	ErrorRate   float64 `json:"error_rate"`   // share answered with Status, not applied
	Status      int     `json:"status"`       // status of injected errors, default 503
	LatencyMS   int     `json:"latency_ms"`   // delay before every request
	TimeoutRate float64 `json:"timeout_rate"` // share applied, then left hanging
}

// SetFaults replaces the fault configuration (same as POST /_sandbox/faults).
func (s *Server) SetFaults(f Faults) {
	if f.Status == 0 {
		f.Status = http.StatusServiceUnavailable
	}
	s.faultMu.Lock()
	s.faults = f
	s.faultMu.Unlock()
}

// draw decides the fate of one request from the seeded RNG.
func (s *Server) draw() (f Faults, fail, hang bool) {
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	f = s.faults
	if f.ErrorRate > 0 {
		fail = s.rng.Float64() < f.ErrorRate
	}
	if !fail && f.TimeoutRate > 0 {
		hang = s.rng.Float64() < f.TimeoutRate
	}
	return f, fail, hang
}

func (s *Server) serveWithFaults(w http.ResponseWriter, r *http.Request) {
	f, fail, hang := s.draw()
	if f.LatencyMS > 0 {
		t := time.NewTimer(time.Duration(f.LatencyMS) * time.Millisecond)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	switch {
	case fail:
		writeJSON(w, f.Status, "fault injected by the sandbox", nil)
	case hang:
		// Apply the request even if the client gives up meanwhile, then hold
		// the answer: the client cannot tell whether it was applied.
		rec := &bufferedResponse{header: http.Header{}}
		s.mux.ServeHTTP(rec, r.WithContext(context.WithoutCancel(r.Context())))
		t := time.NewTimer(s.hangLimit)
		defer t.Stop()
		select {
		case <-r.Context().Done():
			return
		case <-t.C:
		}
		rec.flushTo(w)
	default:
		s.mux.ServeHTTP(w, r)
	}
}

// bufferedResponse holds a response until it is released.
type bufferedResponse struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header { return b.header }

func (b *bufferedResponse) WriteHeader(code int) {
	if b.code == 0 {
		b.code = code
	}
}

func (b *bufferedResponse) Write(p []byte) (int, error) {
	if b.code == 0 {
		b.code = http.StatusOK
	}
	return b.body.Write(p)
}

func (b *bufferedResponse) flushTo(w http.ResponseWriter) {
	for k, v := range b.header {
		w.Header()[k] = v
	}
	w.WriteHeader(max(b.code, http.StatusOK))
	_, _ = w.Write(b.body.Bytes())
}
