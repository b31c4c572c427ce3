package sandbox

import (
	"net/http"
	"testing"
)

func TestStudentLifecycle(t *testing.T) {
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
