package billing

// Tests against the real sandbox over real HTTP: the contract as the client sees it.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/sandbox"
)

const (
	testUser   = "sekolah-01"
	testIssued = "issued-Pa55-for-tests"
)

// jakartaNoon is the sandbox's fixed "now" unless a test moves it:
// Monday 5 January 2026, 10:00 in Jakarta.
var jakartaNoon = time.Date(2026, 1, 5, 3, 0, 0, 0, time.UTC)

// env is one sandbox behind a real HTTP server and a client talking to it.
type env struct {
	srv  *sandbox.Server
	ts   *httptest.Server
	c    *Client
	logs *syncBuffer
}

// setup starts a sandbox on jakartaNoon and a client whose clock follows the
// sandbox's (unless the options replace it).
func setup(t testing.TB, mod ...func(*sandbox.Options, *Config)) *env {
	t.Helper()
	opts := sandbox.Options{Username: testUser, Password: testIssued, Now: jakartaNoon, Seed: 1,
		HangLimit: 5 * time.Second, DisabledUsers: map[string]string{"old-school": "old-issued"}}
	cfg := Config{Username: testUser, Password: testIssued, RetryBase: time.Millisecond, RetryMax: 10 * time.Millisecond}
	for _, m := range mod {
		m(&opts, &cfg)
	}
	srv, err := sandbox.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		ts.Close()
		srv.Close()
	})
	logs := &syncBuffer{}
	cfg.BaseURL = ts.URL
	if cfg.Now == nil {
		cfg.Now = srv.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = debugLogger(logs)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &env{srv: srv, ts: ts, c: c, logs: logs}
}

// syncBuffer is a log sink safe for the server's and the client's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuffer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Reset()
}

// day is a calendar day as the service's UTC-midnight time.
func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func (e *env) students(t testing.TB, nis ...string) {
	t.Helper()
	list := make([]Student, len(nis))
	for i, n := range nis {
		list[i] = Student{NIS: n, Name: "Siswa " + n, Phone: "0812" + n, Email: n + "@sekolah.example"}
	}
	if _, err := e.c.CreateStudents(context.Background(), list); err != nil {
		t.Fatal(err)
	}
}

func (e *env) upload(t testing.TB, in ...ComponentInput) []Bill {
	t.Helper()
	got, err := e.c.CreateComponents(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(in) {
		t.Fatalf("uploaded %d, got %d records", len(in), len(got))
	}
	return got
}

// spp is a component due on due, expiring 20 days later.
func spp(nis, name string, due time.Time, amount, penalty int64) ComponentInput {
	return ComponentInput{NIS: nis, AccountCode: "SPP", Name: name, Due: due, Expiry: due.AddDate(0, 0, 20), Amount: amount, Penalty: penalty}
}

// apiErr asserts err is an *APIError of the given status and kind.
func apiErr(t *testing.T, err error, code int, kind error) *APIError {
	t.Helper()
	var e *APIError
	if !errors.As(err, &e) || e.StatusCode != code || !errors.Is(err, kind) {
		t.Fatalf("err = %v, want %d matching %v", err, code, kind)
	}
	return e
}

func ids(bs []Bill) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.ComponentID
	}
	return out
}

func names(bs []Bill) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.Name
	}
	slices.Sort(out)
	return out
}

