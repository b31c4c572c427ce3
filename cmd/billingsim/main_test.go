package main

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/sandbox"
)

func TestFlagDefaults(t *testing.T) {
	c, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := config{addr: "127.0.0.1:8081", username: "sandbox", password: "sandbox", tz: "Asia/Jakarta", accounts: "SPP,BCA,MANDIRI"}
	if c != want {
		t.Fatalf("defaults = %+v, want %+v", c, want)
	}
	c, err = parseFlags([]string{"-addr", ":0", "-demo", "-now", "2026-11-22T09:00:00+07:00", "-accounts", "SPP,BRI", "-db", "x.db"})
	if err != nil || !c.demo || c.addr != ":0" || c.now == "" || c.accounts != "SPP,BRI" || c.db != "x.db" {
		t.Fatalf("parsed = %+v, %v", c, err)
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
