package sandbox

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// allRecords pages through every component, newest first.
func (c *apiClient) allRecords(query string) []record {
	c.t.Helper()
	var out []record
	for offset := 0; ; offset += 1000 {
		page := into[[]record](c.t, c.must(http.StatusOK, "GET", fmt.Sprintf("/bill_component/search/biller?limit=1000&offset=%d&%s", offset, query), nil))
		out = append(out, page...)
		if len(page) < 1000 {
			return out
		}
	}
}

func TestDemoSchool(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{Demo: true}) // 2026-11-22
	var students int
	if err := c.sb.store.db.QueryRow(`SELECT count(*) FROM students`).Scan(&students); err != nil {
		t.Fatal(err)
	}
	recs := c.allRecords("")
	if students < 580 || students > 620 || len(recs) < 8000 || len(recs) > 12000 {
		t.Fatalf("%d students, %d components", students, len(recs))
	}

	today := 20261122
	kinds := map[string]int{}
	accounts := map[string]int{}
	classes := map[string]bool{}
	for _, r := range recs {
		accounts[r.AccountCode]++
		due, _ := time.Parse(timeLayout, r.DueDate)
		switch {
		case r.State == statePaid && r.AmountPaid == r.Amount+r.Penalty && r.Penalty > 0:
			kinds["paid late with penalty"]++
		case r.State == statePaid && r.AmountPaid == r.Amount:
			kinds["paid on time"]++
		case r.State == statePaid:
			t.Fatalf("paid with an odd amount: %+v", r)
		case r.State == stateExpired:
			kinds["expired unpaid"]++
		case dayOf(due) < today:
			kinds["outstanding overdue"]++
		default:
			kinds["outstanding not yet due"]++
		}
		if r.State == statePaid && (r.RefNumber == nil || *r.RefNumber == "" || r.PaidDate == nil) {
			t.Fatalf("paid without reference: %+v", r)
		}
		if r.CreatedAt > "2026-11-22T02:00:00Z" {
			t.Fatalf("created in the future: %+v", r)
		}
	}
	t.Logf("%d students, %d components: %v, accounts %v", students, len(recs), kinds, accounts)
	for _, k := range []string{"paid on time", "paid late with penalty", "expired unpaid", "outstanding overdue", "outstanding not yet due"} {
		if kinds[k] < 20 {
			t.Errorf("only %d %s", kinds[k], k)
		}
	}
	for _, a := range []string{"SPP", "BCA", "MANDIRI"} {
		if accounts[a] < 100 {
			t.Errorf("account %s: %d components", a, accounts[a])
		}
	}

	nis := regexp.MustCompile(`^\d{8}$`)
	rows, err := c.sb.store.db.Query(`SELECT nis, name, phone, email, description FROM students`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	emails := 0
	for rows.Next() {
		var st student
		if err := rows.Scan(&st.BillKeyValue, &st.Name, &st.Phone, &st.Email, &st.Description); err != nil {
			t.Fatal(err)
		}
		if !nis.MatchString(st.BillKeyValue) || !strings.HasPrefix(st.Phone, "08") || len(strings.Fields(st.Name)) < 2 ||
			!strings.HasPrefix(st.Description, "Kelas ") {
			t.Fatalf("student %+v", st)
		}
		classes[st.Description] = true
		if st.Email != "" {
			emails++
		}
	}
	if len(classes) != 18 || !classes["Kelas 7A"] || !classes["Kelas 12C"] || emails == 0 || emails == students {
		t.Fatalf("%d classes, %d e-mails", len(classes), emails)
	}
}

func TestDemoIsTheSameForTheSameDay(t *testing.T) {
	t.Parallel()
	a := newSandbox(t, Options{Demo: true, Now: time.Date(2027, 2, 3, 4, 0, 0, 0, time.UTC)})
	b := newSandbox(t, Options{Demo: true, Now: time.Date(2027, 2, 3, 9, 0, 0, 0, time.UTC)})
	ra, rb := a.must(http.StatusOK, "GET", "/bill_component/search/biller?limit=1000&offset=3000", nil), b.must(http.StatusOK, "GET", "/bill_component/search/biller?limit=1000&offset=3000", nil)
	if !bytes.Equal(ra.Data, rb.Data) {
		t.Fatal("two loads on the same day differ")
	}
	if sa, sb := a.must(http.StatusOK, "GET", "/bill/26270001", nil), b.must(http.StatusOK, "GET", "/bill/26270001", nil); !bytes.Equal(sa.Data, sb.Data) {
		t.Fatalf("students differ: %s %s", sa.Data, sb.Data)
	}
	// Later in the same school year: the same school, with more paid.
	later := newSandbox(t, Options{Demo: true, Now: time.Date(2027, 5, 3, 4, 0, 0, 0, time.UTC)})
	if sa, sl := a.must(http.StatusOK, "GET", "/bill/26270001", nil), later.must(http.StatusOK, "GET", "/bill/26270001", nil); !bytes.Equal(sa.Data, sl.Data) {
		t.Fatalf("students differ within the school year: %s %s", sa.Data, sl.Data)
	}
	paidA, paidL := len(a.allRecords("state=paid")), len(later.allRecords("state=paid"))
	if paidL <= paidA {
		t.Fatalf("paid: %d in February, %d in May", paidA, paidL)
	}
}

