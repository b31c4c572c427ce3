package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path"
	"strconv"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/jobs"
)

// TestBillingFault reads the payment service's answers over real HTTP as the engine acts
// on them: a gateway's 502 or 504 and no answer at all may have been applied (read
// before sending again), a 5xx or 429 is the service down, 401/403 its refusal of the
// portal's credentials, any other 4xx a refusal of the items with the service's words.
func TestBillingFault(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(path.Base(r.URL.Path))
		if code == 0 {
			time.Sleep(300 * time.Millisecond) // longer than the client waits
			code = http.StatusOK
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"status":%q,"status_code":%d,"status_desc":"bill_upload_list[2].account_code: unknown","data":null}`,
			http.StatusText(code), code)
	}))
	defer srv.Close()
	call := func(code int) error {
		c, err := billing.New(billing.Config{BaseURL: srv.URL, Username: "portal", Password: "issued", Now: time.Now, Timeout: 100 * time.Millisecond,
			MaxAttempts: 1, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.GetComponent(context.Background(), strconv.Itoa(code))
		return err
	}
	for _, c := range []struct {
		code  int
		fault jobs.Fault
	}{
		{502, jobs.NoAnswer}, {504, jobs.NoAnswer}, {0, jobs.NoAnswer},
		{500, jobs.Down}, {503, jobs.Down}, {429, jobs.Down},
		{401, jobs.Denied}, {403, jobs.Denied},
		{400, jobs.Refused}, {404, jobs.Refused}, {409, jobs.Refused}, {422, jobs.Refused},
	} {
		err := call(c.code)
		f, words := jobs.BillingFault(err)
		if f != c.fault {
			t.Errorf("%d (%v): fault %s, want %s", c.code, err, f, c.fault)
		}
		if f == jobs.Refused && words != "bill_upload_list[2].account_code: unknown" {
			t.Errorf("%d: words %q", c.code, words)
		}
	}
	// No server at all, a request the client refuses before sending, the portal's own.
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	c, _ := billing.New(billing.Config{BaseURL: closed.URL, Username: "portal", Password: "issued", Now: time.Now, MaxAttempts: 1, Logger: quiet})
	_, err := c.GetComponent(context.Background(), "x")
	if f, _ := jobs.BillingFault(err); f != jobs.NoAnswer {
		t.Errorf("no connection (%v): fault %s", err, f)
	}
	_, err = c.GetComponent(context.Background(), "")
	if f, _ := jobs.BillingFault(err); f != jobs.Refused || !errors.Is(err, billing.ErrValidation) {
		t.Errorf("refused by the client (%v): fault %s", err, f)
	}
	if f, _ := jobs.BillingFault(errors.New("disk full")); f != jobs.Other {
		t.Errorf("the portal's own error: fault %d", f)
	}
	if f, _ := jobs.BillingFault(nil); f != jobs.NoFault {
		t.Errorf("nil: fault %s", f)
	}
}
