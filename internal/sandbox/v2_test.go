package sandbox

// Contract version 2 at the sandbox's end, over raw HTTP.

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStudentCreateAndList(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{})
	// No bill_key_name (the provider's clients never send one) and extra fields.
	r := c.must(http.StatusCreated, "POST", "/bill", obj{"name": "Ani", "bill_key_value": "A1", "phone": "", "email": "",
		"description": "7A", "branch_code": "", "created_by": "tu", "biller_code": 10014, "batch_id": nil})
	if st := into[student](t, r); st.BillKeyName != "NIS" || st.Description != "7A" || r.Status != "Created" {
		t.Fatalf("created %+v", st)
	}
	if r := c.must(http.StatusBadRequest, "POST", "/bill", obj{"name": "Again", "bill_key_value": "A1"}); r.StatusDesc != "bill_key_value: A1 already exists" || string(r.Data) != "null" {
		t.Errorf("duplicate: %q %s", r.StatusDesc, r.Data)
	}
	if r := c.must(http.StatusBadRequest, "POST", "/bill", obj{"bill_key_value": "A 2"}); r.StatusDesc != "name: required (and 1 more)" {
		t.Errorf("invalid: %q", r.StatusDesc)
	}
	for i := range 4 {
		c.sb.SetClock(testNow.Add(time.Duration(i+1) * time.Second))
		c.must(http.StatusCreated, "POST", "/bill", studentJSON(fmt.Sprint("B", i), fmt.Sprint("Budi ", i)))
	}
	list := func(query string) string {
		t.Helper()
		var keys []string
		for _, st := range into[[]student](t, c.must(http.StatusOK, "GET", "/bill"+query, nil)) {
			keys = append(keys, st.BillKeyValue)
		}
		return strings.Join(keys, " ")
	}
	tests := []struct{ query, want string }{
		{"", "B3 B2 B1 B0 A1"},
		{"?name=budi", "B3 B2 B1 B0"},
		{"?name=DI%201", "B1"},
		{"?name=&bill_key=", "B3 B2 B1 B0 A1"}, // empty parameters are ignored
		{"?bill_key=A1", "A1"},
		{"?name=budi&bill_key=A1", ""},
		{"?name=%25", ""}, // no LIKE wildcards
		{"?offset=1&limit=2", "B2 B1"},
		{"?offset=0&limit=0", "B3 B2 B1 B0 A1"},
		{"?offset=5", ""},
		{"?offset=9223372036854775807", ""},
		{"?offset=99999999999999999999999", ""},
		{"?limit=1500", "B3 B2 B1 B0 A1"},
	}
	for _, tt := range tests {
		if got := list(tt.query); got != tt.want {
			t.Errorf("GET /bill%s = %q, want %q", tt.query, got, tt.want)
		}
	}
	for _, q := range []string{"?limit=1501", "?limit=-1", "?offset=-1", "?limit=x"} {
		if r := c.do("GET", "/bill"+q, nil); r.httpCode != http.StatusBadRequest || r.StatusDesc == "" {
			t.Errorf("GET /bill%s: %d %q, want a 400", q, r.httpCode, r.StatusDesc)
		}
	}
	c.must(http.StatusOK, "DELETE", "/bill/B2", nil)
	if got := list("?name=budi"); got != "B3 B1 B0" {
		t.Errorf("after deleting B2: %q", got)
	}
	// Its NIS is free again.
	c.must(http.StatusCreated, "POST", "/bill", studentJSON("B2", "Budi baru"))
}

func TestHugeOffsetsAndLimits(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{})
	c.seedStudents("A1")
	c.upload(componentJSON("A1", "SPP", day(2026, 12, 10), 450000, 25000))
	for _, path := range []string{"/bill_component/search/biller", "/bill_component/search/bill?bill_key=A1", "/bill"} {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		for _, q := range []string{"offset=9223372036854775807", "offset=9223372036854775807&limit=1000", "offset=1099511627776",
			"offset=18446744073709551616&limit=1", "offset=9223372036854775806&limit=9"} {
			r := c.must(http.StatusOK, "GET", path+sep+q, nil)
			if string(r.Data) != "[]" {
				t.Errorf("%s%s%s: %s, want an empty page", path, sep, q, r.Data)
			}
		}
		for _, q := range []string{"limit=9223372036854775807", "offset=-9223372036854775808", "limit=-9223372036854775808"} {
			if r := c.do("GET", path+sep+q, nil); r.httpCode != http.StatusBadRequest {
				t.Errorf("%s%s%s: %d, want 400", path, sep, q, r.httpCode)
			}
		}
	}
}

