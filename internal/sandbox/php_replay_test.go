package sandbox

// TestPHPLibraryReplay replays, byte for byte, the requests the provider's
// public PHP client libraries send (the IDNConnector class and its newer
// StudentAdapter), written out by hand as PHP's json_encode and curl produce
// them:
//   - credentials in the address (user:password@host), which curl turns into
//     a Basic Authorization header; the password of the PHP server's date();
//   - no Content-Type (the contract's case), or curl's own default for a body
//     given with CURLOPT_POSTFIELDS, application/x-www-form-urlencoded;
//   - no bill_key_name, branch_code on students and components;
//   - dates from convertDatetimeToIso: "2027-01-10T00:00:00.000Z", and
//     "1970-01-01T00:00:00.000Z" for an empty active date;
//   - amounts as PHP passes them through: "250000.00", "25000";
//   - biller_code on pay and update, last_update_by, batch_id;
//   - an empty biller_ref_number, and the student list's query as
//     getStudents builds it (bill_key, offset=0 and limit=0 only with a name);
//   - json_encode's escaped slashes ("TA 2026\/2027").

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
)

// phpClient sends raw HTTP/1.1 requests to the sandbox.
type phpClient struct {
	t           *testing.T
	c           *apiClient
	host        string
	contentType string // "" sends none
}

func (p *phpClient) send(method, path, body string) reply {
	p.t.Helper()
	conn, err := net.Dial("tcp", p.host)
	if err != nil {
		p.t.Fatal(err)
	}
	defer conn.Close()
	auth := base64.StdEncoding.EncodeToString([]byte("10014:" + DailyPassword("rahasia-sekolah", p.c.sb.Now(), p.c.sb.loc)))
	var b strings.Builder
	fmt.Fprintf(&b, "%s /%s HTTP/1.1\r\nHost: %s\r\nAuthorization: Basic %s\r\nAccept: */*\r\n", method, path, p.host, auth)
	if body != "" {
		if p.contentType != "" {
			fmt.Fprintf(&b, "Content-Type: %s\r\n", p.contentType)
		}
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(body))
	}
	b.WriteString("Connection: close\r\n\r\n")
	b.WriteString(body)
	if _, err := conn.Write([]byte(b.String())); err != nil {
		p.t.Fatal(err)
	}
	req, _ := http.NewRequest(method, "http://"+p.host+"/"+path, nil)
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		p.t.Fatalf("%s /%s: %v", method, path, err)
	}
	defer resp.Body.Close()
	return decodeReply(p.t, resp)
}

func (p *phpClient) must(code int, method, path, body string) reply {
	p.t.Helper()
	r := p.send(method, path, body)
	if r.httpCode != code {
		p.t.Fatalf("%s /%s: %d %q, want %d", method, path, r.httpCode, r.StatusDesc, code)
	}
	return r
}

func TestPHPLibraryReplay(t *testing.T) {
	t.Parallel()
	for _, ct := range []string{"", "application/x-www-form-urlencoded"} {
		t.Run(fmt.Sprintf("Content-Type %q", ct), func(t *testing.T) {
			c := newSandbox(t, Options{Username: "10014", Password: "rahasia-sekolah"})
			p := &phpClient{t: t, c: c, host: strings.TrimPrefix(c.url, "http://"), contentType: ct}
			replay(t, p)
		})
	}
}