func TestSandboxStudents(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	created, err := e.c.CreateStudents(ctx, []Student{
		{NIS: "1001", Name: "Ani", Phone: "08121", Email: "ani@example.id", Description: "kelas 1"},
		{NIS: "1002", Name: "Budi", KeyName: "Nomor Induk Siswa"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(created) != 2 || created[0].KeyName != "NIS" || created[1].KeyName != "Nomor Induk Siswa" {
		t.Fatalf("created %+v", created)
	}
	got, err := e.c.Student(ctx, "1001")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Student{NIS: "1001", Name: "Ani", KeyName: "NIS", Phone: "08121", Email: "ani@example.id", Description: "kelas 1"}); got != want {
		t.Errorf("Student = %+v, want %+v", got, want)
	}

	upd := got
	upd.Phone, upd.Name = "08999", "Ani S."
	if _, err := e.c.UpdateStudent(ctx, upd); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.c.Student(ctx, "1001"); got != upd {
		t.Errorf("after update %+v, want %+v", got, upd)
	}
	_, err = e.c.UpdateStudent(ctx, Student{NIS: "9999", Name: "Nobody"})
	apiErr(t, err, 404, ErrNotFound)

	if err := e.c.DeleteStudent(ctx, "1002"); err != nil {
		t.Fatal(err)
	}
	_, err = e.c.Student(ctx, "1002")
	apiErr(t, err, 404, ErrNotFound)
	apiErr(t, e.c.DeleteStudent(ctx, "1002"), 404, ErrNotFound)
}

func TestSandboxStudentBatchAllOrNothing(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	e.students(t, "2001")
	tests := []struct {
		name  string
		list  []Student
		index int
		field string
	}{
		{"NIS repeated in the batch", []Student{{NIS: "3001", Name: "A"}, {NIS: "3002", Name: "B"}, {NIS: "3001", Name: "C"}}, 2, "bill_key_value"},
		{"student already exists", []Student{{NIS: "3001", Name: "A"}, {NIS: "2001", Name: "B"}}, 1, "bill_key_value"},
		{"missing name", []Student{{NIS: "3001", Name: "A"}, {NIS: "3002", Name: "B"}, {NIS: "3003"}}, 2, "name"},
		{"bad NIS", []Student{{NIS: "3001", Name: "A"}, {NIS: "30 02", Name: "B"}}, 1, "bill_key_value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.c.CreateStudents(ctx, tt.list)
			ae := apiErr(t, err, 400, ErrValidation)
			if len(ae.Items) == 0 || ae.Items[0].Index != tt.index || ae.Items[0].Field != tt.field {
				t.Errorf("items %+v, want index %d field %s", ae.Items, tt.index, tt.field)
			}
			if want := fmt.Sprintf("bill_list[%d].%s", tt.index, tt.field); !strings.Contains(err.Error(), want) {
				t.Errorf("text %q does not name %s", err, want)
			}
			_, err = e.c.Student(ctx, "3001")
			apiErr(t, err, 404, ErrNotFound) // nothing of the batch was stored
		})
	}
}

func TestSandboxComponentBatchAllOrNothing(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	e.students(t, "1001")
	good := spp("1001", "SPP Januari", day(2026, 1, 10), 450000, 25000)
	tests := []struct {
		name  string
		bad   func(*ComponentInput)
		field string
	}{
		{"unknown student", func(c *ComponentInput) { c.NIS = "9999" }, "bill_key"},
		{"unknown account code", func(c *ComponentInput) { c.AccountCode = "BRI" }, "account_code"},
		{"no name", func(c *ComponentInput) { c.Name = "" }, "bill_component_name"},
		{"no due date", func(c *ComponentInput) { c.Due = time.Time{} }, "due_date"},
		{"no expiry date", func(c *ComponentInput) { c.Expiry = time.Time{} }, "expiry_date"},
		{"due after expiry", func(c *ComponentInput) { c.Expiry = c.Due.AddDate(0, 0, -1) }, "due_date"},
		{"active after due", func(c *ComponentInput) { c.Active = c.Due.AddDate(0, 0, 1) }, "active_date"},
		{"zero amount", func(c *ComponentInput) { c.Amount = 0 }, "amount"},
		{"negative penalty", func(c *ComponentInput) { c.Penalty = -1 }, "penalty_amount"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := good
			tt.bad(&bad)
			_, err := e.c.CreateComponents(ctx, []ComponentInput{good, good, bad})
			ae := apiErr(t, err, 400, ErrValidation)
			if len(ae.Items) != 1 || ae.Items[0].Index != 2 || ae.Items[0].Field != tt.field {
				t.Errorf("items %+v, want one at index 2 on %s", ae.Items, tt.field)
			}
			if want := "bill_upload_list[2]." + tt.field; !strings.Contains(err.Error(), want) {
				t.Errorf("text %q does not name %s", err, want)
			}
			if bs, err := e.c.StudentBills(ctx, "1001", Query{}); err != nil || len(bs) != 0 {
				t.Errorf("after a rejected batch: %d bills stored, err %v", len(bs), err)
			}
		})
	}

	// And the good ones alone are stored as sent: dates as calendar days.
	jakarta := e.srv.Location()
	in := good
	in.Due = time.Date(2026, 1, 10, 0, 0, 0, 0, jakarta) // 9 January in UTC: its own date counts
	in.Active = day(2026, 1, 2)
	in.Notes = "angsuran 1"
	got := e.upload(t, in)[0]
	if !got.Due.Equal(day(2026, 1, 10)) || !got.Active.Equal(day(2026, 1, 2)) || !got.Expiry.Equal(day(2026, 1, 30)) ||
		got.Notes != "angsuran 1" || got.State != StateProvisioned || got.NIS != "1001" || got.StudentName != "Siswa 1001" ||
		got.BillID == "" || got.ComponentID == "" || !got.CreatedAt.Equal(jakartaNoon) || got.AmountPaid != 0 || !got.PaidAt.IsZero() {
		t.Errorf("stored %+v", got)
	}
}

