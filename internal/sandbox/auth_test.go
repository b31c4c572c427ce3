package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"testing"
	"time"
)

func TestDailyPasswordVector(t *testing.T) {
	t.Parallel()
	inner := sha256.Sum256([]byte("secret"))
	if got := hex.EncodeToString(inner[:]); got != "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b" {
		t.Fatalf("inner digest = %s", got)
	}
	outer := sha256.Sum256([]byte("2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b" + "20261122"))
	want := hex.EncodeToString(outer[:])

	jakarta, err := time.LoadLocation("Asia/Jakarta")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		at   time.Time
		loc  *time.Location
		want bool
	}{
		{"midday in Jakarta", time.Date(2026, 11, 22, 12, 0, 0, 0, jakarta), jakarta, true},
		{"just after midnight in Jakarta, still the 21st in UTC", time.Date(2026, 11, 21, 17, 30, 0, 0, time.UTC), jakarta, true},
		{"the 22nd in UTC but the 23rd in Jakarta", time.Date(2026, 11, 22, 17, 30, 0, 0, time.UTC), jakarta, false},
		{"the day before", time.Date(2026, 11, 21, 12, 0, 0, 0, jakarta), jakarta, false},
		{"UTC service", time.Date(2026, 11, 22, 23, 0, 0, 0, time.UTC), time.UTC, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DailyPassword("secret", tt.at, tt.loc)
			if (got == want) != tt.want {
				t.Fatalf("DailyPassword = %s, vector %s, want match %v", got, want, tt.want)
			}
		})
	}
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{
		Username:      "sekolah",
		Password:      "secret",
		DisabledUsers: map[string]string{"lama": "old-secret"},
		Now:           time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC),
	})
	today := time.Date(2026, 11, 22, 12, 0, 0, 0, c.sb.loc)
	tests := []struct {
		name       string
		user, pass string
		noAuth     bool
		want       int
	}{
		{"today's password", "sekolah", DailyPassword("secret", today, c.sb.loc), false, http.StatusNotFound},
		{"no credentials", "", "", true, http.StatusUnauthorized},
		{"issued password sent as is", "sekolah", "secret", false, http.StatusUnauthorized},
		{"yesterday's password", "sekolah", DailyPassword("secret", today.AddDate(0, 0, -1), c.sb.loc), false, http.StatusUnauthorized},
		{"tomorrow's password", "sekolah", DailyPassword("secret", today.AddDate(0, 0, 1), c.sb.loc), false, http.StatusUnauthorized},
		{"wrong user", "other", DailyPassword("secret", today, c.sb.loc), false, http.StatusUnauthorized},
		{"disabled user, valid credentials", "lama", DailyPassword("old-secret", today, c.sb.loc), false, http.StatusForbidden},
		{"disabled user, wrong password", "lama", DailyPassword("secret", today, c.sb.loc), false, http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", c.url+"/bill/unknown", nil)
			if !tt.noAuth {
				req.SetBasicAuth(tt.user, tt.pass)
			}
			resp, err := c.hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			r := decodeReply(t, resp)
			if r.httpCode != tt.want {
				t.Fatalf("got %d %q, want %d", r.httpCode, r.StatusDesc, tt.want)
			}
			if tt.want == http.StatusUnauthorized && resp.Header.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
			if tt.want != http.StatusNotFound && string(r.Data) != "null" {
				t.Errorf("data = %s, want null", r.Data)
			}
		})
	}

	t.Run("credentials in the address", func(t *testing.T) {
		u, _ := url.Parse(c.url + "/bill_component/search/biller")
		u.User = url.UserPassword("sekolah", DailyPassword("secret", today, c.sb.loc))
		resp, err := c.hc.Get(u.String())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if r := decodeReply(t, resp); r.httpCode != http.StatusOK {
			t.Fatalf("got %d", r.httpCode)
		}
	})

	t.Run("sandbox routes need credentials too", func(t *testing.T) {
		resp, err := c.hc.Get(c.url + "/_sandbox/reminders")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if r := decodeReply(t, resp); r.httpCode != http.StatusUnauthorized {
			t.Fatalf("got %d", r.httpCode)
		}
	})

	t.Run("the password follows the service date", func(t *testing.T) {
		// 23:30 in Jakarta on the 22nd is 16:30 UTC; at 00:30 on the 23rd the password changes.
		c.sb.SetClock(time.Date(2026, 11, 22, 17, 30, 0, 0, time.UTC))
		defer c.sb.SetClock(time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC))
		for _, tt := range []struct {
			day  time.Time
			want int
		}{{today, http.StatusUnauthorized}, {today.AddDate(0, 0, 1), http.StatusOK}} {
			req, _ := http.NewRequest("GET", c.url+"/bill_component/search/biller", nil)
			req.SetBasicAuth("sekolah", DailyPassword("secret", tt.day, c.sb.loc))
			resp, err := c.hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("password of %s: got %d, want %d", tt.day.Format("20060102"), resp.StatusCode, tt.want)
			}
		}
	})
}