func replay(t *testing.T, p *phpClient) {
	// createStudent
	st := into[student](t, p.must(201, "POST", "bill",
		`{"name":"Budi Santoso","bill_key_value":"2526001","phone":"081234567890","email":"","description":"Kelas 7A","branch_code":""}`))
	if st.BillKeyName != "NIS" || st.Description != "Kelas 7A" {
		t.Errorf("createStudent stored %+v", st)
	}
	// createStudents
	p.must(201, "POST", "bill/batch", `{"bill_list":[{"name":"Siti Aminah","bill_key_value":"2526002","phone":"","email":"siti@example.com","description":"","branch_code":""},`+
		`{"name":"Rudi Hartono","bill_key_value":"2526003","phone":"0813","email":"","description":"Kelas 8B","branch_code":""}]}`)
	// addBillComponents
	recs := into[[]record](t, p.must(201, "POST", "bill_component/batch", `{"bill_upload_list":[`+
		`{"bill_key":"2526001","account_code":"SPP","bill_component_name":"SPP Januari 2027","expiry_date":"2027-02-10T00:00:00.000Z","due_date":"2027-01-10T00:00:00.000Z","amount":"250000.00","active_date":"1970-01-01T00:00:00.000Z","penalty_amount":"25000","notes":"TA 2026\/2027","branch_code":""},`+
		`{"bill_key":"2526001","account_code":"BCA","bill_component_name":"Uang Buku","expiry_date":"2027-01-31T00:00:00.000Z","due_date":"2026-12-15T00:00:00.000Z","amount":750000,"active_date":"2026-11-01T00:00:00.000Z","penalty_amount":0,"notes":"","branch_code":""},`+
		`{"bill_key":"2526002","account_code":"SPP","bill_component_name":"SPP Januari 2027","expiry_date":"2027-02-10T00:00:00.000Z","due_date":"2027-01-10T00:00:00.000Z","amount":"250000.00","active_date":"1970-01-01T00:00:00.000Z","penalty_amount":"25000","notes":"","branch_code":""}]}`))
	if len(recs) != 3 || recs[0].Amount != 250000 || recs[0].Penalty != 25000 || recs[0].ActiveDate != nil || recs[0].Notes != "TA 2026/2027" ||
		recs[0].DueDate != "2027-01-10T00:00:00Z" || recs[1].ActiveDate == nil || *recs[1].ActiveDate != "2026-11-01T00:00:00Z" {
		t.Fatalf("addBillComponents stored %+v", recs)
	}
	spp, buku := recs[0].ID, recs[1].ID

	// getStudents: with a name, bill_key, offset and limit come along (empty and zeros).
	list := into[[]student](t, p.must(200, "GET", "bill?name=budi&bill_key=&offset=0&limit=0", ""))
	if len(list) != 1 || list[0].BillKeyValue != "2526001" {
		t.Errorf("getStudents(name) = %+v", list)
	}
	if list := into[[]student](t, p.must(200, "GET", "bill", "")); len(list) != 3 {
		t.Errorf("getStudents() = %d students", len(list))
	}
	// getStudentBills, getBillByID
	if bills := into[[]record](t, p.must(200, "GET", "bill_component/search/bill?bill_key=2526001", "")); len(bills) != 2 {
		t.Errorf("getStudentBills = %d", len(bills))
	}
	if got := into[record](t, p.must(200, "GET", "bill_component/get/"+spp, "")); got.ID != spp || got.State != stateProvisioned {
		t.Errorf("getBillByID = %+v", got)
	}
	// updateBillComponent: every field, the same bill_key, amounts as text.
	upd := into[record](t, p.must(200, "PUT", "bill_component", `{"id":"`+spp+`","last_update_by":"admin","biller_code":"10014","bill_key":"2526001",`+
		`"account_code":"SPP","bill_component_name":"SPP Januari 2027","expiry_date":"2027-02-10T00:00:00.000Z","due_date":"2027-01-10T00:00:00.000Z",`+
		`"amount":"275000.00","active_date":"1970-01-01T00:00:00.000Z","penalty_amount":"25000","batch_id":"","notes":"revisi","branch_code":""}`))
	if upd.Amount != 275000 || upd.Notes != "revisi" || upd.ActiveDate != nil {
		t.Errorf("updateBillComponent = %+v", upd)
	}
	// updateStudent
	p.must(200, "PUT", "bill", `{"name":"Budi Santoso Putra","bill_key_value":"2526001","phone":"081234567890","email":"budi@example.com","description":"Kelas 7A","branch_code":""}`)
	if got := into[student](t, p.must(200, "GET", "bill/2526001", "")); got.Name != "Budi Santoso Putra" || got.Email != "budi@example.com" || got.BillKeyName != "NIS" {
		t.Errorf("updateStudent stored %+v", got)
	}
	// updateBillComponentPaymentStatus with an empty reference: the service makes one.
	paid := into[[]record](t, p.must(200, "POST", "bill_component/pay", `{"biller_code":"10014","bill_key":"2526001","biller_ref_number":"","bill_component_list":["`+spp+`"]}`))
	if len(paid) != 1 || paid[0].State != statePaid || paid[0].AmountPaid != 275000 || paid[0].RefNumber == nil || *paid[0].RefNumber == "" {
		t.Fatalf("updateBillComponentPaymentStatus = %+v", paid)
	}
	// deleteBillComponent
	gone := into[[]record](t, p.must(200, "POST", "bill_component/delete", `{"update_by":"admin","bill_component_id":["`+buku+`"],"transfer_ref":""}`))
	if len(gone) != 1 || gone[0].State != stateDeleted {
		t.Errorf("deleteBillComponent = %+v", gone)
	}
	// getBills
	var byState = map[string]int{}
	for _, q := range []string{"state=paid", "state=provisioned", "state=deleted", ""} {
		byState[q] = len(into[[]record](t, p.must(200, "GET", "bill_component/search/biller?"+q, "")))
	}
	if byState["state=paid"] != 1 || byState["state=provisioned"] != 1 || byState["state=deleted"] != 1 || byState[""] != 2 {
		t.Errorf("getBills by state: %v", byState)
	}
	// What is stored, read back as a whole.
	raw := p.must(200, "GET", "bill_component/get/"+spp, "").Data
	var stored map[string]any
	if err := json.Unmarshal(raw, &stored); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"bill_key": "2526001", "bill_name": "Budi Santoso Putra", "amount": 275000.0, "penalty_amount": 25000.0,
		"amount_paid": 275000.0, "state": "paid", "notes": "revisi", "active_date": nil, "expiry_date": "2027-02-10T00:00:00Z"} {
		if stored[k] != want {
			t.Errorf("stored %s = %v, want %v", k, stored[k], want)
		}
	}
}