func TestSandboxPayRules(t *testing.T) {
	t.Parallel()
	e := setup(t) // today is 5 January 2026 in Jakarta
	ctx := context.Background()
	today := e.srv.Now().In(e.srv.Location())
	e.students(t, "1001", "1002")
	bs := e.upload(t,
		spp("1001", "due today", day(2026, 1, 5), 450000, 25000),
		spp("1001", "due tomorrow", day(2026, 1, 6), 450000, 25000),
		spp("1001", "late (arrears)", day(2025, 12, 20), 450000, 25000), // expires 9 January
		ComponentInput{NIS: "1001", AccountCode: "BCA", Name: "expired (arrears)", Due: day(2025, 11, 1), Expiry: day(2026, 1, 4), Amount: 100000, Penalty: 5000},
		ComponentInput{NIS: "1001", AccountCode: "SPP", Name: "future active", Active: day(2026, 1, 6), Due: day(2026, 1, 10), Expiry: day(2026, 1, 31), Amount: 1},
		spp("1002", "other student", day(2026, 1, 10), 1, 0),
	)
	byName := map[string]Bill{}
	for _, b := range bs {
		byName[b.Name] = b
	}
	if st := byName["expired (arrears)"].State; st != StateExpired {
		t.Errorf("a component uploaded past expiry is %q, want expired", st)
	}

	tests := []struct {
		name    string
		pay     []string
		nis     string
		status  int // 0: paid
		index   int
		message string
	}{
		{"on the due day: amount only", []string{"due today"}, "1001", 0, 0, ""},
		{"before the due day: amount only", []string{"due tomorrow"}, "1001", 0, 0, ""},
		{"late: amount plus penalty", []string{"late (arrears)"}, "1001", 0, 0, ""},
		{"paid twice", []string{"due today"}, "1001", 400, 0, "already paid"},
		{"expired", []string{"expired (arrears)"}, "1001", 400, 0, "expired"},
		{"active tomorrow", []string{"future active"}, "1001", 400, 0, "not active"},
		{"another student's component", []string{"other student"}, "1001", 400, 0, "does not belong"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pay []string
			var want int64
			for _, n := range tt.pay {
				pay = append(pay, byName[n].ComponentID)
				want += byName[n].DueToday(today)
			}
			ref := fmt.Sprintf("REF-%d", i)
			paid, err := e.c.Pay(ctx, Payment{NIS: tt.nis, RefNumber: ref, ComponentIDs: pay})
			if tt.status != 0 {
				ae := apiErr(t, err, tt.status, ErrValidation)
				if len(ae.Items) == 0 || ae.Items[0].Index != tt.index || !strings.Contains(ae.Items[0].Message, tt.message) {
					t.Errorf("items %+v, want index %d saying %q", ae.Items, tt.index, tt.message)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b := paid[0]
			if b.State != StatePaid || b.AmountPaid != want || b.RefNumber != ref || !b.PaidAt.Equal(jakartaNoon) {
				t.Errorf("paid %+v, want amount_paid %d (DueToday)", b, want)
			}
		})
	}
	if got := byName["late (arrears)"].DueToday(today); got != 475000 {
		t.Errorf("late DueToday = %d, want 475000", got)
	}

	// All or none: a good component with an expired one is refused and stays unpaid.
	e.upload(t, spp("1001", "good", day(2026, 1, 20), 1000, 0))
	fresh, err := e.c.StudentBills(ctx, "1001", Query{State: StateProvisioned})
	if err != nil {
		t.Fatal(err)
	}
	var goodID string
	for _, b := range fresh {
		if b.Name == "good" {
			goodID = b.ComponentID
		}
	}
	_, err = e.c.Pay(ctx, Payment{NIS: "1001", RefNumber: "MIX", ComponentIDs: []string{goodID, byName["expired (arrears)"].ComponentID}})
	if ae := apiErr(t, err, 400, ErrValidation); len(ae.Items) != 1 || ae.Items[0].Index != 1 {
		t.Errorf("items %+v, want the expired one at index 1", ae.Items)
	}
	if paid, _ := e.c.Search(ctx, Query{RefNumber: "MIX"}); len(paid) != 0 {
		t.Errorf("a refused payment paid %v", names(paid))
	}
	_, err = e.c.Pay(ctx, Payment{NIS: "1001", RefNumber: "X", ComponentIDs: []string{"00000000-0000-0000-0000-000000000000"}})
	apiErr(t, err, 404, ErrNotFound)
	_, err = e.c.Pay(ctx, Payment{NIS: "1001", RefNumber: "X"})
	apiErr(t, err, 400, ErrValidation)
}

func TestSandboxCheckout(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	co := Checkout{
		Student: Student{NIS: "2026-001", Name: "Citra", Phone: "0813", Email: "citra@example.id", Description: "pendaftaran"},
		Components: []CheckoutComponent{
			{AccountCode: "SPP", Name: "Uang pangkal", Due: day(2026, 1, 20), Expiry: day(2026, 2, 20), Amount: 2500000, Penalty: 50000, Description: "gelombang 1"},
			{AccountCode: "BCA", Name: "Seragam", Due: day(2026, 1, 20), Expiry: day(2026, 2, 20), Active: day(2026, 1, 5), Amount: 750000},
		},
	}
	res, err := e.c.Checkout(ctx, co)
	if err != nil {
		t.Fatal(err)
	}
	if res.BillID == "" || res.NIS != "2026-001" || len(res.ComponentIDs) != 2 {
		t.Fatalf("checkout result %+v", res)
	}
	st, err := e.c.Student(ctx, "2026-001")
	if err != nil || st.KeyName != "NIS" || st.Name != "Citra" || st.Email != "citra@example.id" {
		t.Errorf("student after checkout %+v, %v", st, err)
	}
	bs, err := e.c.StudentBills(ctx, "2026-001", Query{})
	if err != nil {
		t.Fatal(err)
	}
	got := ids(bs)
	slices.Sort(got)
	want := slices.Clone(res.ComponentIDs)
	slices.Sort(want)
	if !slices.Equal(got, want) || bs[0].BillID != res.BillID {
		t.Errorf("student bills %v (bill %s), want %v (bill %s)", got, bs[0].BillID, want, res.BillID)
	}

	_, err = e.c.Checkout(ctx, co)
	apiErr(t, err, 400, ErrValidation) // existing NIS

	bad := co
	bad.Student.NIS = "2026-002"
	bad.Components = slices.Clone(co.Components)
	bad.Components[1].AccountCode = "NOPE"
	_, err = e.c.Checkout(ctx, bad)
	if ae := apiErr(t, err, 400, ErrValidation); len(ae.Items) == 0 || ae.Items[0].Index != 1 || ae.Items[0].Field != "account_code" {
		t.Errorf("items %+v, want index 1 account_code", ae.Items)
	}
	_, err = e.c.Student(ctx, "2026-002")
	apiErr(t, err, 404, ErrNotFound) // atomic: no student without their bill
	if all, _ := e.c.Search(ctx, Query{Limit: MaxLimit}); len(all) != 2 {
		t.Errorf("%d components stored, want only the first checkout's 2", len(all))
	}
}

func TestSandboxDeleteStudent(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	e.students(t, "1001", "1002")
	b1 := e.upload(t, spp("1001", "a", day(2026, 1, 10), 1000, 0), spp("1001", "b", day(2026, 1, 10), 1000, 0))
	e.upload(t, spp("1002", "c", day(2026, 1, 10), 1000, 0))
	if _, err := e.c.Pay(ctx, Payment{NIS: "1001", RefNumber: "R1", ComponentIDs: []string{b1[0].ComponentID}}); err != nil {
		t.Fatal(err)
	}
	apiErr(t, e.c.DeleteStudent(ctx, "1001"), 400, ErrValidation) // payment history is kept
	if bs, err := e.c.StudentBills(ctx, "1001", Query{}); err != nil || len(bs) != 2 {
		t.Errorf("after a refused delete: %d bills, %v", len(bs), err)
	}
	if err := e.c.DeleteStudent(ctx, "1002"); err != nil {
		t.Fatal(err)
	}
	_, err := e.c.StudentBills(ctx, "1002", Query{})
	apiErr(t, err, 404, ErrNotFound)
	if all, _ := e.c.Search(ctx, Query{}); len(all) != 2 {
		t.Errorf("%d components left, want 1001's 2 (1002's unpaid one removed)", len(all))
	}
}

func TestSandboxSearchFilters(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	loc := e.srv.Location()
	e.students(t, "1001", "1002")
	e.upload(t,
		ComponentInput{NIS: "1001", AccountCode: "SPP", Name: "spp-jan", Due: day(2026, 1, 10), Expiry: day(2026, 1, 31), Amount: 100, Notes: "2026/01"},
		ComponentInput{NIS: "1001", AccountCode: "BCA", Name: "buku", Due: day(2026, 1, 15), Expiry: day(2026, 1, 31), Amount: 100},
		ComponentInput{NIS: "1002", AccountCode: "SPP", Name: "spp-jan-2", Due: day(2026, 1, 10), Expiry: day(2026, 1, 31), Amount: 100, Notes: "2026/01"},
		ComponentInput{NIS: "1002", AccountCode: "MANDIRI", Name: "old", Due: day(2025, 12, 1), Expiry: day(2025, 12, 31), Amount: 100},
	)
	all, _ := e.c.Search(ctx, Query{})
	id := map[string]string{}
	for _, b := range all {
		id[b.Name] = b.ComponentID
	}
	// Paid on 6 January at 23:30 in Jakarta (16:30 UTC): the payment day is the service's.
	e.srv.SetClock(time.Date(2026, 1, 6, 23, 30, 0, 0, loc))
	if _, err := e.c.Pay(ctx, Payment{NIS: "1001", RefNumber: "BANK-6", ComponentIDs: []string{id["spp-jan"]}}); err != nil {
		t.Fatal(err)
	}
	e.srv.SetClock(time.Date(2026, 1, 8, 0, 30, 0, 0, loc))
	if _, err := e.c.Pay(ctx, Payment{NIS: "1002", RefNumber: "BANK-8", ComponentIDs: []string{id["spp-jan-2"]}}); err != nil {
		t.Fatal(err)
	}
	jan := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, loc) } // the value's own date is sent

	tests := []struct {
		name string
		q    Query
		nis  string // search/bill when set
		want []string
	}{
		{"no criteria", Query{}, "", []string{"buku", "old", "spp-jan", "spp-jan-2"}},
		{"state paid", Query{State: StatePaid}, "", []string{"spp-jan", "spp-jan-2"}},
		{"state provisioned", Query{State: StateProvisioned}, "", []string{"buku"}},
		{"state expired", Query{State: StateExpired}, "", []string{"old"}},
		{"account code", Query{AccountCode: "SPP"}, "", []string{"spp-jan", "spp-jan-2"}},
		{"ref number", Query{RefNumber: "BANK-8"}, "", []string{"spp-jan-2"}},
		{"notes exact", Query{Notes: "2026/01"}, "", []string{"spp-jan", "spp-jan-2"}},
		{"notes not a prefix", Query{Notes: "2026"}, "", nil},
		{"paid on the 6th (Jakarta)", Query{State: StatePaid, PaidFrom: jan(6), PaidTo: jan(6)}, "", []string{"spp-jan"}},
		{"paid from the 7th", Query{PaidFrom: jan(7)}, "", []string{"spp-jan-2"}},
		{"paid until the 7th", Query{PaidTo: jan(7)}, "", []string{"spp-jan"}},
		{"due on the 10th", Query{DueFrom: jan(10), DueTo: jan(10)}, "", []string{"spp-jan", "spp-jan-2"}},
		{"due from the 11th", Query{DueFrom: jan(11)}, "", []string{"buku"}},
		{"due until the 10th", Query{DueTo: jan(10)}, "", []string{"old", "spp-jan", "spp-jan-2"}},
		{"combined", Query{AccountCode: "SPP", State: StatePaid, RefNumber: "BANK-6"}, "", []string{"spp-jan"}},
		{"student", Query{}, "1001", []string{"buku", "spp-jan"}},
		{"student and state", Query{State: StateProvisioned}, "1002", nil},
		{"student and account", Query{AccountCode: "MANDIRI"}, "1002", []string{"old"}},
		{"limit", Query{Limit: 1}, "", []string{"old"}}, // newest first: the last uploaded
		{"offset", Query{Offset: 3}, "", []string{"spp-jan"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []Bill
			var err error
			if tt.nis != "" {
				got, err = e.c.StudentBills(ctx, tt.nis, tt.q)
			} else {
				got, err = e.c.Search(ctx, tt.q)
			}
			if err != nil {
				t.Fatal(err)
			}
			if n := names(got); !slices.Equal(n, tt.want) && !(len(n) == 0 && len(tt.want) == 0) {
				t.Errorf("got %v, want %v", n, tt.want)
			}
		})
	}
}

