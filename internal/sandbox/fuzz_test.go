package sandbox

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// fuzzTargets are the routes that read a body. /_sandbox/faults is left out:
// a fuzzed fault configuration would fail the requests after it.
var fuzzTargets = []struct{ method, path string }{
	{"POST", "/bill/batch"},
	{"POST", "/bill_component/batch"},
	{"POST", "/bill/checkout"},
	{"POST", "/bill_component/pay"},
	{"PUT", "/bill"},
	{"POST", "/_sandbox/clock"},
	{"POST", "/bill"},
	{"POST", "/bill_component"},
	{"PUT", "/bill_component"},
	{"POST", "/bill_component/delete"},
	{"POST", "/_sandbox/bank-payment"},
}

// fuzzServer is one sandbox over real HTTP, shared by the inputs of a fuzz
// target; it has two students so that some fuzzed bodies are valid.
func fuzzServer(f *testing.F) (*Server, *httptest.Server) {
	sb, err := New(Options{Now: testNow})
	if err != nil {
		f.Fatal(err)
	}
	srv := httptest.NewServer(sb)
	f.Cleanup(func() {
		srv.Close()
		sb.Close()
	})
	b, _ := json.Marshal(obj{"bill_list": []obj{studentJSON("A1", "Budi"), studentJSON("B2", "Ani")}})
	req, _ := http.NewRequest("POST", srv.URL+"/bill/batch", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.SetBasicAuth("sandbox", DailyPassword("sandbox", sb.Now(), sb.loc))
	resp, err := srv.Client().Do(req)
	if err != nil {
		f.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		f.Fatalf("seed students: %d", resp.StatusCode)
	}
	return sb, srv
}

// envelopeOf checks that a response is an envelope matching its status.
func envelopeOf(t *testing.T, resp *http.Response) reply {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var r reply
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("not an envelope: %v: %q", err, b)
	}
	if r.StatusCode != resp.StatusCode || r.Status != http.StatusText(resp.StatusCode) {
		t.Fatalf("envelope %d %q for HTTP %d", r.StatusCode, r.Status, resp.StatusCode)
	}
	r.httpCode = resp.StatusCode
	return r
}

func FuzzDecode(f *testing.F) {
	sb, srv := fuzzServer(f)
	seeds := []string{
		``, `{`, `null`, `[]`, `{}`, `"x"`, `0`, `{"bill_list": null}`, `{} {}`, "\xff\xfe",
		`{"bill_list": [{"name": "x", "bill_key_value": "C3", "bill_key_name": "NIS"}]}`,
		`{"bill_list": [{"name": 1}, 2, "3", null, []]}`,
		`{"bill_upload_list": [{"bill_key": "A1", "account_code": "SPP", "bill_component_name": "SPP", "due_date": "2026-12-10T00:00:00Z", "expiry_date": "2027-01-10T00:00:00.000Z", "amount": 450000, "penalty_amount": 25000}]}`,
		`{"bill_upload_list": [{"bill_key": "A1", "amount": 1e400, "penalty_amount": -0.0, "due_date": "2026-02-30T00:00:00Z"}]}`,
		`{"bill_upload_list": [{"amount": 9223372036854775808, "active_date": 5, "expiry_date": "0000-01-01T00:00:00Z"}]}`,
		`{"name": "x", "bill_key_value": "D4", "bill_upload_list": [{"account_code": "BCA", "bill_component_name": "Uang Pangkal", "due_date": "2026-12-01T00:00:00Z", "expiry_date": "2027-01-01T00:00:00Z", "amount": 5000000}]}`,
		`{"bill_key": "A1", "biller_ref_number": "R1", "bill_component_list": ["00000000-0000-0000-0000-000000000000"]}`,
		`{"bill_key": "A1", "biller_ref_number": "R1", "bill_component_list": [1, null]}`,
		`{"name": "Budi", "bill_key_value": "A1", "bill_key_name": "NIS", "description": "\u0000"}`,
		`{"now": "2026-11-22T09:00:00+07:00"}`, `{"now": "not a time"}`, `{"now": 12}`,
		// Version 2 shapes, as the provider's PHP libraries send them.
		`{"name": "Citra", "bill_key_value": "E5", "phone": "", "email": "", "description": "", "branch_code": ""}`,
		`{"bill_key": "A1", "account_code": "SPP", "bill_component_name": "SPP", "expiry_date": "2027-01-10T00:00:00.000Z", "due_date": "2026-12-10T00:00:00.000Z", "amount": "250000.00", "active_date": "1970-01-01T00:00:00.000Z", "penalty_amount": "0", "notes": "", "branch_code": ""}`,
		`{"id": "x", "last_update_by": "tu", "biller_code": 10014, "bill_key": "A1", "amount": "1.5", "active_date": "", "batch_id": null}`,
		`{"bill_component_id": "x", "amount": "-0", "due_date": "1970-01-01T00:00:00.000Z"}`,
		`{"update_by": "tu", "bill_component_id": ["x", "x", ""], "transfer_ref": ""}`,
		`{"bill_key": "A1", "bill_component_list": ["x"], "merchant_name": "BCA"}`,
		`{"biller_code": "10014", "bill_key": "A1", "biller_ref_number": "", "bill_component_list": []}`,
	}
	for i, s := range seeds {
		for j := range fuzzTargets {
			if j == i%len(fuzzTargets) || len(s) < 12 {
				f.Add(uint8(j), s, true)
			}
		}
	}
	f.Add(uint8(0), `{"bill_list": []}`, false)
	// asJSON false sends no Content-Type at all, as the provider's PHP library
	// does: the body is read as JSON either way.
	f.Fuzz(func(t *testing.T, target uint8, body string, asJSON bool) {
		tg := fuzzTargets[int(target)%len(fuzzTargets)]
		req, err := http.NewRequest(tg.method, srv.URL+tg.path, bytes.NewReader([]byte(body)))
		if err != nil {
			t.Fatal(err)
		}
		if asJSON {
			req.Header.Set("Content-Type", "application/json")
		}
		req.SetBasicAuth("sandbox", DailyPassword("sandbox", sb.Now(), sb.loc))
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		r := envelopeOf(t, resp)
		switch {
		case !json.Valid([]byte(body)):
			if r.httpCode != http.StatusNotAcceptable {
				t.Fatalf("%s %s %q: got %d, want 406", tg.method, tg.path, body, r.httpCode)
			}
		case r.httpCode == http.StatusBadRequest || r.httpCode == http.StatusNotFound:
			if r.StatusDesc == "" {
				t.Fatalf("%s %s %q: %d without status_desc", tg.method, tg.path, body, r.httpCode)
			}
		case r.httpCode != http.StatusOK && r.httpCode != http.StatusCreated:
			t.Fatalf("%s %s %q: got %d %q", tg.method, tg.path, body, r.httpCode, r.StatusDesc)
		}
		if tg.path == "/_sandbox/clock" {
			sb.SetClock(testNow) // keep the fixed date the other inputs expect
		}
	})
}

