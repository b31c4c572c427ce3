package billing

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
)

// textCases are JSON strings text must read exactly as encoding/json reads them: plain
// ones (read without unquoting) and every kind that needs it.
var textCases = []string{
	`"Ani Lestari"`, `""`, `"Kelas 7A"`, `"Beasiswa 100% (Cicilan)"`, `"Ñoño café"`, `"日本"`,
	`"tab\there"`, `"quote \" inside"`, `"back\\slash"`, `"\u00e9t\u00e9"`, `"\ud83d\ude00"`, `"line\nbreak"`,
	"\"invalid \xff utf-8\"", "\"cut \xe6\x97\"", `"\/slash"`,
}

// TestTextReadsLikeJSON: a JSON string reads as encoding/json reads it, whether or not
// it needed unquoting.
func TestTextReadsLikeJSON(t *testing.T) {
	t.Parallel()
	for _, in := range textCases {
		sameAsJSON(t, []byte(in))
	}
}

// FuzzTextReadsLikeJSON: any JSON string text accepts reads as encoding/json reads it.
func FuzzTextReadsLikeJSON(f *testing.F) {
	for _, in := range textCases {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 || in[0] != '"' || !json.Valid(in) {
			return
		}
		sameAsJSON(t, in)
	})
}

func sameAsJSON(t *testing.T, in []byte) {
	t.Helper()
	var want string
	if err := json.Unmarshal(in, &want); err != nil {
		t.Fatalf("%q: encoding/json: %v", in, err)
	}
	var got text
	if err := got.UnmarshalJSON(in); err != nil {
		t.Fatalf("%q: %v", in, err)
	}
	if string(got) != want {
		t.Errorf("%q reads %q, want %q", in, got, want)
	}
}

// TestFailureEnvelopeOn200DecodesNothing: a gateway's failure inside a 200, whose data
// would fit the answer's type, is the failure; nothing of its data is read as records.
func TestFailureEnvelopeOn200DecodesNothing(t *testing.T) {
	t.Parallel()
	c := fakeClient(t, func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, `{"status":"Service Unavailable","status_code":503,"status_desc":"maintenance",
			"data":[{"bill_component_id":"c1","bill_key":"1001","amount":450000,"state":"provisioned"}]}`)
	}, func(cfg *Config) { cfg.MaxAttempts = 1 })
	var out []readBill
	err := c.call(context.Background(), "Search", http.MethodGet, "/bill_component/search/biller", nil, nil, &out)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 || apiErr.StatusDesc != "maintenance" {
		t.Fatalf("err = %v, want the envelope's 503", err)
	}
	if out != nil {
		t.Errorf("read %d records from a failure: %+v", len(out), out)
	}
}
