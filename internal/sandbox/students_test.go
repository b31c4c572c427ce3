package sandbox

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestStudentLifecycle(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{})
	r := c.must(http.StatusCreated, "POST", "/bill/batch", obj{"bill_list": []obj{studentJSON("2526001", "Budi Santoso"), studentJSON("2526002", "Siti Aminah")}})
	created := into[[]student](t, r)
	if len(created) != 2 || created[0].BillKeyValue != "2526001" || r.Status != "Created" {
		t.Fatalf("created = %+v, status %q", created, r.Status)
	}

	got := into[student](t, c.must(http.StatusOK, "GET", "/bill/2526001", nil))
	if got.Name != "Budi Santoso" || got.BillKeyName != "NIS" || got.Phone != "081234567890" {
		t.Fatalf("GET = %+v", got)
	}

	upd := studentJSON("2526001", "Budi Santoso Putra")
	upd["description"] = "Kelas 7A"
	c.must(http.StatusOK, "PUT", "/bill", upd)
	got = into[student](t, c.must(http.StatusOK, "GET", "/bill/2526001", nil))
	if got.Name != "Budi Santoso Putra" || got.Description != "Kelas 7A" {
		t.Fatalf("after PUT = %+v", got)
	}

	c.must(http.StatusOK, "DELETE", "/bill/2526002", nil)
	if r := c.must(http.StatusNotFound, "GET", "/bill/2526002", nil); string(r.Data) != "null" {
		t.Fatalf("404 data = %s", r.Data)
	}
	c.must(http.StatusNotFound, "DELETE", "/bill/2526002", nil)
	c.must(http.StatusNotFound, "PUT", "/bill", studentJSON("9999", "Nobody"))
}

func TestStudentBatchIsAllOrNothing(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{})
	c.seedStudents("OLD1")
	good := studentJSON("NEW1", "Ani")
	tests := []struct {
		name     string
		list     any
		wantDesc string
		want     []problem
	}{
		{"missing name", []obj{good, {"bill_key_value": "X2", "bill_key_name": "NIS"}},
			"bill_list[1].name: required", []problem{{1, "name", "required"}}},
		{"bad NIS", []obj{good, studentJSON("A B", "x")},
			"bill_list[1].bill_key_value: must be 1 to 32 letters, digits, dots or dashes", []problem{{1, "bill_key_value", "must be 1 to 32 letters, digits, dots or dashes"}}},
		{"NIS too long", []obj{studentJSON("123456789012345678901234567890123", "x"), good},
			"bill_list[0].bill_key_value: must be 1 to 32 letters, digits, dots or dashes", []problem{{0, "bill_key_value", "must be 1 to 32 letters, digits, dots or dashes"}}},
		{"NIS repeated in the batch", []obj{good, studentJSON("X4", "x"), studentJSON("NEW1", "again")},
			"bill_list[2].bill_key_value: NEW1 is repeated in this batch (first at index 0)", []problem{{2, "bill_key_value", "NEW1 is repeated in this batch (first at index 0)"}}},
		{"existing student", []obj{good, studentJSON("OLD1", "again")},
			"bill_list[1].bill_key_value: OLD1 already exists", []problem{{1, "bill_key_value", "OLD1 already exists"}}},
		{"item of the wrong type", []any{good, 42},
			"bill_list[1].item: must be an object", []problem{{1, "item", "must be an object"}}},
		{"field of the wrong type", []obj{good, {"name": 1, "bill_key_value": "X5", "bill_key_name": "NIS"}},
			"bill_list[1].name: must be a string", []problem{{1, "name", "must be a string"}}},
		{"every bad item is listed", []obj{{"bill_key_value": "X6", "bill_key_name": "NIS"}, good, studentJSON("OLD1", "x"), {"name": "y"}},
			"bill_list[0].name: required (and 2 more)", []problem{
				{0, "name", "required"}, {2, "bill_key_value", "OLD1 already exists"},
				{3, "bill_key_value", "required"}}},
		{"empty list", []obj{}, "bill_list: required, at least one item", []problem{{-1, "bill_list", "required, at least one item"}}},
		{"no list", nil, "bill_list: required, at least one item", []problem{{-1, "bill_list", "required, at least one item"}}},
		{"over 1000 items", manyStudents(1001), "bill_list: at most 1000 items", []problem{{-1, "bill_list", "at most 1000 items"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.must(http.StatusBadRequest, "POST", "/bill/batch", obj{"bill_list": tt.list})
			if r.StatusDesc != tt.wantDesc {
				t.Errorf("status_desc = %q, want %q", r.StatusDesc, tt.wantDesc)
			}
			if got := into[[]problem](t, r); !slices.Equal(got, tt.want) {
				t.Errorf("data = %+v, want %+v", got, tt.want)
			}
			c.must(http.StatusNotFound, "GET", "/bill/NEW1", nil)
		})
	}
	c.must(http.StatusCreated, "POST", "/bill/batch", obj{"bill_list": manyStudents(1000)})
	c.must(http.StatusOK, "GET", "/bill/S999", nil)
}

