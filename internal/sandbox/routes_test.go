package sandbox

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

func TestRoutesAnswerWithEnvelope(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{})
	c.seedStudents("A1")
	tests := []struct {
		method, path string
		want         int
		allow        string
	}{
		{"GET", "/nothing/here", http.StatusNotFound, ""},
		{"GET", "/", http.StatusNotFound, ""},
		{"GET", "/bill_component/batch", http.StatusMethodNotAllowed, "POST"},
		{"DELETE", "/bill_component/search/biller", http.StatusMethodNotAllowed, "GET"},
		{"PATCH", "/bill", http.StatusMethodNotAllowed, "POST, PUT, GET"},
		{"DELETE", "/bill_component", http.StatusMethodNotAllowed, "POST, PUT"},
		{"POST", "/bill_component/get/x", http.StatusMethodNotAllowed, "GET"},
		{"GET", "/bill_component/delete", http.StatusMethodNotAllowed, "POST"},
		{"GET", "/_sandbox/bank-payment", http.StatusMethodNotAllowed, "POST"},
		{"GET", "/_sandbox/callbacks", http.StatusOK, ""},
		{"POST", "/bill/A1", http.StatusMethodNotAllowed, "GET, DELETE"},
		{"PUT", "/bill_component/pay", http.StatusMethodNotAllowed, "POST"},
		{"GET", "/_sandbox/nothing", http.StatusNotFound, ""},
		{"DELETE", "/_sandbox/clock", http.StatusMethodNotAllowed, "GET, POST"},
		{"GET", "/bill/batch", http.StatusNotFound, ""}, // a student named "batch"
		{"GET", "/bill/A1", http.StatusOK, ""},
		{"GET", "/bill?bill_key=A1", http.StatusOK, ""},
		{"GET", "/biller/bill_component/search/biller?state=provisioned&limit=1000", http.StatusOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, c.url+tt.path, nil)
			req.SetBasicAuth("sandbox", DailyPassword("sandbox", c.sb.Now(), c.sb.loc))
			resp, err := c.hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			r := decodeReply(t, resp)
			if r.httpCode != tt.want {
				t.Fatalf("got %d %q, want %d", r.httpCode, r.StatusDesc, tt.want)
			}
			if tt.allow != "" && resp.Header.Get("Allow") != tt.allow {
				t.Errorf("Allow = %q, want %q", resp.Header.Get("Allow"), tt.allow)
			}
		})
	}
}

func TestAliasesMatchTheirEndpoints(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{})
	c.seedStudents("A1", "B2")
	c.upload(componentJSON("A1", "SPP", day(2026, 12, 10), 450000, 25000), componentJSON("B2", "BCA", day(2026, 12, 10), 450000, 0))
	a := c.must(http.StatusOK, "GET", "/bill_component/search/biller?account_code=SPP", nil)
	b := c.must(http.StatusOK, "GET", "/biller/bill_component/search/biller?account_code=SPP", nil)
	if !bytes.Equal(a.Data, b.Data) || len(into[[]record](t, a)) != 1 {
		t.Errorf("search/biller and its alias differ:\n%s\n%s", a.Data, b.Data)
	}
	// Version 1's alias GET /bill?bill_key= is gone: it is the student list now.
	students := into[[]student](t, c.must(http.StatusOK, "GET", "/bill?bill_key=A1", nil))
	if len(students) != 1 || students[0].BillKeyValue != "A1" || students[0].Name != "Siswa A1" {
		t.Errorf("GET /bill?bill_key=A1 = %+v, want the student", students)
	}
	if r := c.must(http.StatusOK, "GET", "/bill?bill_key=ZZ", nil); string(r.Data) != "[]" {
		t.Errorf("unknown NIS on the student list: %s, want []", r.Data)
	}
}

func TestBodyErrors(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{})
	big := append([]byte(`{"bill_list": [`), bytes.Repeat([]byte(`{"name":"x","bill_key_value":"1","bill_key_name":"NIS"},`), maxBody/50)...)
	big = append(big, []byte(`{}]}`)...)
	tests := []struct {
		name, path, contentType, body string
		want                          int
	}{
		// The body is JSON whatever the Content-Type says (the PHP library sends none).
		{"no content type", "/bill/batch", "", `{"bill_list":[]}`, http.StatusBadRequest},
		{"form content type", "/bill/batch", "application/x-www-form-urlencoded", `{"bill_list":[]}`, http.StatusBadRequest},
		{"text content type", "/bill_component/pay", "text/plain", `{}`, http.StatusBadRequest},
		{"form body", "/bill/batch", "application/x-www-form-urlencoded", `bill_list=1`, http.StatusNotAcceptable},
		{"charset parameter is fine", "/bill/batch", "application/json; charset=utf-8", `{"bill_list":[]}`, http.StatusBadRequest},
		{"not JSON", "/bill/batch", "application/json", `bill_list=1`, http.StatusNotAcceptable},
		{"truncated JSON", "/bill_component/batch", "application/json", `{"bill_upload_list": [`, http.StatusNotAcceptable},
		{"trailing garbage", "/bill/checkout", "application/json", `{} {}`, http.StatusNotAcceptable},
		{"empty body", "/bill_component/pay", "application/json", ``, http.StatusNotAcceptable},
		{"JSON of the wrong shape", "/bill/batch", "application/json", `[1, 2]`, http.StatusBadRequest},
		{"list of the wrong type", "/bill/batch", "application/json", `{"bill_list": "x"}`, http.StatusBadRequest},
		{"null body", "/bill_component/batch", "application/json", `null`, http.StatusBadRequest},
		{"too large", "/bill/batch", "application/json", string(big), http.StatusRequestEntityTooLarge},
		{"clock: not JSON", "/_sandbox/clock", "application/json", `now`, http.StatusNotAcceptable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.raw("POST", tt.path, tt.contentType, []byte(tt.body))
			if r.httpCode != tt.want {
				t.Fatalf("got %d %q, want %d", r.httpCode, r.StatusDesc, tt.want)
			}
			if r.StatusDesc == "" {
				t.Error("empty status_desc on an error")
			}
		})
	}
	if n := len(into[[]record](t, c.must(http.StatusOK, "GET", "/bill_component/search/biller", nil))); n != 0 {
		t.Fatalf("%d components stored by bad requests", n)
	}
}

func TestUnknownFieldsAreIgnored(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{})
	st := studentJSON("A1", "Budi")
	st["nickname"] = "bud"
	st["extra"] = obj{"nested": []int{1, 2}}
	c.must(http.StatusCreated, "POST", "/bill/batch", obj{"bill_list": []obj{st}, "request_id": "x"})
	comp := componentJSON("A1", "SPP", day(2026, 12, 10), 450000, 0)
	comp["currency"] = "IDR"
	recs := c.upload(comp)
	if !strings.HasPrefix(recs[0].Name, "SPP") {
		t.Fatalf("record = %+v", recs[0])
	}
}