func TestMaxLimitAndCapSilently(t *testing.T) {
	t.Parallel()
	strict := newSandbox(t, Options{MaxLimit: 3})
	capped := newSandbox(t, Options{MaxLimit: 3, CapSilently: true})
	for _, c := range []*apiClient{strict, capped} {
		c.seedStudents("A1")
		var items []obj
		for i := range 5 {
			items = append(items, componentJSON("A1", "SPP", day(2026, 12, i+1), 1000, 0))
		}
		c.upload(items...)
	}
	if r := strict.do("GET", "/bill_component/search/biller?limit=4", nil); r.httpCode != http.StatusBadRequest || r.StatusDesc != "limit: must be a whole number from 1 to 3" {
		t.Errorf("-max-limit 3, limit 4: %d %q", r.httpCode, r.StatusDesc)
	}
	if n := len(into[[]record](t, strict.must(http.StatusOK, "GET", "/bill_component/search/bill?bill_key=A1&limit=3", nil))); n != 3 {
		t.Errorf("limit 3: %d", n)
	}
	for _, q := range []string{"limit=4", "limit=1000", "limit=99999999999999999999"} {
		if n := len(into[[]record](t, capped.must(http.StatusOK, "GET", "/bill_component/search/biller?"+q, nil))); n != 3 {
			t.Errorf("capped %s: %d records, want 3", q, n)
		}
	}
	if n := len(into[[]record](t, capped.must(http.StatusOK, "GET", "/bill_component/search/biller?limit=1000&offset=3", nil))); n != 2 {
		t.Errorf("capped second page: %d records, want 2", n)
	}
	// The student list keeps its own largest page (1500); capped, a larger limit gets at most that.
	if r := capped.do("GET", "/bill?limit=5000", nil); r.httpCode != http.StatusOK {
		t.Errorf("capped student list: %d", r.httpCode)
	}
	if r := strict.do("GET", "/bill?limit=5000", nil); r.httpCode != http.StatusBadRequest {
		t.Errorf("strict student list: %d", r.httpCode)
	}
}

func TestZonelessTimestamps(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{Zoneless: true}) // Jakarta
	c.seedStudents("A1")
	in := componentJSON("A1", "SPP", day(2026, 12, 10), 450000, 25000)
	in["active_date"] = ts(2026, 11, 1)
	rec := c.upload(in)[0]
	// UTC midnight is 07:00 in Jakarta; the clock's 02:00 UTC is 09:00.
	if rec.DueDate != "2026-12-10T07:00:00" || *rec.ActiveDate != "2026-11-01T07:00:00" || rec.CreatedAt != "2026-11-22T09:00:00" ||
		rec.UpdatedAt != "2026-11-22T09:00:00" {
		t.Errorf("zoneless record %+v", rec)
	}
	c.sb.SetClock(testNow.Add(1234567 * time.Microsecond))
	paid := into[[]record](t, c.must(http.StatusOK, "POST", "/bill_component/pay", obj{"bill_key": "A1", "biller_ref_number": "R", "bill_component_list": []string{rec.ID}}))
	if *paid[0].PaidDate != "2026-11-22T09:00:01.234567" {
		t.Errorf("zoneless paid_date %q", *paid[0].PaidDate)
	}
	// Without the option: UTC with a Z.
	z := newSandbox(t, Options{})
	z.seedStudents("A1")
	if r := z.upload(componentJSON("A1", "SPP", day(2026, 12, 10), 1, 0))[0]; r.DueDate != "2026-12-10T00:00:00Z" || r.CreatedAt != "2026-11-22T02:00:00Z" {
		t.Errorf("zoned record %+v", r)
	}
}