func TestSandboxSearchOrderAndLimits(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	e.students(t, "1001")
	var batch []ComponentInput
	for i := range 60 {
		batch = append(batch, spp("1001", fmt.Sprintf("c%02d", i), day(2026, 1, 10), 1000, 0))
	}
	e.upload(t, batch[:30]...)
	e.srv.SetClock(jakartaNoon.Add(time.Minute))
	e.upload(t, batch[30:]...)

	got, err := e.c.Search(ctx, Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 50 {
		t.Errorf("no criteria: %d records, want the 50 newest", len(got))
	}
	full, err := e.c.Search(ctx, Query{Limit: MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	ordered := slices.IsSortedFunc(full, func(a, b Bill) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ComponentID, a.ComponentID)
	})
	if len(full) != 60 || !ordered || !full[0].CreatedAt.After(full[59].CreatedAt) {
		t.Errorf("%d records, newest first by created_at then id: %v", len(full), ordered)
	}
	if full[0].Name != "c59" || full[59].Name != "c00" {
		t.Errorf("first %s, last %s; want c59 … c00", full[0].Name, full[59].Name)
	}

	errTests := []struct {
		name   string
		call   func() error
		status int
		kind   error
	}{
		{"unknown state", func() error { _, err := e.c.Search(ctx, Query{State: "open"}); return err }, 400, ErrValidation},
		{"unknown student", func() error { _, err := e.c.StudentBills(ctx, "9999", Query{}); return err }, 404, ErrNotFound},
		{"unknown student record", func() error { _, err := e.c.Student(ctx, "9999"); return err }, 404, ErrNotFound},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) { apiErr(t, tt.call(), tt.status, tt.kind) })
	}

	// The client clamps what it sends: no limit above 1000, no negative offset.
	if got, err := e.c.Search(ctx, Query{Limit: MaxLimit + 1}); err != nil || len(got) != 60 {
		t.Errorf("limit above 1000: %d records, %v; want it sent as 1000", len(got), err)
	}
	if got, err := e.c.Search(ctx, Query{Offset: -5, Limit: 10}); err != nil || len(got) != 10 || got[0].Name != "c59" {
		t.Errorf("negative offset: %v, %v; want it sent as 0", names(got), err)
	}
}

