package web

import (
	"bufio"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/app"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/config"
)

// TestBodyDeadline: a body that does not arrive within the route's deadline is answered
// 408 in words (and the connection let go), through the request logger's wrapper; one
// over the route's limit 413; one in time is read.
func TestBodyDeadline(t *testing.T) {
	t.Parallel()
	keys := [2][]byte{[]byte(strings.Repeat("h", 32)), []byte(strings.Repeat("b", 32))}
	h := newHandler(Deps{App: &app.App{Config: config.Config{}, Clock: clock.System(time.UTC)}, SessionKeys: keys})
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("read " + r.PostFormValue("a"))) })
	srv := httptest.NewServer(h.requestLogger(h.bodyDeadline(200 * time.Millisecond)(limitBody(1024)(h.readForm(ok)))))
	t.Cleanup(srv.Close)

	send := func(headers, body string) (int, string, time.Duration) {
		t.Helper()
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		start := time.Now()
		conn.SetDeadline(start.Add(10 * time.Second))
		if _, err := conn.Write([]byte("POST / HTTP/1.1\r\nHost: portal\r\nContent-Type: application/x-www-form-urlencoded\r\n" + headers + "\r\n" + body)); err != nil {
			t.Fatal(err)
		}
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("no answer after %v: %v", time.Since(start), err)
		}
		defer res.Body.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := res.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return res.StatusCode, b.String(), time.Since(start)
	}
	// 10 bytes of the 100 announced, then nothing: 408 once the deadline passes, not after
	// the server's minutes.
	status, body, took := send("Content-Length: 100\r\n", "a=12345678")
	if status != http.StatusRequestTimeout || !strings.Contains(body, "terlalu lama terkirim") || took > 5*time.Second {
		t.Fatalf("a stalled body: %d after %v\n%.3000s", status, took, body)
	}
	// Over the limit: 413 in words.
	big := "a=" + strings.Repeat("x", 2000)
	status, body, _ = send("Content-Length: 2002\r\n", big)
	if status != http.StatusRequestEntityTooLarge || !strings.Contains(body, "Isian terlalu besar") || !strings.Contains(body, "1 MB") {
		t.Fatalf("a body over the limit: %d\n%.500s", status, body)
	}
	// In time and within the limit: read.
	if status, body, _ = send("Content-Length: 4\r\n", "a=ok"); status != http.StatusOK || body != "read ok" {
		t.Fatalf("a body in time: %d %q", status, body)
	}
}
