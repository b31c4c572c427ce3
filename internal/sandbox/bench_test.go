package sandbox

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

var (
	benchOnce sync.Once
	benchSB   *Server
	benchErr  error
)

// benchSandbox is a sandbox holding 5,000 students with 40 components each
// (200,000), built once per test binary straight through the store.
func benchSandbox(b *testing.B) *Server {
	b.Helper()
	benchOnce.Do(func() {
		start := time.Now()
		benchSB, benchErr = New(Options{Now: testNow})
		if benchErr != nil {
			return
		}
		benchErr = fillBench(benchSB, 5000, 40)
		b.Logf("stored 200,000 components in %v", time.Since(start).Round(time.Millisecond))
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchSB
}

// fillBench stores students × perStudent components: monthly dues over the
// school year July 2026 – June 2027 on rotating accounts, uploaded in late
// June; about 70% of those already due are paid.
func fillBench(s *Server, students, perStudent int) error {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	today := s.today()
	return s.store.inTx(ctx, func(tx *sql.Tx) error {
		list := make([]student, students)
		for i := range list {
			list[i] = student{Name: fmt.Sprintf("Siswa %d", i), BillKeyValue: fmt.Sprintf("B%06d", i), BillKeyName: "NIS", Phone: "0812"}
		}
		rows, err := insertStudents(ctx, tx, list, testNow.UnixNano(), uuid.NewString)
		if err != nil {
			return err
		}
		ins, err := newComponentInserter(ctx, tx)
		if err != nil {
			return err
		}
		defer ins.close()
		upload := time.Date(2026, 6, 25, 1, 0, 0, 0, time.UTC)
		n := 0
		for si, st := range rows {
			for k := range perStudent {
				due := time.Date(2026, time.Month(7+k%12), 10, 0, 0, 0, 0, time.UTC)
				c := componentRow{
					id:          fmt.Sprintf("%08x-0000-4000-8000-%012x", n, si),
					studentID:   st.id,
					accountCode: s.accounts[rng.IntN(len(s.accounts))],
					name:        "SPP " + due.Format("January 2006"),
					amount:      450000,
					penalty:     25000,
					due:         due,
					expiry:      due.AddDate(0, 2, 0),
					createdAt:   upload.Add(time.Duration(n) * time.Second),
				}
				if dayOf(due) < today && rng.Float64() < 0.7 {
					paid := due.Add(-time.Duration(rng.IntN(72)) * time.Hour)
					c.paidAt, c.paidDay, c.amountPaid, c.refNumber = &paid, dayOf(paid.In(s.loc)), c.amount, fmt.Sprintf("REF%08d", n)
				}
				if err := ins.insert(ctx, &c); err != nil {
					return err
				}
				n++
			}
		}
		return nil
	})
}

// BenchmarkSandboxSearch measures one search through the real handler
// (ServeHTTP with an authenticated request; no network): unpaid SPP
// components due in December 2026, 50 newest, out of 200,000 stored.
func BenchmarkSandboxSearch(b *testing.B) {
	s := benchSandbox(b)
	pass := DailyPassword("sandbox", s.Now(), s.loc)
	const target = "/bill_component/search/biller?state=provisioned&account_code=SPP&start_due_date=20261201&end_due_date=20261231&limit=50"
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("GET", target, nil)
		req.SetBasicAuth("sandbox", pass)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || bytes.Count(rec.Body.Bytes(), []byte(`"bill_component_id"`)) != 50 {
			b.Fatalf("status %d: %.300s", rec.Code, rec.Body)
		}
	}
}