func TestComponentUpdate(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{})
	c.seedStudents("A1", "B2")
	in := componentJSON("A1", "SPP", day(2026, 12, 10), 450000, 25000)
	in["active_date"] = ts(2026, 12, 1)
	rec := c.upload(in)[0]
	c.sb.SetClock(testNow.Add(time.Hour))

	// As the provider's PHP library sends it: every field, amounts as text,
	// 1970 for "no active date", extra fields; bill_key the same student.
	upd := into[record](t, c.must(http.StatusOK, "PUT", "/bill_component", obj{
		"id": rec.ID, "last_update_by": "tu", "biller_code": "10014", "bill_key": "A1", "account_code": "BCA",
		"bill_component_name": "SPP Desember", "expiry_date": "2027-01-31T00:00:00.000Z", "due_date": "2026-12-15T00:00:00.000Z",
		"amount": "475000.00", "active_date": "1970-01-01T00:00:00.000Z", "penalty_amount": "0", "batch_id": "", "notes": "", "branch_code": ""}))
	if upd.AccountCode != "BCA" || upd.Name != "SPP Desember" || upd.DueDate != "2026-12-15T00:00:00Z" || upd.ExpiryDate != "2027-01-31T00:00:00Z" ||
		upd.Amount != 475000 || upd.Penalty != 0 || upd.ActiveDate != nil || upd.Notes != "" ||
		upd.CreatedAt != rec.CreatedAt || upd.UpdatedAt != "2026-11-22T03:00:00Z" {
		t.Errorf("full update %+v", upd)
	}
	// bill_component_id names it too; absent fields keep their value.
	upd = into[record](t, c.must(http.StatusOK, "PUT", "/bill_component", obj{"bill_component_id": rec.ID, "notes": "catatan"}))
	if upd.Notes != "catatan" || upd.Amount != 475000 || upd.Name != "SPP Desember" {
		t.Errorf("partial update %+v", upd)
	}
	refused := []struct {
		name string
		body obj
		code int
		desc string
	}{
		{"no id", obj{"notes": "x"}, 400, "id: required"},
		{"unknown", obj{"id": "nope", "notes": "x"}, 404, `unknown component "nope"`},
		{"another student", obj{"id": rec.ID, "bill_key": "B2"}, 400, "bill_key: a component cannot move to another student (it belongs to A1)"},
		{"due after expiry", obj{"id": rec.ID, "due_date": ts(2027, 2, 1)}, 400, "due_date: must not be after expiry_date"},
		{"fractional rupiah", obj{"id": rec.ID, "amount": "1.50"}, 400, "amount: must be a whole number of rupiah"},
		{"unknown account", obj{"id": rec.ID, "account_code": "BRI"}, 400, "account_code: unknown account code (known: SPP, BCA, MANDIRI)"},
	}
	for _, tt := range refused {
		if r := c.do("PUT", "/bill_component", tt.body); r.httpCode != tt.code || r.StatusDesc != tt.desc {
			t.Errorf("%s: %d %q, want %d %q", tt.name, r.httpCode, r.StatusDesc, tt.code, tt.desc)
		}
	}
	if got := into[record](t, c.must(http.StatusOK, "GET", "/bill_component/get/"+rec.ID, nil)); got.Notes != "catatan" || got.AccountCode != "BCA" {
		t.Errorf("refused updates changed %+v", got)
	}
	// An update that makes the due day two days away records the reminder at once.
	c.must(http.StatusOK, "PUT", "/bill_component", obj{"id": rec.ID, "due_date": ts(2026, 11, 24)})
	if rs := c.sb.Reminders(); len(rs) != 1 || rs[0].BillComponentID != rec.ID {
		t.Errorf("reminders %+v", rs)
	}
}

