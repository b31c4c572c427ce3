package main

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/sandbox"
)

func TestFlagDefaults(t *testing.T) {
	c, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := config{addr: "127.0.0.1:8081", username: "sandbox", password: "sandbox", tz: "Asia/Jakarta", accounts: "SPP,BCA,MANDIRI", maxLimit: 1000}
	if c != want {
		t.Fatalf("defaults = %+v, want %+v", c, want)
	}
	c, err = parseFlags([]string{"-addr", ":0", "-demo", "-now", "2026-11-22T09:00:00+07:00", "-accounts", "SPP,BRI", "-db", "x.db",
		"-username", "10014", "-password", "pw", "-tz", "UTC", "-callback-url", "http://127.0.0.1:9/cb", "-max-limit", "300",
		"-cap-silently", "-zoneless", "-bank-payments", "30s"})
	if err != nil {
		t.Fatal(err)
	}
	want = config{addr: ":0", username: "10014", password: "pw", tz: "UTC", accounts: "SPP,BRI", db: "x.db",
		now: "2026-11-22T09:00:00+07:00", demo: true, callbackURL: "http://127.0.0.1:9/cb", maxLimit: 300,
		capSilently: true, zoneless: true, bankPayments: 30 * time.Second}
	if c != want {
		t.Fatalf("parsed = %+v\nwant %+v", c, want)
	}
	opts, err := c.options(nil)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Username != "10014" || opts.Password != "pw" || opts.Location != time.UTC || strings.Join(opts.Accounts, ",") != "SPP,BRI" ||
		opts.DBPath != "x.db" || !opts.Now.Equal(time.Date(2026, 11, 22, 2, 0, 0, 0, time.UTC)) || !opts.Demo ||
		opts.CallbackURL != "http://127.0.0.1:9/cb" || opts.MaxLimit != 300 || !opts.CapSilently || !opts.Zoneless ||
		opts.BankPayments != 30*time.Second {
		t.Errorf("options = %+v", opts)
	}
}

func TestFlagErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-tz", "Mars/Olympus"}, "-tz"},
		{[]string{"-now", "yesterday"}, "-now"},
		{[]string{"-max-limit", "0"}, "-max-limit 0: must be from 1 to 1000"},
		{[]string{"-max-limit", "1001"}, "-max-limit 1001: must be from 1 to 1000"},
		{[]string{"-bank-payments", "-1s"}, "-bank-payments -1s: must not be negative"},
		{[]string{"-callback-url", "127.0.0.1/cb"}, "-callback-url: must be an http:// or https:// address"},
	}
	for _, tt := range tests {
		c, err := parseFlags(tt.args)
		if err == nil {
			_, err = c.options(nil)
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err = %v, want %q", tt.args, err, tt.want)
		}
	}
	if _, err := parseFlags([]string{"-bank-payments", "often"}); err == nil {
		t.Error("-bank-payments often: no error")
	}
}

// TestFlagsShapeTheService starts the sandbox as the flags describe and
// checks, over HTTP, that each looser behaviour is on.
func TestFlagsShapeTheService(t *testing.T) {
	c, err := parseFlags([]string{"-tz", "UTC", "-max-limit", "2", "-cap-silently", "-zoneless", "-now", "2026-11-22T09:00:00+07:00", "-username", "u", "-password", "p"})
	if err != nil {
		t.Fatal(err)
	}
	opts, err := c.options(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	srv := httptest.NewServer(sb)
	defer srv.Close()
	do := func(method, path, body string) string {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.SetBasicAuth("u", sandbox.DailyPassword("p", sb.Now(), time.UTC))
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return fmt.Sprint(resp.StatusCode, " ", string(b))
	}
	do("POST", "/bill", `{"name": "Ani", "bill_key_value": "A1"}`)
	for range 3 {
		do("POST", "/bill_component", `{"bill_key": "A1", "account_code": "SPP", "bill_component_name": "SPP",
			"due_date": "2026-12-10T00:00:00Z", "expiry_date": "2027-01-10T00:00:00Z", "amount": 1000}`)
	}
	got := do("GET", "/bill_component/search/biller?limit=1000", "")
	if !strings.HasPrefix(got, "200 ") || strings.Count(got, "bill_component_id") != 2 {
		t.Errorf("-max-limit 2 -cap-silently: %s", got)
	}
	// -zoneless on -tz UTC: the service's wall clock, no zone.
	if !strings.Contains(got, `"due_date":"2026-12-10T00:00:00"`) || !strings.Contains(got, `"created_at":"2026-11-22T02:00:00"`) {
		t.Errorf("-zoneless -tz UTC: %s", got)
	}
}

func TestRequestLogHasNoCredentials(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	now := time.Date(2026, 11, 22, 2, 0, 0, 0, time.UTC)
	sb, err := sandbox.New(sandbox.Options{Password: "very-secret", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	srv := httptest.NewServer(logRequests(log, sb))
	defer srv.Close()

	pass := sandbox.DailyPassword("very-secret", now, sb.Location())
	req, _ := http.NewRequest("GET", srv.URL+"/bill/A1?bill_key=x", nil)
	req.SetBasicAuth("sandbox", pass)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	line := buf.String()
	for _, want := range []string{"method=GET", "path=/bill/A1", "status=404", "duration="} {
		if !strings.Contains(line, want) {
			t.Errorf("log %q lacks %q", line, want)
		}
	}
	for _, secret := range []string{pass, "very-secret", "Basic", "Authorization"} {
		if strings.Contains(line, secret) {
			t.Errorf("log %q contains %q", line, secret)
		}
	}
}

// TestDemoBankPayments: with -demo and -bank-payments, money arrives on its
// own, each payment signed and posted to -callback-url.
func TestDemoBankPayments(t *testing.T) {
	type got struct {
		cb  billing.Callback
		err error
	}
	arrived := make(chan got, 100)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		cb, err := billing.VerifyCallback("demo-pw", "10014", r.Header.Get(billing.CallbackHeader), body, time.UTC)
		arrived <- got{cb, err}
	}))
	defer recv.Close()
	c, err := parseFlags([]string{"-demo", "-bank-payments", "5ms", "-callback-url", recv.URL, "-username", "10014", "-password", "demo-pw", "-tz", "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	opts, err := c.options(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	refs := map[string]bool{}
	timeout := time.After(10 * time.Second)
	for len(refs) < 3 {
		select {
		case g := <-arrived:
			if g.err != nil {
				t.Fatalf("callback refused: %v", g.err)
			}
			if g.cb.NIS == "" || g.cb.Total <= 0 || len(g.cb.Components) != 1 || g.cb.Components[0].State != billing.StatePaid {
				t.Fatalf("callback %+v", g.cb)
			}
			refs[g.cb.RefNumber] = true
		case <-timeout:
			t.Fatalf("only %d bank payments arrived", len(refs))
		}
	}
}
