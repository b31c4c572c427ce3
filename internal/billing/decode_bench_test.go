package billing

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/sekolah/portal/internal/sandbox"
)

// BenchmarkDecodePage reads a search page of a thousand components as the sandbox
// answers it: decode (the envelope and its data in one pass) beside decodeEnvelope (the
// envelope first, then the data), which decode falls back to for anything but a success.
func BenchmarkDecodePage(b *testing.B) {
	var last []byte
	e := setup(b, func(_ *sandbox.Options, cfg *Config) {
		cfg.HTTPClient = &http.Client{Transport: recordBody(func(body []byte) { last = body })}
	})
	nis := make([]string, 50)
	for i := range nis {
		nis[i] = fmt.Sprintf("2026%04d", i)
	}
	e.students(b, nis...)
	var in []ComponentInput
	for i := range 1000 {
		in = append(in, spp(nis[i%len(nis)], fmt.Sprintf("SPP bulan %d", i), day(2026, 1, 10).AddDate(0, 0, i%300), 250_000, 10_000))
	}
	e.upload(b, in...)
	page, err := e.c.Search(context.Background(), Query{Limit: 1000})
	if err != nil || len(page) != 1000 {
		b.Fatalf("search: %d records, %v", len(page), err)
	}
	raw := last
	for _, c := range []struct {
		name   string
		decode func(method, path string, status int, raw []byte, out any) error
	}{{"one-pass", e.c.decode}, {"envelope-then-data", e.c.decodeEnvelope}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				var out []readBill
				if err := c.decode(http.MethodGet, "/bill_component/search", http.StatusOK, raw, &out); err != nil || len(out) != 1000 {
					b.Fatalf("%d records, %v", len(out), err)
				}
			}
		})
	}
}

// recordBody is a transport that hands each answer's body to keep.
type recordBody func([]byte)

func (r recordBody) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	r(body)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}
