package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"
)

func TestFaultErrorRate(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{Seed: 42})
	c.seedStudents("A1")
	c.must(http.StatusOK, "POST", "/_sandbox/faults", obj{"error_rate": 0.3})
	failed := 0
	const n = 400
	for range n {
		switch r := c.do("GET", "/bill/A1", nil); r.httpCode {
		case http.StatusServiceUnavailable:
			failed++
		case http.StatusOK:
		default:
			t.Fatalf("unexpected %d", r.httpCode)
		}
		// Sandbox routes are never failed.
		c.must(http.StatusOK, "GET", "/_sandbox/faults", nil)
	}
	if failed < n*20/100 || failed > n*40/100 {
		t.Fatalf("%d of %d failed with error_rate 0.3", failed, n)
	}

	// A failed request is not applied; the status is configurable.
	c.sb.SetFaults(Faults{ErrorRate: 1, Status: http.StatusInternalServerError})
	r := c.do("POST", "/bill/batch", obj{"bill_list": []obj{studentJSON("B2", "x")}})
	if r.httpCode != http.StatusInternalServerError || string(r.Data) != "null" {
		t.Fatalf("got %d %s", r.httpCode, r.Data)
	}
	c.must(http.StatusOK, "POST", "/_sandbox/faults", obj{})
	c.must(http.StatusNotFound, "GET", "/bill/B2", nil)
}

func TestFaultsAreRepeatable(t *testing.T) {
	t.Parallel()
	run := func(seed uint64) []int {
		c := newSandbox(t, Options{Seed: seed})
		c.sb.SetFaults(Faults{ErrorRate: 0.5})
		var codes []int
		for range 40 {
			codes = append(codes, c.do("GET", "/bill_component/search/biller", nil).httpCode)
		}
		return codes
	}
	a, b := run(7), run(7)
	if !slices.Equal(a, b) {
		t.Fatalf("same seed, different faults:\n%v\n%v", a, b)
	}
	if slices.Equal(a, run(8)) {
		t.Fatalf("different seeds gave the same 40 faults")
	}
}

func TestFaultTimeoutAppliesThenHangs(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{HangLimit: time.Minute})
	c.must(http.StatusOK, "POST", "/_sandbox/faults", obj{"timeout_rate": 1})

	// The client gives up; the student was created anyway: the ambiguous case.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	body, _ := json.Marshal(obj{"bill_list": []obj{studentJSON("HANG1", "x")}})
	req, _ := http.NewRequestWithContext(ctx, "POST", c.url+"/bill/batch", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.SetBasicAuth("sandbox", DailyPassword("sandbox", c.sb.Now(), c.sb.loc))
	resp, err := c.hc.Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("got an answer (%d) instead of a hang", resp.StatusCode)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	c.sb.SetFaults(Faults{})
	c.must(http.StatusOK, "GET", "/bill/HANG1", nil)
}

func TestFaultTimeoutEndsAtHangLimit(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{HangLimit: 50 * time.Millisecond})
	c.sb.SetFaults(Faults{TimeoutRate: 1, LatencyMS: 10})
	// A patient client gets the real answer once the hang ends.
	r := c.must(http.StatusCreated, "POST", "/bill/batch", obj{"bill_list": []obj{studentJSON("LATE1", "x")}})
	if got := into[[]student](t, r); len(got) != 1 || got[0].BillKeyValue != "LATE1" {
		t.Fatalf("data = %s", r.Data)
	}
}

func TestFaultsValidation(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{})
	for _, bad := range []obj{
		{"error_rate": 1.5}, {"error_rate": -0.1}, {"timeout_rate": 2},
		{"status": 200}, {"status": 600}, {"latency_ms": -1}, {"error_rate": "half"},
	} {
		c.must(http.StatusBadRequest, "POST", "/_sandbox/faults", bad)
	}
	got := into[Faults](t, c.must(http.StatusOK, "POST", "/_sandbox/faults", obj{"error_rate": 0.25, "latency_ms": 0}))
	if got != (Faults{ErrorRate: 0.25, Status: http.StatusServiceUnavailable}) {
		t.Fatalf("faults = %+v", got)
	}
}
