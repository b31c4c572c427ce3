package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestComponentUploadSearchPay(t *testing.T) {
	t.Parallel()
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

func TestComponentBatchValidation(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{})
	c.seedStudents("A1")
	good := func() obj { return componentJSON("A1", "SPP", day(2026, 12, 10), 450000, 25000) }
	with := func(k string, v any) obj {
		o := good()
		if v == nil {
			delete(o, k)
		} else {
			o[k] = v
		}
		return o
	}
	tests := []struct {
		name    string
		bad     obj
		field   string
		message string
	}{
		{"bill_key missing", with("bill_key", nil), "bill_key", "required"},
		{"unknown student", with("bill_key", "NOPE"), "bill_key", "unknown student NOPE"},
		{"account missing", with("account_code", nil), "account_code", "required"},
		{"unknown account", with("account_code", "BRI"), "account_code", "unknown account code (known: SPP, BCA, MANDIRI)"},
		{"name missing", with("bill_component_name", " "), "bill_component_name", "required"},
		{"due_date missing", with("due_date", nil), "due_date", "required"},
		{"due_date null", with("due_date", json.RawMessage("null")), "due_date", "required"},
		{"expiry_date missing", with("expiry_date", nil), "expiry_date", "required"},
		{"due_date not a timestamp", with("due_date", "2026-12-10"), "due_date", "must be a timestamp like 2026-01-10T00:00:00Z"},
		{"expiry_date not a timestamp", with("expiry_date", "10/12/2026"), "expiry_date", "must be a timestamp like 2026-01-10T00:00:00Z"},
		{"active_date not a timestamp", with("active_date", "soon"), "active_date", "must be a timestamp like 2026-01-10T00:00:00Z"},
		{"due after expiry", with("expiry_date", ts(2026, 12, 9)), "due_date", "must not be after expiry_date"},
		{"active after due", with("active_date", ts(2026, 12, 11)), "active_date", "must not be after due_date"},
		{"amount missing", with("amount", nil), "amount", "required"},
		{"amount zero", with("amount", 0), "amount", "must be greater than 0"},
		{"amount negative", with("amount", -5), "amount", "must be greater than 0"},
		{"amount with cents", with("amount", 450000.5), "amount", "must be a whole number of rupiah"},
		{"amount as text", with("amount", "lots"), "amount", "must be a whole number of rupiah"},
		{"amount as text with cents", with("amount", "450000.50"), "amount", "must be a whole number of rupiah"},
		{"amount as empty text", with("amount", ""), "amount", "required"},
		{"amount too large", with("amount", json.RawMessage("1e30")), "amount", "must be a whole number of rupiah"},
		{"amount over the cap", with("amount", int64(maxRupiah)+1), "amount", "must be at most 1000000000000000"},
		{"penalty over the cap", with("penalty_amount", json.RawMessage("9223372036854775807")), "penalty_amount", "must be at most 1000000000000000"},
		{"penalty negative", with("penalty_amount", -1), "penalty_amount", "must not be negative"},
		{"penalty as text", with("penalty_amount", "x"), "penalty_amount", "must be a whole number of rupiah"},
		{"name of the wrong type", with("bill_component_name", 7), "bill_component_name", "must be a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.must(http.StatusBadRequest, "POST", "/bill_component/batch", obj{"bill_upload_list": []obj{good(), good(), tt.bad}})
			want := "bill_upload_list[2]." + tt.field + ": " + tt.message
			if r.StatusDesc != want {
				t.Errorf("status_desc = %q, want %q", r.StatusDesc, want)
			}
			got := into[[]problem](t, r)
			if len(got) != 1 || got[0] != (problem{2, tt.field, tt.message}) {
				t.Errorf("data = %+v", got)
			}
		})
	}
	t.Run("every bad item is listed", func(t *testing.T) {
		r := c.must(http.StatusBadRequest, "POST", "/bill_component/batch", obj{"bill_upload_list": []obj{
			with("due_date", nil), good(), with("amount", 0), with("bill_key", "NOPE")}})
		got := into[[]problem](t, r)
		want := []problem{{0, "due_date", "required"}, {2, "amount", "must be greater than 0"}, {3, "bill_key", "unknown student NOPE"}}
		if !slices.Equal(got, want) || r.StatusDesc != "bill_upload_list[0].due_date: required (and 2 more)" {
			t.Errorf("got %q %+v", r.StatusDesc, got)
		}
	})
	t.Run("list limits", func(t *testing.T) {
		c.must(http.StatusBadRequest, "POST", "/bill_component/batch", obj{"bill_upload_list": []obj{}})
		many := make([]obj, 1001)
		for i := range many {
			many[i] = good()
		}
		r := c.must(http.StatusBadRequest, "POST", "/bill_component/batch", obj{"bill_upload_list": many})
		if r.StatusDesc != "bill_upload_list: at most 1000 items" {
			t.Errorf("status_desc = %q", r.StatusDesc)
		}
		if n := len(c.upload(many[:1000]...)); n != 1000 {
			t.Errorf("1000 items: %d stored", n)
		}
	})
	// None of the rejected batches stored anything: only the 1000 of the last one exist.
	all := into[[]record](t, c.must(http.StatusOK, "GET", "/bill_component/search/biller?limit=1000&offset=1", nil))
	if len(all) != 999 {
		t.Fatalf("%d components stored, want 1000", len(all)+1)
	}
}

