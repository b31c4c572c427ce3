// Package metricstest scrapes a portal's /metrics over HTTP for tests and reads the text
// format with Prometheus' own parser (github.com/prometheus/common/expfmt), so a test
// checks what a Prometheus server would read.
package metricstest

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Scrape is one scrape's metric families, by name.
type Scrape map[string]*dto.MetricFamily

// Get scrapes url (a portal's /metrics) and parses the answer; it fails the test unless
// the answer is 200 in the text format.
func Get(t testing.TB, url string) Scrape {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatalf("scrape %s: %v", url, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("scrape %s: %v", url, err)
	}
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("scrape %s: %d %s\n%.2000s", url, res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	s, err := Parse(string(body))
	if err != nil {
		t.Fatalf("scrape %s: %v\n%.2000s", url, err, body)
	}
	return s
}

// Parse reads the text format.
func Parse(text string) (Scrape, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("metricstest: not Prometheus' text format: %w", err)
	}
	return Scrape(fams), nil
}

// Has reports whether the scrape has the family name, with at least one series.
func (s Scrape) Has(name string) bool {
	f, ok := s[name]
	return ok && len(f.GetMetric()) > 0
}

// Value is the sum over the series of family name whose labels include every
// "label", "value" pair given: a counter's or a gauge's value, a histogram's count of
// observations. 0 when none matches.
func (s Scrape) Value(name string, labels ...string) float64 {
	v, _ := s.value(name, labels)
	return v
}

// Series is how many series of family name carry the labels given.
func (s Scrape) Series(name string, labels ...string) int {
	_, n := s.value(name, labels)
	return n
}

// Sum is the sum of the observations of histogram name's series with the labels given.
func (s Scrape) Sum(name string, labels ...string) float64 {
	total := 0.0
	for _, m := range s.matching(name, labels) {
		total += m.GetHistogram().GetSampleSum()
	}
	return total
}

func (s Scrape) value(name string, labels []string) (float64, int) {
	ms := s.matching(name, labels)
	total := 0.0
	for _, m := range ms {
		switch {
		case m.Counter != nil:
			total += m.GetCounter().GetValue()
		case m.Gauge != nil:
			total += m.GetGauge().GetValue()
		case m.Histogram != nil:
			total += float64(m.GetHistogram().GetSampleCount())
		case m.Untyped != nil:
			total += m.GetUntyped().GetValue()
		}
	}
	if math.IsNaN(total) {
		total = 0
	}
	return total, len(ms)
}

func (s Scrape) matching(name string, labels []string) []*dto.Metric {
	f, ok := s[name]
	if !ok {
		return nil
	}
	var out []*dto.Metric
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		ok := true
		for i := 0; i+1 < len(labels); i += 2 {
			if have[labels[i]] != labels[i+1] {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, m)
		}
	}
	return out
}

// LabelValues lists the values label takes in family name, sorted.
func (s Scrape) LabelValues(name, label string) []string {
	seen := map[string]bool{}
	for _, m := range s.matching(name, nil) {
		for _, l := range m.GetLabel() {
			if l.GetName() == label {
				seen[l.GetValue()] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}
