package sandbox

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"
)

// searchFixture stores, on 2026-11-22 in Jakarta:
//   - A1: SPP due Oct 10 (paid Oct 5 09:00 WIB, ref R-OCT), SPP due Nov 10 (paid on
//     the 22nd at 00:30 WIB, i.e. the 21st in UTC, ref R-NOV, late), SPP due Dec 10 (open)
//   - B2: BCA due Sep 1 expiring Oct 1 (expired), BCA due Jan 15 (open, notes "semester 2")
func searchFixture(t *testing.T) *apiClient {
	t.Helper()
	jkt := time.FixedZone("WIB", 7*3600)
	c := newSandbox(t, Options{Now: time.Date(2026, 10, 1, 2, 0, 0, 0, time.UTC)})
	c.seedStudents("A1", "B2")
	a := c.upload(
		componentJSON("A1", "SPP", day(2026, 10, 10), 450000, 25000),
		componentJSON("A1", "SPP", day(2026, 11, 10), 450000, 25000),
		componentJSON("A1", "SPP", day(2026, 12, 10), 450000, 25000),
	)
	exp := componentJSON("B2", "BCA", day(2026, 9, 1), 750000, 0)
	exp["expiry_date"] = ts(2026, 10, 1)
	sem := componentJSON("B2", "BCA", day(2027, 1, 15), 750000, 0)
	sem["notes"] = "semester 2"
	c.upload(exp, sem)

	c.sb.SetClock(time.Date(2026, 10, 5, 9, 0, 0, 0, jkt))
	c.must(http.StatusOK, "POST", "/bill_component/pay", obj{"bill_key": "A1", "biller_ref_number": "R-OCT", "bill_component_list": []string{a[0].ID}})
	c.sb.SetClock(time.Date(2026, 11, 22, 0, 30, 0, 0, jkt))
	c.must(http.StatusOK, "POST", "/bill_component/pay", obj{"bill_key": "A1", "biller_ref_number": "R-NOV", "bill_component_list": []string{a[1].ID}})
	c.sb.SetClock(time.Date(2026, 11, 22, 9, 0, 0, 0, jkt))
	return c
}

func TestSearchFilters(t *testing.T) {
	t.Parallel()
	c := searchFixture(t)
	tests := []struct {
		query string
		want  []string // component names with owner, newest first
	}{
		{"", []string{"B2 BCA Jan", "B2 BCA Sep", "A1 SPP Dec", "A1 SPP Nov", "A1 SPP Oct"}},
		{"state=paid", []string{"A1 SPP Nov", "A1 SPP Oct"}},
		{"state=provisioned", []string{"B2 BCA Jan", "A1 SPP Dec"}},
		{"state=expired", []string{"B2 BCA Sep"}},
		{"account_code=BCA", []string{"B2 BCA Jan", "B2 BCA Sep"}},
		{"account_code=MANDIRI", nil},
		{"ref_number=R-OCT", []string{"A1 SPP Oct"}},
		{"notes=semester+2", []string{"B2 BCA Jan"}},
		{"notes=semester", nil},
		// The November payment was on the 22nd in Jakarta (the 21st in UTC).
		{"start_payment_date=20261122&end_payment_date=20261122", []string{"A1 SPP Nov"}},
		{"start_payment_date=20261121&end_payment_date=20261121", nil},
		{"start_payment_date=20261005", []string{"A1 SPP Nov", "A1 SPP Oct"}},
		{"end_payment_date=20261005", []string{"A1 SPP Oct"}},
		{"state=paid&start_payment_date=20261001&end_payment_date=20261031", []string{"A1 SPP Oct"}},
		{"start_due_date=20261110&end_due_date=20261210", []string{"A1 SPP Dec", "A1 SPP Nov"}},
		{"start_due_date=20261111&end_due_date=20261209", nil},
		{"end_due_date=20261001", []string{"B2 BCA Sep"}},
		{"state=provisioned&account_code=SPP&start_due_date=20261201&end_due_date=20261231", []string{"A1 SPP Dec"}},
		{"limit=2", []string{"B2 BCA Jan", "B2 BCA Sep"}},
		{"limit=2&offset=2", []string{"A1 SPP Dec", "A1 SPP Nov"}},
		{"offset=4", []string{"A1 SPP Oct"}},
		{"offset=5", nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got := labels(into[[]record](t, c.must(http.StatusOK, "GET", "/bill_component/search/biller?"+tt.query, nil)))
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			mine := labels(into[[]record](t, c.must(http.StatusOK, "GET", "/bill_component/search/bill?bill_key=A1&"+tt.query, nil)))
			var want []string
			for _, w := range tt.want {
				if w[:2] == "A1" {
					want = append(want, w)
				}
			}
			if tt.query == "limit=2" || tt.query == "limit=2&offset=2" || tt.query == "offset=4" || tt.query == "offset=5" {
				return // paging differs per student
			}
			if !slices.Equal(mine, want) {
				t.Fatalf("search/bill: got %v, want %v", mine, want)
			}
		})
	}
}