func TestComponentDeleteAndStates(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{})
	c.seedStudents("A1")
	recs := c.upload(componentJSON("A1", "SPP", day(2026, 12, 10), 1000, 0), componentJSON("A1", "SPP", day(2027, 1, 10), 1000, 0),
		componentJSON("A1", "SPP", day(2026, 9, 10), 1000, 0)) // expired
	c.must(http.StatusOK, "POST", "/bill_component/pay", obj{"bill_key": "A1", "biller_ref_number": "R", "bill_component_list": []string{recs[1].ID}})

	bad := []struct {
		name string
		ids  []string
		code int
		desc string
	}{
		{"paid", []string{recs[0].ID, recs[1].ID}, 400, "bill_component_id[1]: paid, cannot be deleted; payment history is kept"},
		{"unknown", []string{recs[0].ID, "nope"}, 404, `bill_component_id[1]: unknown component "nope"`},
		{"repeated", []string{recs[0].ID, recs[0].ID}, 400, "bill_component_id[1]: repeated (first at index 0)"},
		{"empty", []string{}, 400, "bill_component_id: required, at least one item"},
	}
	for _, tt := range bad {
		if r := c.do("POST", "/bill_component/delete", obj{"bill_component_id": tt.ids, "update_by": "tu", "transfer_ref": ""}); r.httpCode != tt.code || r.StatusDesc != tt.desc {
			t.Errorf("%s: %d %q, want %d %q", tt.name, r.httpCode, r.StatusDesc, tt.code, tt.desc)
		}
	}
	c.sb.SetClock(testNow.Add(time.Minute))
	gone := into[[]record](t, c.must(http.StatusOK, "POST", "/bill_component/delete", obj{"bill_component_id": []string{recs[2].ID, recs[0].ID}, "update_by": "tu"}))
	if len(gone) != 2 || gone[0].ID != recs[2].ID || gone[0].State != stateDeleted || gone[1].State != stateDeleted || gone[0].UpdatedAt != "2026-11-22T02:01:00Z" {
		t.Errorf("deleted %+v", gone)
	}
	count := func(query string) int {
		return len(into[[]record](t, c.must(http.StatusOK, "GET", "/bill_component/search/biller"+query, nil)))
	}
	for q, want := range map[string]int{"": 1, "?state=deleted": 2, "?state=provisioned": 0, "?state=expired": 0, "?state=paid": 1,
		"?state=deleted&account_code=SPP": 2, "?state=deleted&end_due_date=20261130": 1} {
		if got := count(q); got != want {
			t.Errorf("search%s: %d, want %d", q, got, want)
		}
	}
	if r := c.do("POST", "/bill_component/delete", obj{"bill_component_id": []string{recs[0].ID}}); r.httpCode != 400 || !strings.Contains(r.StatusDesc, "already deleted") {
		t.Errorf("twice: %d %q", r.httpCode, r.StatusDesc)
	}
	// A deleted component's reminder day passes unremarked.
	c.sb.SetClock(time.Date(2026, 12, 8, 1, 0, 0, 0, c.sb.loc))
	if rs := c.sb.Reminders(); len(rs) != 0 {
		t.Errorf("reminders for deleted components: %+v", rs)
	}
}

func TestEmptyReferenceIsMadeUp(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{})
	c.seedStudents("A1")
	rec := c.upload(componentJSON("A1", "SPP", day(2026, 12, 10), 1000, 0))[0]
	paid := into[[]record](t, c.must(http.StatusOK, "POST", "/bill_component/pay", obj{"biller_code": "10014", "last_update_by": "tu",
		"bill_key": "A1", "biller_ref_number": "", "bill_component_list": []string{rec.ID}}))
	if ref := *paid[0].RefNumber; !strings.HasPrefix(ref, "SBX261122") || len(ref) != 17 {
		t.Errorf("made-up reference %q", ref)
	}
}

func TestDateHeaderIsTheServiceClock(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{})
	req, _ := http.NewRequest("GET", c.url+"/bill/nobody", nil) // even a 401 shows it
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got, err := http.ParseTime(resp.Header.Get("Date")); err != nil || !got.Equal(testNow) {
		t.Errorf("Date %q, want the sandbox clock %v", resp.Header.Get("Date"), testNow)
	}
}

// schemaV1 is the store's layout before contract version 2.
const schemaV1 = `
CREATE TABLE students (id INTEGER PRIMARY KEY, bill_id TEXT NOT NULL UNIQUE, nis TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
	key_name TEXT NOT NULL, phone TEXT NOT NULL DEFAULT '', email TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL);
CREATE TABLE components (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, student_id INTEGER NOT NULL REFERENCES students(id),
	account_code TEXT NOT NULL, name TEXT NOT NULL, amount INTEGER NOT NULL, penalty INTEGER NOT NULL, active_at INTEGER,
	active_day INTEGER, due_at INTEGER NOT NULL, due_day INTEGER NOT NULL, expiry_at INTEGER NOT NULL, expiry_day INTEGER NOT NULL,
	paid_at INTEGER, paid_day INTEGER, amount_paid INTEGER NOT NULL DEFAULT 0, ref_number TEXT, notes TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL);
CREATE INDEX components_created ON components(created_at, id, paid_day, due_day, expiry_day);
CREATE INDEX components_account_created ON components(account_code, created_at, id, paid_day, due_day, expiry_day);
CREATE INDEX components_student ON components(student_id, created_at, id);
CREATE INDEX components_unpaid_due ON components(due_day, expiry_day, created_at, id) WHERE paid_day IS NULL;
CREATE INDEX components_unpaid_account_due ON components(account_code, due_day, expiry_day, created_at, id) WHERE paid_day IS NULL;
CREATE INDEX components_paid_day ON components(paid_day, created_at, id) WHERE paid_day IS NOT NULL;
CREATE INDEX components_ref ON components(ref_number) WHERE ref_number IS NOT NULL;
CREATE TABLE reminders (id INTEGER PRIMARY KEY, component_id TEXT NOT NULL UNIQUE, bill_key TEXT NOT NULL, due_at INTEGER NOT NULL,
	sent_at INTEGER NOT NULL, phone TEXT NOT NULL, email TEXT NOT NULL);
INSERT INTO students VALUES (1, 'bill-1', 'A1', 'Ani', 'NIS', '0812', '', '', 1000);
INSERT INTO components VALUES (1, 'c-open', 1, 'SPP', 'SPP Desember', 450000, 25000, NULL, NULL,
	1796860800, 20261210, 1799539200, 20270110, NULL, NULL, 0, NULL, 'spp', 2000);
INSERT INTO components VALUES (2, 'c-paid', 1, 'SPP', 'SPP November', 450000, 25000, NULL, NULL,
	1794268800, 20261110, 1796860800, 20261210, 3000, 20261101, 450000, 'R1', 'spp', 2000);
`

