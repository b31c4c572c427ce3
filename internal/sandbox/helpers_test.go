package sandbox

import (
	"bytes"
	"cmp"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// testNow is the fixed clock of most tests: 22 November 2026, 09:00 in Jakarta.
var testNow = time.Date(2026, 11, 22, 2, 0, 0, 0, time.UTC)

// reply is a decoded envelope with its data left raw.
type reply struct {
	Status     string          `json:"status"`
	StatusCode int             `json:"status_code"`
	StatusDesc string          `json:"status_desc"`
	Data       json.RawMessage `json:"data"`
	httpCode   int
}

// apiClient talks to a sandbox over real HTTP.
type apiClient struct {
	t    *testing.T
	sb   *Server
	url  string
	user string
	pass string // issued password; the daily one is derived per request
	hc   *http.Client
}

func newSandbox(t *testing.T, opts Options) *apiClient {
	t.Helper()
	if opts.Now.IsZero() {
		opts.Now = testNow
	}
	sb, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	srv := httptest.NewServer(sb)
	t.Cleanup(func() {
		srv.Close()
		sb.Close()
	})
	return &apiClient{t: t, sb: sb, url: srv.URL, user: cmp.Or(opts.Username, "sandbox"), pass: cmp.Or(opts.Password, "sandbox"), hc: srv.Client()}
}

// raw sends a request with the given body bytes and content type.
func (c *apiClient) raw(method, path, contentType string, body []byte) reply {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, c.url+path, rd)
	if err != nil {
		c.t.Fatalf("request: %v", err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.SetBasicAuth(c.user, DailyPassword(c.pass, c.sb.Now(), c.sb.loc))
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	return decodeReply(c.t, resp)
}

func decodeReply(t *testing.T, resp *http.Response) reply {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	var r reply
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s %s: body is not an envelope: %v: %q", resp.Request.Method, resp.Request.URL.Path, err, b)
	}
	r.httpCode = resp.StatusCode
	if r.StatusCode != resp.StatusCode || r.Status != http.StatusText(resp.StatusCode) {
		t.Fatalf("%s %s: envelope %d %q does not match HTTP %d", resp.Request.Method, resp.Request.URL.Path, r.StatusCode, r.Status, resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q", ct)
	}
	return r
}

// do sends body as JSON (nil: no body).
func (c *apiClient) do(method, path string, body any) reply {
	c.t.Helper()
	if body == nil {
		return c.raw(method, path, "", nil)
	}
	b, err := json.Marshal(body)
	if err != nil {
		c.t.Fatalf("marshal: %v", err)
	}
	return c.raw(method, path, "application/json", b)
}

// must sends and fails the test unless the answer has the wanted status.
func (c *apiClient) must(want int, method, path string, body any) reply {
	c.t.Helper()
	r := c.do(method, path, body)
	if r.httpCode != want {
		c.t.Fatalf("%s %s: got %d %q, want %d", method, path, r.httpCode, r.StatusDesc, want)
	}
	return r
}

// into decodes the data of a reply.
func into[T any](t *testing.T, r reply) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.Data, &v); err != nil {
		t.Fatalf("decode data: %v: %s", err, r.Data)
	}
	return v
}

type obj = map[string]any

// ts is the UTC-midnight timestamp of a day.
func ts(y int, m time.Month, d int) string {
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Format(timeLayout)
}

func studentJSON(nis, name string) obj {
	return obj{"name": name, "bill_key_value": nis, "bill_key_name": "NIS", "phone": "081234567890", "email": strings.ToLower(nis) + "@example.com"}
}

// componentJSON is a component of the given student due on the given day,
// expiring a month later.
func componentJSON(nis, account string, due time.Time, amount, penalty int64) obj {
	return obj{
		"bill_key": nis, "account_code": account, "bill_component_name": "SPP " + due.Format("January 2006"),
		"due_date": due.Format(timeLayout), "expiry_date": due.AddDate(0, 1, 0).Format(timeLayout),
		"amount": amount, "penalty_amount": penalty, "notes": "spp",
	}
}

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// seedStudents creates students with the given NIS.
func (c *apiClient) seedStudents(nis ...string) {
	c.t.Helper()
	list := make([]obj, len(nis))
	for i, n := range nis {
		list[i] = studentJSON(n, "Siswa "+n)
	}
	c.must(http.StatusCreated, "POST", "/bill/batch", obj{"bill_list": list})
}

// upload stores components and returns their records.
func (c *apiClient) upload(items ...obj) []record {
	c.t.Helper()
	return into[[]record](c.t, c.must(http.StatusCreated, "POST", "/bill_component/batch", obj{"bill_upload_list": items}))
}