func manyStudents(n int) []obj {
	out := make([]obj, n)
	for i := range out {
		out[i] = studentJSON(fmt.Sprintf("S%d", i), "Siswa")
	}
	return out
}

func TestStudentUpdateValidation(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{})
	c.seedStudents("A1")
	for _, tt := range []struct {
		body obj
		want string
	}{
		{obj{"bill_key_value": "A1", "bill_key_name": "NIS"}, "name: required"},
		{obj{"name": "x", "bill_key_name": "NIS"}, "bill_key_value: required"},
	} {
		r := c.must(http.StatusBadRequest, "PUT", "/bill", tt.body)
		if r.StatusDesc != tt.want || string(r.Data) != "null" {
			t.Errorf("got %q %s, want %q null", r.StatusDesc, r.Data, tt.want)
		}
	}
	// Nomor Induk Siswa is also a valid key name.
	st := studentJSON("A1", "Budi")
	st["bill_key_name"] = "Nomor Induk Siswa"
	c.must(http.StatusOK, "PUT", "/bill", st)
	if got := into[student](t, c.must(http.StatusOK, "GET", "/bill/A1", nil)); got.BillKeyName != "Nomor Induk Siswa" {
		t.Fatalf("got %+v", got)
	}
}

func TestStudentDeleteKeepsPaymentHistory(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{})
	c.seedStudents("PAID", "OPEN")
	paid := c.upload(componentJSON("PAID", "SPP", day(2026, 12, 10), 450000, 0), componentJSON("PAID", "SPP", day(2027, 1, 10), 450000, 0))
	c.upload(componentJSON("OPEN", "SPP", day(2026, 12, 10), 450000, 0), componentJSON("OPEN", "BCA", day(2027, 1, 10), 450000, 0))
	c.must(http.StatusOK, "POST", "/bill_component/pay", obj{"bill_key": "PAID", "biller_ref_number": "R1", "bill_component_list": []string{paid[0].ID}})

	r := c.must(http.StatusBadRequest, "DELETE", "/bill/PAID", nil)
	if !strings.Contains(r.StatusDesc, "paid") {
		t.Errorf("status_desc = %q", r.StatusDesc)
	}
	if n := len(into[[]record](t, c.must(http.StatusOK, "GET", "/bill_component/search/bill?bill_key=PAID", nil))); n != 2 {
		t.Fatalf("refused delete removed components: %d left", n)
	}

	c.must(http.StatusOK, "DELETE", "/bill/OPEN", nil)
	c.must(http.StatusNotFound, "GET", "/bill_component/search/bill?bill_key=OPEN", nil)
	for _, rec := range into[[]record](t, c.must(http.StatusOK, "GET", "/bill_component/search/biller", nil)) {
		if rec.BillKey == "OPEN" {
			t.Fatalf("component of a deleted student still listed: %+v", rec)
		}
	}
	// The NIS is free again.
	c.seedStudents("OPEN")
}