// TestStoreFromVersion1 opens a file written before version 2: it is
// migrated in place and keeps its data.
func TestStoreFromVersion1(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "v1.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(schemaV1); err != nil {
		t.Fatal(err)
	}
	db.Close()

	c := newSandbox(t, Options{DBPath: path})
	recs := into[[]record](t, c.must(http.StatusOK, "GET", "/bill_component/search/bill?bill_key=A1", nil))
	if len(recs) != 2 || recs[0].UpdatedAt == "" {
		t.Fatalf("migrated records %+v", recs)
	}
	byID := map[string]record{recs[0].ID: recs[0], recs[1].ID: recs[1]}
	if byID["c-paid"].UpdatedAt != formatNanosForTest(3000) || byID["c-open"].UpdatedAt != formatNanosForTest(2000) || byID["c-paid"].State != statePaid {
		t.Errorf("updated_at after migration: %+v", byID)
	}
	// Version 2 works on it: deleting the student keeps its rows.
	c.must(http.StatusBadRequest, "DELETE", "/bill/A1", nil) // it has a paid component
	c.must(http.StatusCreated, "POST", "/bill", studentJSON("B2", "Budi"))
	c.must(http.StatusOK, "DELETE", "/bill/B2", nil)
	c.must(http.StatusCreated, "POST", "/bill", studentJSON("B2", "Budi again"))
	var version int
	if err := c.sb.store.db.QueryRowContext(context.Background(), `PRAGMA user_version`).Scan(&version); err != nil || version != schemaVersion {
		t.Errorf("user_version %d, %v", version, err)
	}
	c.sb.Close()
	// Opened again: already at version 2, nothing to do.
	again, err := New(Options{DBPath: path, Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	again.Close()
}

func formatNanosForTest(ns int64) string { return stamps{loc: time.UTC}.nanos(ns) }

// TestRequestDecodersReadNumbersAsText: amounts as numeric strings everywhere
// an upload is read.
func TestRequestDecodersReadNumbersAsText(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{})
	c.seedStudents("A1")
	item := componentJSON("A1", "SPP", day(2026, 12, 10), 0, 0)
	item["amount"], item["penalty_amount"] = "250000.00", " 25000 "
	rec := into[record](t, c.must(http.StatusCreated, "POST", "/bill_component", item))
	if rec.Amount != 250000 || rec.Penalty != 25000 {
		t.Errorf("single create %+v", rec)
	}
	raw, _ := json.Marshal(obj{"bill_upload_list": []obj{item}})
	if r := c.raw("POST", "/bill_component/batch", "", raw); r.httpCode != http.StatusCreated {
		t.Errorf("batch without Content-Type: %d %q", r.httpCode, r.StatusDesc)
	}
	item["amount"] = "2.5e5"
	if r := c.do("POST", "/bill_component", item); r.httpCode != http.StatusCreated {
		t.Errorf("exponent as text: %d %q", r.httpCode, r.StatusDesc)
	}
	item["amount"] = "250000,00"
	if r := c.do("POST", "/bill_component", item); r.httpCode != 400 || r.StatusDesc != "amount: must be a whole number of rupiah" {
		t.Errorf("comma decimal: %d %q", r.httpCode, r.StatusDesc)
	}
}