func TestSandboxAuth(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	wrong, err := New(Config{BaseURL: e.ts.URL, Username: testUser, Password: "wrong", Now: e.srv.Now, Logger: debugLogger(e.logs)})
	if err != nil {
		t.Fatal(err)
	}
	e.logs.Reset()
	_, err = wrong.Student(ctx, "1001")
	apiErr(t, err, 401, ErrUnauthorized)
	// A wrong password is tried once per plausible date: its own, the day
	// before and the day after (the UTC date is its own at 10:00 in Jakarta).
	if n := strings.Count(e.logs.String(), "status=401"); n != 3 {
		t.Errorf("a 401 at 10:00 was sent %d times, want 3 (one per plausible date):\n%s", n, e.logs)
	}

	disabled, err := New(Config{BaseURL: e.ts.URL, Username: "old-school", Password: "old-issued", Now: e.srv.Now})
	if err != nil {
		t.Fatal(err)
	}
	_, err = disabled.Search(ctx, Query{})
	apiErr(t, err, 403, ErrUnauthorized)

	// Userinfo in the address works like the fields.
	inURL, err := New(Config{BaseURL: strings.Replace(e.ts.URL, "://", "://"+testUser+":"+testIssued+"@", 1), Now: e.srv.Now})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := inURL.Search(ctx, Query{}); err != nil {
		t.Errorf("credentials from the URL: %v", err)
	}

	// 406: the client always sends JSON, so these go raw.
	pass := DailyPassword(testIssued, e.srv.Now().In(e.srv.Location()))
	raw := []struct {
		name, ctype, body string
	}{
		{"not JSON", "application/json", `{"bill_list": [`},
		{"not JSON, no content type", "", `bill_list=1`},
	}
	for _, tt := range raw {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", e.ts.URL+"/bill/batch", strings.NewReader(tt.body))
			req.Header.Set("Content-Type", tt.ctype)
			req.SetBasicAuth(testUser, pass)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			raw := new(bytes.Buffer)
			raw.ReadFrom(resp.Body)
			resp.Body.Close()
			err = e.c.decode("POST", "/bill/batch", resp.StatusCode, raw.Bytes(), nil)
			apiErr(t, err, 406, ErrValidation)
			if !strings.Contains(err.Error(), "406 Not Acceptable") {
				t.Errorf("text %q", err)
			}
		})
	}
}