func FuzzSearchQuery(f *testing.F) {
	sb, srv := fuzzServer(f)
	for _, q := range []string{
		"", "state=paid", "state=x", "limit=1000", "limit=1001", "limit=-1", "offset=-1", "offset=99999999999999999999",
		"start_due_date=20261301", "start_due_date=20260230", "end_payment_date=2026110", "notes=%00", "account_code=SPP&state=provisioned",
		"bill_key=A1", "bill_key=A1&state=expired", "bill_key=", "bill_key=%2F..%2F", "limit=1e3", "state=paid&state=expired",
	} {
		f.Add(q, false)
		f.Add(q, true)
	}
	f.Fuzz(func(t *testing.T, query string, perStudent bool) {
		path := "/bill_component/search/biller"
		if perStudent {
			path = "/bill_component/search/bill"
		}
		for _, ch := range []byte(query) {
			if ch <= ' ' || ch >= 0x7f || ch == '#' {
				// net/http itself answers such a request line, before any handler.
				t.Skip("not a valid request target")
			}
		}
		u, err := url.Parse(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		u.RawQuery = query
		req, err := http.NewRequest("GET", u.String(), nil)
		if err != nil {
			t.Skip("not a request URL")
		}
		req.SetBasicAuth("sandbox", DailyPassword("sandbox", sb.Now(), sb.loc))
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Skip("client refused the URL")
		}
		defer resp.Body.Close()
		r := envelopeOf(t, resp)
		switch r.httpCode {
		case http.StatusOK:
			var recs []record
			if err := json.Unmarshal(r.Data, &recs); err != nil || recs == nil {
				t.Fatalf("200 with data %s", r.Data)
			}
		case http.StatusBadRequest, http.StatusNotFound:
			if string(r.Data) != "null" || r.StatusDesc == "" {
				t.Fatalf("%d with data %s desc %q", r.httpCode, r.Data, r.StatusDesc)
			}
		default:
			t.Fatalf("%q: got %d %q", query, r.httpCode, r.StatusDesc)
		}
	})
}

// FuzzStudentList: the student list answers any query with an envelope: a
// list (possibly empty) or a 400 saying why, never a 500.
func FuzzStudentList(f *testing.F) {
	sb, srv := fuzzServer(f)
	for _, q := range []string{
		"", "name=budi", "name=%25", "name=_", "bill_key=A1", "bill_key=&name=", "limit=0", "limit=1500", "limit=1501",
		"limit=-1", "offset=9223372036854775807", "offset=99999999999999999999", "offset=-1", "limit=1e3", "name=%00",
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, query string) {
		for _, ch := range []byte(query) {
			if ch <= ' ' || ch >= 0x7f || ch == '#' {
				t.Skip("not a valid request target")
			}
		}
		u, err := url.Parse(srv.URL + "/bill")
		if err != nil {
			t.Fatal(err)
		}
		u.RawQuery = query
		req, err := http.NewRequest("GET", u.String(), nil)
		if err != nil {
			t.Skip("not a request URL")
		}
		req.SetBasicAuth("sandbox", DailyPassword("sandbox", sb.Now(), sb.loc))
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Skip("client refused the URL")
		}
		defer resp.Body.Close()
		r := envelopeOf(t, resp)
		switch r.httpCode {
		case http.StatusOK:
			var list []student
			if err := json.Unmarshal(r.Data, &list); err != nil || list == nil {
				t.Fatalf("200 with data %s", r.Data)
			}
		case http.StatusBadRequest:
			if string(r.Data) != "null" || r.StatusDesc == "" {
				t.Fatalf("400 with data %s desc %q", r.Data, r.StatusDesc)
			}
		default:
			t.Fatalf("%q: got %d %q", query, r.httpCode, r.StatusDesc)
		}
	})
}
