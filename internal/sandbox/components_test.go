package sandbox

import (
	"net/http"
	"testing"
)

func TestComponentUploadSearchPay(t *testing.T) {
	c := newSandbox(t, Options{})
	c.seedStudents("A1", "B2")
	recs := c.upload(
		componentJSON("A1", "SPP", day(2026, 12, 10), 450000, 25000),
		componentJSON("A1", "BCA", day(2026, 11, 10), 750000, 0),
		componentJSON("B2", "SPP", day(2026, 12, 10), 650000, 25000),
	)
	if len(recs) != 3 {
		t.Fatalf("got %d records", len(recs))
	}
	r0 := recs[0]
	if r0.BillKey != "A1" || r0.BillName != "Siswa A1" || r0.State != stateProvisioned || r0.Amount != 450000 ||
		r0.Penalty != 25000 || r0.DueDate != "2026-12-10T00:00:00Z" || r0.PaidDate != nil || r0.RefNumber != nil ||
		r0.AmountPaid != 0 || r0.ActiveDate != nil || r0.BillID == "" || r0.CreatedAt != "2026-11-22T02:00:00Z" {
		t.Fatalf("record = %+v", r0)
	}

	all := into[[]record](t, c.must(http.StatusOK, "GET", "/bill_component/search/biller", nil))
	if len(all) != 3 || all[0].ID != recs[2].ID || all[2].ID != recs[0].ID {
		t.Fatalf("newest first: got %v", ids(all))
	}
	mine := into[[]record](t, c.must(http.StatusOK, "GET", "/bill_component/search/bill?bill_key=A1", nil))
	if len(mine) != 2 {
		t.Fatalf("search/bill: %d records", len(mine))
	}

	// Paying the overdue one costs the penalty (none here), the other one on time.
	paid := into[[]record](t, c.must(http.StatusOK, "POST", "/bill_component/pay",
		obj{"bill_key": "A1", "biller_ref_number": "REF-1", "bill_component_list": []string{recs[0].ID, recs[1].ID}}))
	if len(paid) != 2 || paid[0].State != statePaid || paid[0].AmountPaid != 450000 || *paid[0].RefNumber != "REF-1" ||
		*paid[0].PaidDate != "2026-11-22T02:00:00Z" || paid[1].AmountPaid != 750000 {
		t.Fatalf("paid = %+v", paid)
	}
}

func ids(recs []record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	return out
}