func TestComponentTimestampsAndDefaults(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{})
	c.seedStudents("A1")
	recs := c.upload(obj{
		"bill_key": "A1", "account_code": "MANDIRI", "bill_component_name": "Seragam",
		"due_date": "2026-12-10T00:00:00.000Z", "expiry_date": "2027-01-10T00:00:00.000Z", "active_date": "2026-12-01T00:00:00Z",
		"amount": 4.5e5,
	})
	r := recs[0]
	if r.DueDate != "2026-12-10T00:00:00Z" || r.ExpiryDate != "2027-01-10T00:00:00Z" || *r.ActiveDate != "2026-12-01T00:00:00Z" ||
		r.Amount != 450000 || r.Penalty != 0 || r.Notes != "" || r.AccountCode != "MANDIRI" {
		t.Fatalf("record = %+v", r)
	}
}

func TestStatesFollowTheDayRule(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{}) // today is 2026-11-22 in Jakarta
	c.seedStudents("A1")
	upload := func(due, expiry time.Time) record {
		o := componentJSON("A1", "SPP", due, 450000, 25000)
		o["expiry_date"] = expiry.Format(timeLayout)
		return c.upload(o)[0]
	}
	tests := []struct {
		name        string
		due, expiry time.Time
		want        string
	}{
		{"not yet due", day(2026, 12, 10), day(2027, 2, 10), stateProvisioned},
		{"overdue (arrears)", day(2026, 10, 10), day(2026, 12, 10), stateProvisioned},
		{"expires today", day(2026, 10, 10), day(2026, 11, 22), stateProvisioned},
		{"expired yesterday", day(2026, 10, 10), day(2026, 11, 21), stateExpired},
		{"arrears from last year", day(2025, 10, 10), day(2025, 12, 10), stateExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := upload(tt.due, tt.expiry).State; got != tt.want {
				t.Fatalf("state = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestPayRules(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{}) // today is 2026-11-22 in Jakarta
	c.seedStudents("A1", "B2")
	comp := func(nis string, due, expiry time.Time, active *time.Time) string {
		o := componentJSON(nis, "SPP", due, 450000, 25000)
		o["expiry_date"] = expiry.Format(timeLayout)
		if active != nil {
			o["active_date"] = active.Format(timeLayout)
		}
		return c.upload(o)[0].ID
	}
	future := day(2026, 11, 23)
	var (
		dueToday   = comp("A1", day(2026, 11, 22), day(2026, 12, 22), nil)
		dueLater   = comp("A1", day(2026, 12, 10), day(2027, 2, 10), nil)
		overdue    = comp("A1", day(2026, 11, 21), day(2026, 12, 21), nil)
		expired    = comp("A1", day(2026, 10, 10), day(2026, 11, 21), nil)
		notActive  = comp("A1", day(2026, 12, 10), day(2027, 2, 10), &future)
		activeNow  = comp("A1", day(2026, 12, 10), day(2027, 2, 10), new(day(2026, 11, 22)))
		otherOwner = comp("B2", day(2026, 12, 10), day(2027, 2, 10), nil)
	)
	pay := func(nis string, list ...string) reply {
		return c.do("POST", "/bill_component/pay", obj{"bill_key": nis, "biller_ref_number": "REF-" + nis, "bill_component_list": list})
	}

	refused := []struct {
		name string
		nis  string
		list []string
		want int
		desc string
	}{
		{"expired", "A1", []string{dueLater, expired}, http.StatusBadRequest, "bill_component_list[1]: expired, cannot be paid"},
		{"not active yet", "A1", []string{notActive}, http.StatusBadRequest, "bill_component_list[0]: not active yet"},
		{"another student's", "A1", []string{dueLater, otherOwner}, http.StatusBadRequest, "bill_component_list[1]: component does not belong to bill_key A1"},
		{"unknown component", "A1", []string{dueLater, "00000000-0000-0000-0000-000000000000"}, http.StatusNotFound, `bill_component_list[1]: unknown component "00000000-0000-0000-0000-000000000000"`},
		{"unknown student", "ZZ", []string{dueLater}, http.StatusNotFound, `bill_key: unknown student "ZZ"`},
		{"repeated id", "A1", []string{dueLater, dueLater}, http.StatusBadRequest, "bill_component_list[1]: repeated (first at index 0)"},
		{"empty list", "A1", []string{}, http.StatusBadRequest, "bill_component_list: required, at least one item"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			r := pay(tt.nis, tt.list...)
			if r.httpCode != tt.want || r.StatusDesc != tt.desc {
				t.Fatalf("got %d %q, want %d %q", r.httpCode, r.StatusDesc, tt.want, tt.desc)
			}
		})
	}
	// Nothing was paid by the refused requests.
	for _, rec := range into[[]record](t, c.must(http.StatusOK, "GET", "/bill_component/search/biller?state=paid", nil)) {
		t.Fatalf("paid by a refused request: %+v", rec)
	}

	paid := into[[]record](t, c.must(http.StatusOK, "POST", "/bill_component/pay",
		obj{"bill_key": "A1", "biller_ref_number": "BCA-778899", "bill_component_list": []string{dueToday, overdue, dueLater, activeNow}}))
	wantPaid := []int64{450000, 475000, 450000, 450000}
	for i, rec := range paid {
		if rec.State != statePaid || rec.AmountPaid != wantPaid[i] || rec.RefNumber == nil || *rec.RefNumber != "BCA-778899" ||
			rec.PaidDate == nil || *rec.PaidDate != c.sb.Now().UTC().Format(timeLayout) {
			t.Errorf("paid[%d] = %+v, want amount_paid %d", i, rec, wantPaid[i])
		}
	}
	if r := pay("A1", dueToday); r.httpCode != http.StatusBadRequest || r.StatusDesc != "bill_component_list[0]: already paid" {
		t.Fatalf("paying twice: %d %q", r.httpCode, r.StatusDesc)
	}
	// A paid component stays paid after its expiry.
	c.sb.SetClock(time.Date(2027, 6, 1, 0, 0, 0, 0, time.UTC))
	for _, rec := range into[[]record](t, c.must(http.StatusOK, "GET", "/bill_component/search/bill?bill_key=A1&state=paid", nil)) {
		if rec.State != statePaid {
			t.Fatalf("state = %s", rec.State)
		}
	}
}

func TestCheckout(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{})
	c.seedStudents("TAKEN")
	item := func() obj {
		return obj{"account_code": "BCA", "bill_component_name": "Uang Pangkal", "due_date": ts(2026, 12, 1), "expiry_date": ts(2027, 1, 1),
			"amount": 5000000, "penalty_amount": 0, "description": "gelombang 1"}
	}
	body := func(nis string, items ...obj) obj {
		return obj{"name": "Calon Siswa", "bill_key_value": nis, "phone": "08123", "email": "c@example.com", "description": "PPDB 2027", "bill_upload_list": items}
	}

	r := c.must(http.StatusCreated, "POST", "/bill/checkout", body("PPDB001", item(), item()))
	if r.Status != "Created" {
		t.Fatalf("status = %q", r.Status)
	}
	out := into[struct {
		BillID       string   `json:"bill_id"`
		BillKeyValue string   `json:"bill_key_value"`
		Components   []string `json:"bill_component_list"`
	}](t, r)
	if out.BillID == "" || out.BillKeyValue != "PPDB001" || len(out.Components) != 2 {
		t.Fatalf("data = %+v", out)
	}
	st := into[student](t, c.must(http.StatusOK, "GET", "/bill/PPDB001", nil))
	if st.BillKeyName != "NIS" || st.Description != "PPDB 2027" || st.Phone != "08123" {
		t.Fatalf("student = %+v", st)
	}
	recs := into[[]record](t, c.must(http.StatusOK, "GET", "/bill_component/search/bill?bill_key=PPDB001", nil))
	if len(recs) != 2 || recs[0].Notes != "gelombang 1" || recs[0].BillID != out.BillID {
		t.Fatalf("records = %+v", recs)
	}

	refused := []struct {
		name string
		body obj
		desc string
	}{
		{"existing NIS", body("TAKEN", item()), "bill_key_value: TAKEN already exists"},
		{"bad component", body("PPDB002", item(), func() obj { o := item(); delete(o, "due_date"); return o }()), "bill_upload_list[1].due_date: required"},
		{"no components", body("PPDB003"), "bill_upload_list: required, at least one item"},
		{"no name", obj{"bill_key_value": "PPDB004", "bill_upload_list": []obj{item()}}, "name: required"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			r := c.must(http.StatusBadRequest, "POST", "/bill/checkout", tt.body)
			if r.StatusDesc != tt.desc {
				t.Errorf("status_desc = %q, want %q", r.StatusDesc, tt.desc)
			}
			if nis, _ := tt.body["bill_key_value"].(string); nis != "TAKEN" {
				c.must(http.StatusNotFound, "GET", "/bill/"+nis, nil)
			}
		})
	}
	if n := len(into[[]record](t, c.must(http.StatusOK, "GET", "/bill_component/search/biller", nil))); n != 2 {
		t.Fatalf("%d components, want the 2 of the first checkout", n)
	}
}