func TestSandboxMidnightRetry(t *testing.T) {
	t.Parallel()
	jakarta := mustZone(t, "Asia/Jakarta")
	tests := []struct {
		name           string
		server, client time.Time
		want401        int // on the first call; the second costs none
	}{
		// Own date, then the day before (the UTC date is the same), then the day after.
		{"service past midnight", time.Date(2026, 2, 1, 0, 3, 0, 0, jakarta), time.Date(2026, 1, 31, 23, 55, 0, 0, jakarta), 2},
		// Own date, then the UTC date, which is the service's date here.
		{"client past midnight", time.Date(2026, 1, 31, 23, 58, 0, 0, jakarta), time.Date(2026, 2, 1, 0, 4, 0, 0, jakarta), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t, func(o *sandbox.Options, c *Config) {
				o.Now = tt.server
				c.Now = func() time.Time { return tt.client }
			})
			ctx := context.Background()
			if _, err := e.c.CreateStudents(ctx, []Student{{NIS: "1001", Name: "Ani"}}); err != nil {
				t.Fatalf("POST across midnight: %v", err)
			}
			if _, err := e.c.Student(ctx, "1001"); err != nil {
				t.Fatalf("GET across midnight: %v", err)
			}
			logs := e.logs.String()
			if a, b := strings.Count(logs, "status=401"), strings.Count(logs, "billing call"); a != tt.want401 || b != tt.want401+2 {
				t.Errorf("%d 401s in %d attempts, want %d in %d (none on the second call):\n%s", a, b, tt.want401, tt.want401+2, logs)
			}
			// A clock a few minutes off is not a service on UTC.
			if z := e.c.ServiceZone(); z.String() != "Asia/Jakarta" {
				t.Errorf("service zone %v after a midnight skew, want Asia/Jakarta", z)
			}
		})
	}
}

