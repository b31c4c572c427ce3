package billing

// The password date tolerance against the sandbox over real HTTP: the
// service takes its date in one zone, the portal is configured with another.

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/sandbox"
)

// counted is a sandbox behind a handler that counts what it answered.
type counted struct {
	srv      *sandbox.Server
	c        *Client
	logs     *syncBuffer
	requests atomic.Int64
	refused  atomic.Int64 // 401s
	clock    *movingClock
}

// movingClock is one clock for the sandbox and the client, moved by the test.
type movingClock struct {
	mu sync.Mutex
	t  time.Time
}

func (m *movingClock) now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.t
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// zonedPair starts a sandbox counting days in service and a client
// configured with client, both at now.
func zonedPair(t *testing.T, service, client *time.Location, now time.Time, zoneless bool) *counted {
	t.Helper()
	srv, err := sandbox.New(sandbox.Options{Username: testUser, Password: testIssued, Location: service, Now: now, Zoneless: zoneless})
	if err != nil {
		t.Fatal(err)
	}
	k := &counted{srv: srv, logs: &syncBuffer{}, clock: &movingClock{t: now}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, status: 200}
		srv.ServeHTTP(sw, r)
		k.requests.Add(1)
		if sw.status == http.StatusUnauthorized {
			k.refused.Add(1)
		}
	}))
	t.Cleanup(func() {
		ts.Close()
		srv.Close()
	})
	k.c, err = New(Config{BaseURL: ts.URL, Username: testUser, Password: testIssued, Location: client,
		Now: k.clock.now, Logger: debugLogger(k.logs), RetryBase: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// at moves both clocks.
func (k *counted) at(t time.Time) {
	k.clock.mu.Lock()
	k.clock.t = t
	k.clock.mu.Unlock()
	k.srv.SetClock(t)
}

// calls makes n calls of several kinds and fails the test on an error.
func (k *counted) calls(t *testing.T, n int) {
	t.Helper()
	ctx := context.Background()
	for i := range n {
		var err error
		switch i % 3 {
		case 0:
			_, err = k.c.Search(ctx, Query{})
		case 1:
			_, err = k.c.ListStudents(ctx, StudentQuery{})
		case 2:
			_, err = k.c.CreateStudent(ctx, Student{NIS: fmt.Sprintf("S%d-%d", k.requests.Load(), i), Name: "Siswa"})
		}
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
}

// secrets are every password that could leak on days around at.
func secrets(at time.Time) []string {
	out := []string{testIssued}
	for d := -2; d <= 2; d++ {
		out = append(out, DailyPassword(testIssued, at.AddDate(0, 0, d)))
	}
	return out
}

func TestPasswordDateServiceOnUTC(t *testing.T) {
	t.Parallel()
	jakarta := mustZone(t, "Asia/Jakarta")
	// 01:30 on 6 January in Jakarta is still 5 January in UTC.
	night := time.Date(2026, 1, 6, 1, 30, 0, 0, jakarta)
	k := zonedPair(t, time.UTC, jakarta, night, false)

	// The first call: the Jakarta date is refused, the UTC date (tried next) works.
	k.calls(t, 1)
	if got, want := k.refused.Load(), int64(1); got != want {
		t.Fatalf("first call: %d 401s, want %d (the Jakarta date, then the UTC date works)", got, want)
	}
	// The rest of the day costs no 401, before and after the dates meet at 07:00.
	k.calls(t, 12)
	k.at(time.Date(2026, 1, 6, 8, 0, 0, 0, jakarta))
	k.calls(t, 6)
	k.at(time.Date(2026, 1, 6, 23, 59, 0, 0, jakarta))
	k.calls(t, 3)
	if got := k.refused.Load(); got != 1 {
		t.Errorf("%d 401s during the day, want only the first call's one", got)
	}
	logs := k.logs.String()
	if n := strings.Count(logs, "the service accepts the password of the UTC date"); n != 1 {
		t.Errorf("%d date-rule lines, want 1:\n%s", n, logs)
	}
	if z := k.c.ServiceZone(); z != time.UTC {
		t.Errorf("service zone %v, want UTC", z)
	}
	// The next night: the kept rule was for yesterday, so one more 401, then none.
	k.at(time.Date(2026, 1, 7, 1, 30, 0, 0, jakarta))
	k.calls(t, 6)
	if got := k.refused.Load(); got != 2 {
		t.Errorf("%d 401s after the second night's calls, want 2", got)
	}
	for _, s := range secrets(night) {
		if strings.Contains(k.logs.String(), s) {
			t.Fatalf("a password is in the log")
		}
	}
}

func TestPasswordDateServiceAhead(t *testing.T) {
	t.Parallel()
	jakarta := mustZone(t, "Asia/Jakarta")
	// The portal on UTC at 18:30 on 5 January; the service in Jakarta is at 01:30 on the 6th.
	evening := time.Date(2026, 1, 5, 18, 30, 0, 0, time.UTC)
	k := zonedPair(t, jakarta, time.UTC, evening, false)

	k.calls(t, 1)
	// Its own date (also the UTC date), the day before, then the day after works.
	if got := k.refused.Load(); got != 2 {
		t.Fatalf("first call: %d 401s, want 2", got)
	}
	k.calls(t, 12)
	k.at(time.Date(2026, 1, 5, 23, 59, 0, 0, time.UTC))
	k.calls(t, 3)
	if got := k.refused.Load(); got != 2 {
		t.Errorf("%d 401s during the day, want only the first call's 2", got)
	}
	if n := strings.Count(k.logs.String(), "the service accepts the password of the day after the date in UTC"); n != 1 {
		t.Errorf("%d date-rule lines, want 1:\n%s", n, k.logs)
	}
	if z := k.c.ServiceZone(); z.String() != "Asia/Jakarta" {
		t.Errorf("service zone %v, want Asia/Jakarta", z)
	}
	for _, s := range secrets(evening) {
		if strings.Contains(k.logs.String(), s) {
			t.Fatalf("a password is in the log")
		}
	}
}

// TestPasswordDateAgreeing: when the service's zone is the configured one,
// no call costs a 401 and nothing is logged about dates.
func TestPasswordDateAgreeing(t *testing.T) {
	t.Parallel()
	jakarta := mustZone(t, "Asia/Jakarta")
	k := zonedPair(t, jakarta, jakarta, time.Date(2026, 1, 6, 1, 30, 0, 0, jakarta), false)
	k.calls(t, 9)
	if k.refused.Load() != 0 || strings.Contains(k.logs.String(), "accepts the password") {
		t.Errorf("%d 401s; logs:\n%s", k.refused.Load(), k.logs)
	}
	if k.c.ServiceZone() != jakarta {
		t.Errorf("service zone %v", k.c.ServiceZone())
	}
}

// TestZonelessServiceOnUTC: a UTC service writing timestamps without a zone,
// read by a portal configured for Jakarta at 01:30. Once the password date
// shows the service counts in UTC, its times are read as UTC.
func TestZonelessServiceOnUTC(t *testing.T) {
	t.Parallel()
	jakarta := mustZone(t, "Asia/Jakarta")
	for _, tt := range []struct {
		name            string
		service, client *time.Location
		now             time.Time
	}{
		{"service on UTC, portal on Jakarta at 01:30", time.UTC, jakarta, time.Date(2026, 1, 6, 1, 30, 0, 0, jakarta)},
		{"service on Jakarta, portal on UTC at 18:30", jakarta, time.UTC, time.Date(2026, 1, 5, 18, 30, 0, 0, time.UTC)},
		{"both on Jakarta at noon", jakarta, jakarta, time.Date(2026, 1, 6, 12, 0, 0, 0, jakarta)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k := zonedPair(t, tt.service, tt.client, tt.now, true)
			ctx := context.Background()
			if _, err := k.c.CreateStudent(ctx, Student{NIS: "1001", Name: "Ani"}); err != nil {
				t.Fatal(err)
			}
			in := ComponentInput{NIS: "1001", AccountCode: "SPP", Name: "SPP", Due: day(2026, 1, 10), Expiry: day(2026, 1, 31),
				Active: day(2026, 1, 2), Amount: 450000}
			created, err := k.c.CreateComponent(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			paid, err := k.c.Pay(ctx, Payment{NIS: "1001", RefNumber: "R1", ComponentIDs: []string{created.ComponentID}})
			if err != nil {
				t.Fatal(err)
			}
			got, err := k.c.GetComponent(ctx, created.ComponentID)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range []Bill{created, paid[0], got} {
				if !b.Due.Equal(day(2026, 1, 10)) || !b.Expiry.Equal(day(2026, 1, 31)) || !b.Active.Equal(day(2026, 1, 2)) ||
					!b.CreatedAt.Equal(tt.now) {
					t.Errorf("days or created_at misread: %+v", b)
				}
			}
			if !got.PaidAt.Equal(tt.now) || !got.UpdatedAt.Equal(tt.now) || got.PaidAt.Location() != time.UTC {
				t.Errorf("paid_date %v, updated_at %v; want %v", got.PaidAt, got.UpdatedAt, tt.now.UTC())
			}
		})
	}
}

// TestPaidRangeAcrossZones: a search by payment days means the school's
// days, also when the service counts its days in UTC. A payment at 18:30 UTC
// on the 5th is made on the 6th in Jakarta.
func TestPaidRangeAcrossZones(t *testing.T) {
	t.Parallel()
	jakarta := mustZone(t, "Asia/Jakarta")
	night := time.Date(2026, 1, 6, 1, 30, 0, 0, jakarta)
	k := zonedPair(t, time.UTC, jakarta, night, true)
	ctx := context.Background()
	if _, err := k.c.CreateStudent(ctx, Student{NIS: "1001", Name: "Ani"}); err != nil {
		t.Fatal(err)
	}
	paidAt := map[string]time.Time{
		"5th, afternoon":   time.Date(2026, 1, 5, 15, 0, 0, 0, jakarta),
		"6th, 01:30":       night, // still the 5th in UTC
		"6th, 16:59":       time.Date(2026, 1, 6, 16, 59, 0, 0, jakarta),
		"7th, 00:10":       time.Date(2026, 1, 7, 0, 10, 0, 0, jakarta), // still the 6th in UTC
		"7th, after eight": time.Date(2026, 1, 7, 8, 0, 0, 0, jakarta),
	}
	k.at(time.Date(2026, 1, 5, 8, 0, 0, 0, jakarta))
	for name, at := range paidAt {
		b, err := k.c.CreateComponent(ctx, ComponentInput{NIS: "1001", AccountCode: "SPP", Name: name, Due: day(2026, 1, 20), Expiry: day(2026, 1, 31), Amount: 1000})
		if err != nil {
			t.Fatal(err)
		}
		k.at(at)
		if _, err := k.c.Pay(ctx, Payment{NIS: "1001", RefNumber: name, ComponentIDs: []string{b.ComponentID}}); err != nil {
			t.Fatal(err)
		}
		k.at(time.Date(2026, 1, 5, 8, 0, 0, 0, jakarta))
	}
	k.at(time.Date(2026, 1, 8, 1, 0, 0, 0, jakarta)) // a night: the service's zone is learned
	if _, err := k.c.ListStudents(ctx, StudentQuery{}); err != nil || k.c.ServiceZone() != time.UTC {
		t.Fatalf("zone %v, %v", k.c.ServiceZone(), err)
	}
	tests := []struct {
		name     string
		from, to time.Time
		want     string
	}{
		{"the 6th", day(2026, 1, 6), day(2026, 1, 6), "6th, 01:30 6th, 16:59"},
		{"the 6th as a Jakarta midnight", time.Date(2026, 1, 6, 0, 0, 0, 0, jakarta), time.Date(2026, 1, 6, 0, 0, 0, 0, jakarta), "6th, 01:30 6th, 16:59"},
		{"the 7th", day(2026, 1, 7), day(2026, 1, 7), "7th, 00:10 7th, after eight"},
		{"from the 6th", day(2026, 1, 6), time.Time{}, "6th, 01:30 6th, 16:59 7th, 00:10 7th, after eight"},
		{"until the 5th", time.Time{}, day(2026, 1, 5), "5th, afternoon"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, all := range []bool{false, true} {
				var got []string
				if all {
					for b, err := range k.c.All(ctx, Query{PaidFrom: tt.from, PaidTo: tt.to}) {
						if err != nil {
							t.Fatal(err)
						}
						got = append(got, b.Name)
					}
				} else {
					bs, err := k.c.Search(ctx, Query{PaidFrom: tt.from, PaidTo: tt.to, Limit: 100})
					if err != nil {
						t.Fatal(err)
					}
					got = names(bs)
				}
				slices.Sort(got)
				if strings.Join(got, " ") != tt.want {
					t.Errorf("all=%v: %q, want %q", all, strings.Join(got, " "), tt.want)
				}
			}
		})
	}
}

func TestServiceDays(t *testing.T) {
	t.Parallel()
	jakarta := mustZone(t, "Asia/Jakarta")
	d := day(2026, 7, 1)
	for _, tt := range []struct {
		loc, zone *time.Location
		from, to  string
	}{
		{jakarta, jakarta, "20260701", "20260701"},
		{jakarta, time.UTC, "20260630", "20260701"},
		{time.UTC, jakarta, "20260701", "20260702"},
	} {
		if from, to := serviceDays(d, d, tt.loc, tt.zone); from != tt.from || to != tt.to {
			t.Errorf("%v in %v: %s–%s, want %s–%s", tt.loc, tt.zone, from, to, tt.from, tt.to)
		}
	}
	if from, to := serviceDays(time.Time{}, time.Time{}, jakarta, time.UTC); from != "" || to != "" {
		t.Errorf("no range: %q %q", from, to)
	}
}