// labels names records "NIS ACCOUNT Mon" for compact comparison.
func labels(recs []record) []string {
	var out []string
	for _, r := range recs {
		due, _ := time.Parse(timeLayout, r.DueDate)
		out = append(out, fmt.Sprintf("%s %s %s", r.BillKey, r.AccountCode, due.Format("Jan")))
	}
	return out
}

func TestSearchRejectsBadFilters(t *testing.T) {
	t.Parallel()
	c := searchFixture(t)
	tests := []struct {
		path string
		want int
		desc string
	}{
		{"/bill_component/search/biller?state=unpaid", http.StatusBadRequest, "state: must be provisioned, expired, paid or deleted"},
		{"/bill_component/search/biller?start_due_date=2026-11-01", http.StatusBadRequest, "start_due_date: must be a date like 20260110"},
		{"/bill_component/search/biller?end_due_date=20261301", http.StatusBadRequest, "end_due_date: must be a date like 20260110"},
		{"/bill_component/search/biller?start_payment_date=202611", http.StatusBadRequest, "start_payment_date: must be a date like 20260110"},
		{"/bill_component/search/biller?end_payment_date=x", http.StatusBadRequest, "end_payment_date: must be a date like 20260110"},
		{"/bill_component/search/biller?offset=-1", http.StatusBadRequest, "offset: must be a whole number, 0 or more"},
		{"/bill_component/search/biller?offset=one", http.StatusBadRequest, "offset: must be a whole number, 0 or more"},
		{"/bill_component/search/biller?limit=1001", http.StatusBadRequest, "limit: must be a whole number from 1 to 1000"},
		{"/bill_component/search/biller?limit=-1", http.StatusBadRequest, "limit: must be a whole number from 1 to 1000"},
		{"/bill_component/search/biller?limit=9223372036854775808", http.StatusBadRequest, "limit: must be a whole number from 1 to 1000"},
		{"/bill_component/search/biller?offset=-9223372036854775808", http.StatusBadRequest, "offset: must be a whole number, 0 or more"},
		{"/bill_component/search/bill", http.StatusBadRequest, "bill_key: required"},
		{"/bill_component/search/bill?bill_key=NOPE", http.StatusNotFound, `unknown student "NOPE"`},
		{"/bill_component/search/bill?bill_key=A1&state=nope", http.StatusBadRequest, "state: must be provisioned, expired, paid or deleted"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			r := c.do("GET", tt.path, nil)
			if r.httpCode != tt.want || r.StatusDesc != tt.desc || string(r.Data) != "null" {
				t.Fatalf("got %d %q %s, want %d %q", r.httpCode, r.StatusDesc, r.Data, tt.want, tt.desc)
			}
		})
	}
	c.must(http.StatusOK, "GET", "/bill_component/search/biller?limit=1000", nil)
}

func TestSearchPagesAndDefaults(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{})
	c.seedStudents("A1")
	var items []obj
	for i := range 130 {
		items = append(items, componentJSON("A1", []string{"SPP", "BCA"}[i%2], day(2026, 12, 1).AddDate(0, 0, i), 1000, 0))
	}
	c.upload(items[:60]...)
	c.sb.SetClock(testNow.Add(time.Minute))
	c.upload(items[60:]...)

	def := into[[]record](t, c.must(http.StatusOK, "GET", "/bill_component/search/biller", nil))
	if len(def) != 50 {
		t.Fatalf("default page: %d records, want 50", len(def))
	}
	var seen []string
	for offset := 0; ; offset += 7 {
		page := into[[]record](t, c.must(http.StatusOK, "GET", fmt.Sprintf("/bill_component/search/biller?limit=7&offset=%d", offset), nil))
		if len(page) == 0 {
			break
		}
		seen = append(seen, ids(page)...)
	}
	all := into[[]record](t, c.must(http.StatusOK, "GET", "/bill_component/search/biller?limit=1000", nil))
	if len(all) != 130 || !slices.Equal(seen, ids(all)) || !slices.Equal(ids(def), ids(all)[:50]) {
		t.Fatalf("pages disagree: %d paged, %d in one page", len(seen), len(all))
	}
	for i := 1; i < len(all); i++ {
		a, b := all[i-1], all[i]
		if a.CreatedAt < b.CreatedAt || (a.CreatedAt == b.CreatedAt && a.ID < b.ID) {
			t.Fatalf("not newest first at %d: %s %s, %s %s", i, a.CreatedAt, a.ID, b.CreatedAt, b.ID)
		}
	}
	if all[0].CreatedAt != "2026-11-22T02:01:00Z" || all[129].CreatedAt != "2026-11-22T02:00:00Z" {
		t.Fatalf("created_at: first %s, last %s", all[0].CreatedAt, all[129].CreatedAt)
	}
	// A filtered page must be the same whichever plan found it.
	spp := into[[]record](t, c.must(http.StatusOK, "GET", "/bill_component/search/biller?account_code=SPP&state=provisioned&limit=10&offset=20", nil))
	var want []string
	for _, r := range all {
		if r.AccountCode == "SPP" {
			want = append(want, r.ID)
		}
	}
	if !slices.Equal(ids(spp), want[20:30]) {
		t.Fatalf("filtered page differs from the filtered full list")
	}
}