func TestSandboxAllPagesToEnd(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	e.students(t, "1001", "1002")
	const total = 1050
	var batch []ComponentInput
	for i := range total {
		batch = append(batch, spp([]string{"1001", "1002"}[i%2], fmt.Sprintf("c%04d", i), day(2026, 1, 10), 1000, 0))
	}
	e.upload(t, batch[:1000]...) // the sandbox takes at most 1000 items per batch
	e.upload(t, batch[1000:]...)

	count := func(seq func(func(Bill, error) bool)) (int, map[string]bool) {
		seen := map[string]bool{}
		n := 0
		for b, err := range seq {
			if err != nil {
				t.Fatal(err)
			}
			if seen[b.ComponentID] {
				t.Fatalf("%s yielded twice", b.ComponentID)
			}
			seen[b.ComponentID] = true
			n++
		}
		return n, seen
	}
	if n, _ := count(e.c.All(ctx, Query{})); n != total {
		t.Errorf("All yielded %d, want %d", n, total)
	}
	if n, _ := count(e.c.AllForStudent(ctx, "1001", Query{Limit: 200})); n != total/2 {
		t.Errorf("AllForStudent yielded %d, want %d", n, total/2)
	}
	e.logs.Reset()
	if n, _ := count(e.c.All(ctx, Query{Limit: 350})); n != total || strings.Count(e.logs.String(), "billing call") != 4 {
		t.Errorf("All by 350 yielded %d in %d calls, want %d in 4", n, strings.Count(e.logs.String(), "billing call"), total)
	}

	// Bills created while paging push the older ones down; none repeats, none is missed.
	e.srv.SetClock(jakartaNoon.Add(time.Hour))
	seen := map[string]bool{}
	added := 0
	for b, err := range e.c.All(ctx, Query{Limit: 100}) {
		if err != nil {
			t.Fatal(err)
		}
		if seen[b.ComponentID] {
			t.Fatalf("%s yielded twice after a page shift", b.Name)
		}
		seen[b.ComponentID] = true
		if len(seen)%100 == 50 && added < 5 {
			e.upload(t, spp("1001", fmt.Sprintf("new%d", added), day(2026, 1, 10), 1000, 0))
			added++
		}
	}
	if len(seen) != total || added != 5 {
		t.Errorf("yielded %d while %d were added, want all %d old ones", len(seen), added, total)
	}

	// Early break stops paging.
	e.logs.Reset()
	n := 0
	for range e.c.All(ctx, Query{Limit: 10}) {
		if n++; n == 15 {
			break
		}
	}
	if calls := strings.Count(e.logs.String(), "billing call"); calls != 2 {
		t.Errorf("break after 15 of pages of 10 made %d calls, want 2", calls)
	}

	// An error is yielded once and ends the sequence.
	var errs int
	for _, err := range e.c.All(ctx, Query{State: "open"}) {
		if err != nil {
			errs++
			apiErr(t, err, 400, ErrValidation)
		}
	}
	if errs != 1 {
		t.Errorf("%d errors yielded, want 1", errs)
	}
}

func TestSandboxFaults(t *testing.T) {
	t.Parallel()
	e := setup(t, func(o *sandbox.Options, c *Config) { c.MaxAttempts = 20 })
	ctx := context.Background()
	e.students(t, "1001")
	e.upload(t, spp("1001", "a", day(2026, 1, 10), 1000, 0))

	e.srv.SetFaults(sandbox.Faults{ErrorRate: 0.3, Status: 503})
	e.logs.Reset()
	for i := range 60 {
		if _, err := e.c.Student(ctx, "1001"); err != nil {
			t.Fatalf("GET %d: %v", i, err)
		}
		if _, err := e.c.StudentBills(ctx, "1001", Query{}); err != nil {
			t.Fatalf("search %d: %v", i, err)
		}
		if _, err := e.c.UpdateStudent(ctx, Student{NIS: "1001", Name: fmt.Sprint("Ani ", i)}); err != nil {
			t.Fatalf("PUT %d: %v", i, err)
		}
	}
	if n := strings.Count(e.logs.String(), "status=503"); n == 0 {
		t.Error("no 503 was injected: the test proves nothing")
	}

	e.srv.SetFaults(sandbox.Faults{ErrorRate: 1, Status: 503})
	e.logs.Reset()
	_, err := e.c.CreateStudents(ctx, []Student{{NIS: "1002", Name: "Budi"}})
	apiErr(t, err, 503, ErrUnavailable)
	if n := strings.Count(e.logs.String(), "billing call"); n != 1 {
		t.Errorf("POST sent %d times, want once (never retried)", n)
	}
	e.logs.Reset()
	_, err = e.c.Student(ctx, "1001")
	apiErr(t, err, 503, ErrUnavailable)
	if n := strings.Count(e.logs.String(), "billing call"); n != 20 {
		t.Errorf("GET sent %d times, want MaxAttempts (20)", n)
	}
	e.srv.SetFaults(sandbox.Faults{})
	_, err = e.c.Student(ctx, "1002")
	apiErr(t, err, 404, ErrNotFound) // the refused POST applied nothing
}