func TestConcurrentPaymentsPayOnce(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{})
	c.seedStudents("A1")
	id := c.upload(componentJSON("A1", "SPP", day(2026, 12, 10), 450000, 0))[0].ID
	const n = 8
	codes := make(chan int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r := c.do("POST", "/bill_component/pay", obj{"bill_key": "A1", "biller_ref_number": fmt.Sprint("R", i), "bill_component_list": []string{id}})
			codes <- r.httpCode
		})
	}
	wg.Wait()
	close(codes)
	got := map[int]int{}
	for code := range codes {
		got[code]++
	}
	if got[http.StatusOK] != 1 || got[http.StatusBadRequest] != n-1 {
		t.Fatalf("answers: %v", got)
	}
}

// TestBatchAnswersWhatItStored: a batch's answer (built from what it inserted, not read
// back) is each component exactly as a read of it answers: states on both sides of the
// expiry, an active date or none, notes, in both stamp formats.
func TestBatchAnswersWhatItStored(t *testing.T) {
	t.Parallel()
	for _, zoneless := range []bool{false, true} {
		t.Run(fmt.Sprintf("zoneless=%v", zoneless), func(t *testing.T) {
			t.Parallel()
			c := newSandbox(t, Options{Zoneless: zoneless})
			c.seedStudents("A1", "B2")
			late := componentJSON("B2", "SPP", day(2026, 10, 10), 350000, 25000)
			late["expiry_date"] = day(2026, 11, 21).Format(timeLayout)
			active := componentJSON("A1", "BCA", day(2026, 12, 10), 750000, 0)
			active["active_date"], active["notes"] = day(2026, 12, 1).Format(timeLayout), "[plan SPP 2026-12]"
			made := c.upload(componentJSON("A1", "SPP", day(2026, 12, 10), 450000, 25000), late, active)
			if len(made) != 3 || made[1].State != stateExpired || made[2].ActiveDate == nil {
				t.Fatalf("made = %+v", made)
			}
			for _, m := range made {
				read := into[record](t, c.must(http.StatusOK, "GET", "/bill_component/get/"+m.ID, nil))
				if !samePointers(m, read) {
					t.Errorf("the batch answered %+v\nread back     %+v", m, read)
				}
			}
		})
	}
}

// samePointers compares two records field by field, pointers by what they point to.
func samePointers(a, b record) bool {
	deref := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return *p
	}
	if deref(a.ActiveDate) != deref(b.ActiveDate) || deref(a.PaidDate) != deref(b.PaidDate) || deref(a.RefNumber) != deref(b.RefNumber) {
		return false
	}
	a.ActiveDate, a.PaidDate, a.RefNumber = nil, nil, nil
	b.ActiveDate, b.PaidDate, b.RefNumber = nil, nil, nil
	return a == b
}