// TestSearchPlansAgree checks, on the demo school (more components than a
// probe looks at), that every filter returns what a plain scan of all
// components would.
func TestSearchPlansAgree(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{Demo: true})
	all := c.allRecords("")
	queries := []struct {
		query string
		keep  func(r record) bool
	}{
		{"state=provisioned", func(r record) bool { return r.State == stateProvisioned }},
		{"state=expired", func(r record) bool { return r.State == stateExpired }},
		{"state=paid&account_code=BCA", func(r record) bool { return r.State == statePaid && r.AccountCode == "BCA" }},
		{"state=provisioned&account_code=SPP&start_due_date=20261201&end_due_date=20261231", func(r record) bool {
			return r.State == stateProvisioned && r.AccountCode == "SPP" && r.DueDate >= "2026-12-01" && r.DueDate < "2026-12-32"
		}},
		{"start_due_date=20260701&end_due_date=20260731", func(r record) bool { return r.DueDate >= "2026-07-01" && r.DueDate < "2026-07-32" }},
		{"account_code=MANDIRI&end_due_date=20260720", func(r record) bool { return r.AccountCode == "MANDIRI" && r.DueDate < "2026-07-21" }},
		{"state=paid&start_payment_date=20260801&end_payment_date=20260815", func(r record) bool {
			if r.PaidDate == nil {
				return false
			}
			p, _ := time.Parse(timeLayout, *r.PaidDate)
			d := dayOf(p.In(c.sb.loc))
			return d >= 20260801 && d <= 20260815
		}},
		{"notes=TA+2025/2026", func(r record) bool { return r.Notes == "TA 2025/2026" }},
	}
	for _, q := range queries {
		t.Run(q.query, func(t *testing.T) {
			var want []string
			for _, r := range all {
				if q.keep(r) {
					want = append(want, r.ID)
				}
			}
			if len(want) == 0 {
				t.Fatal("the query matches nothing in the demo school")
			}
			got := ids(c.allRecords(q.query))
			if !slices.Equal(got, want) {
				t.Fatalf("got %d, want %d", len(got), len(want))
			}
			for _, page := range []string{"limit=50", "limit=20&offset=35", "limit=7&offset=900"} {
				got := ids(into[[]record](t, c.must(http.StatusOK, "GET", "/bill_component/search/biller?"+q.query+"&"+page, nil)))
				var limit, offset int
				fmt.Sscanf(strings.ReplaceAll(strings.ReplaceAll(page, "limit=", ""), "&offset=", " "), "%d %d", &limit, &offset)
				w := want[min(offset, len(want)):min(offset+limit, len(want))]
				if !slices.Equal(got, w) {
					t.Fatalf("%s: got %d ids, want %d", page, len(got), len(w))
				}
			}
		})
	}
}

func TestFileStoreKeepsDataAndSkipsDemo(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "billing.db")
	sb, err := New(Options{DBPath: path, Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	err = sb.store.inTx(context.Background(), func(tx *sql.Tx) error {
		_, err := insertStudents(context.Background(), tx, []student{{Name: "Budi", BillKeyValue: "K1", BillKeyName: "NIS"}}, testNow.UnixNano(), func() string { return "bill-1" })
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}

	c := newSandbox(t, Options{DBPath: path, Demo: true})
	got := into[student](t, c.must(http.StatusOK, "GET", "/bill/K1", nil))
	if got.Name != "Budi" {
		t.Fatalf("student = %+v", got)
	}
	if n := len(c.allRecords("")); n != 0 {
		t.Fatalf("demo loaded into a store that had data: %d components", n)
	}
}