func TestSandboxHungConnection(t *testing.T) {
	t.Parallel()
	e := setup(t, func(o *sandbox.Options, c *Config) { c.Timeout = 300 * time.Millisecond; c.MaxAttempts = 2 })
	ctx := context.Background()
	e.students(t, "1001")
	e.srv.SetFaults(sandbox.Faults{TimeoutRate: 1})

	e.logs.Reset()
	_, err := e.c.Student(ctx, "1001")
	if !errors.Is(err, ErrTimeout) || errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "did not answer within 300ms") {
		t.Fatalf("err = %v, want ErrTimeout saying it did not answer within 300ms", err)
	}
	if n := strings.Count(e.logs.String(), "billing call"); n != 2 {
		t.Errorf("GET sent %d times, want 2 (timeouts retried)", n)
	}

	// The ambiguous case: the POST was applied, the answer never came.
	e.logs.Reset()
	_, err = e.c.CreateStudents(ctx, []Student{{NIS: "1002", Name: "Budi"}})
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "may have been applied") {
		t.Fatalf("err = %v, want ErrTimeout for the POST", err)
	}
	if n := strings.Count(e.logs.String(), "billing call"); n != 1 {
		t.Errorf("POST sent %d times, want once", n)
	}
	e.srv.SetFaults(sandbox.Faults{})
	if _, err := e.c.Student(ctx, "1002"); err != nil {
		t.Errorf("the timed-out POST was applied by the sandbox, yet: %v", err)
	}

	// Default timeout text.
	if got := (&transportError{method: "GET", path: "/bill/1", timeout: DefaultTimeout}).Error(); !strings.Contains(got, "did not answer within 15s") {
		t.Errorf("default timeout text %q", got)
	}
}

func TestSandboxReminderDay(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.students(t, "1001")
	b := e.upload(t, spp("1001", "a", day(2026, 1, 10), 1000, 0))[0]
	e.srv.SetClock(time.Date(2026, 1, 7, 23, 0, 0, 0, e.srv.Location()))
	if n := len(e.srv.Reminders()); n != 0 {
		t.Fatalf("%d reminders on the 7th, want 0", n)
	}
	rd := b.ReminderDay()
	e.srv.SetClock(time.Date(rd.Year(), rd.Month(), rd.Day(), 0, 1, 0, 0, e.srv.Location()))
	r := e.srv.Reminders()
	if len(r) != 1 || r[0].BillComponentID != b.ComponentID || r[0].Phone != "08121001" {
		t.Errorf("reminders on ReminderDay %s: %+v", rd.Format(time.DateOnly), r)
	}
}

func TestSandboxNoCredentialsInErrorsOrLogs(t *testing.T) {
	t.Parallel()
	e := setup(t, func(o *sandbox.Options, c *Config) { c.Timeout = 200 * time.Millisecond; c.MaxAttempts = 2 })
	ctx := context.Background()
	var errs []error
	note := func(err error) {
		if err == nil {
			t.Fatal("expected an error")
		}
		errs = append(errs, err)
	}
	_, err := e.c.Student(ctx, "9999")
	note(err)
	_, err = e.c.CreateComponents(ctx, []ComponentInput{{NIS: "9999"}})
	note(err)
	e.srv.SetFaults(sandbox.Faults{ErrorRate: 1})
	_, err = e.c.Search(ctx, Query{})
	note(err)
	e.srv.SetFaults(sandbox.Faults{TimeoutRate: 1})
	_, err = e.c.Search(ctx, Query{})
	note(err)
	e.srv.SetFaults(sandbox.Faults{})

	wrong, _ := New(Config{BaseURL: strings.Replace(e.ts.URL, "://", "://"+testUser+":"+testIssued+"x@", 1),
		Now: e.srv.Now, Logger: debugLogger(e.logs)})
	_, err = wrong.Search(ctx, Query{})
	note(err)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	gone, _ := New(Config{BaseURL: strings.Replace(closed.URL, "://", "://"+testUser+":"+testIssued+"@", 1),
		MaxAttempts: 1, Now: e.srv.Now, Logger: debugLogger(e.logs)})
	_, err = gone.Search(ctx, Query{})
	note(err)

	secrets := []string{testIssued, DailyPassword(testIssued, e.srv.Now().In(e.srv.Location())),
		DailyPassword(testIssued+"x", e.srv.Now().In(e.srv.Location())),
		DailyPassword(testIssued, time.Now().In(e.srv.Location()))}
	texts := []string{e.logs.String()}
	for _, err := range errs {
		texts = append(texts, err.Error(), fmt.Sprintf("%+v", err))
	}
	for _, s := range texts {
		for _, secret := range secrets {
			if strings.Contains(s, secret) {
				t.Errorf("a credential appears in %q", s)
			}
		}
	}
	if !strings.Contains(e.logs.String(), "billing call") {
		t.Error("nothing was logged: the check proves nothing")
	}
}
