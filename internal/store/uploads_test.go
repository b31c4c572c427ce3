package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/store"
)

func TestUploadJobs(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		a, err := db.CreateUploadJob(ctx, store.UploadJob{Kind: "components", FileName: "a.xlsx", FileSHA256: "abc", FileSize: 10,
			FileKept: true, State: "analysing", UploadedByID: "u1", UploadedBy: "finance"})
		if err != nil {
			t.Fatal(err)
		}
		b, err := db.CreateUploadJob(ctx, store.UploadJob{Kind: "components", FileName: "a (1).xlsx", FileSHA256: "abc", FileSize: 10,
			FileKept: true, State: "held", UploadedByID: "u1", UploadedBy: "finance"})
		if err != nil {
			t.Fatal(err)
		}
		earlier, err := db.UploadJobsWithHash(ctx, "abc", b.ID, "discarded")
		if err != nil || len(earlier) != 1 || earlier[0].ID != a.ID {
			t.Fatalf("same hash: %+v, %v", earlier, err)
		}

		ok, err := db.SaveUploadAnalysis(ctx, a.ID, "analysing", store.UploadAnalysis{State: "ready", RowsTotal: 5, RowsNew: 3,
			RowsAlready: 1, RowsError: 1, Issues: 2, Totals: []store.UploadTotal{{AccountCode: "SPP", Rows: 3, Amount: 1_500_000}},
			Reading: `{"format":"xls","sheet":"Tagihan (2)"}`})
		if err != nil || !ok {
			t.Fatalf("save analysis: %v %v", ok, err)
		}
		if ok, _ := db.SaveUploadAnalysis(ctx, a.ID, "analysing", store.UploadAnalysis{State: "ready"}); ok {
			t.Fatal("analysis saved twice")
		}
		if err := db.InsertUploadIssues(ctx, a.ID, 0, []store.UploadIssue{
			{Row: 9, Col: 3, Code: "amount_invalid", Args: []string{"abc"}},
			{Row: 4, Col: 0, Code: "nis_unknown", Args: []string{"X1"}},
			{Row: 4, Col: 5, Code: "due_after_expiry", Args: []string{"\x012026-08-10", "\x012026-07-31"}},
		}); err != nil {
			t.Fatal(err)
		}
		page, err := db.UploadIssues(ctx, a.ID, 1, 2)
		if err != nil || len(page) != 2 || page[0].Row != 4 || page[0].Col != 5 || !slices.Equal(page[0].Args, []string{"\x012026-08-10", "\x012026-07-31"}) || page[1].Row != 9 {
			t.Fatalf("issues page: %+v, %v", page, err)
		}
		var all []int
		for is, err := range db.AllUploadIssues(ctx, a.ID) {
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, is.Row)
		}
		rows, err := db.UploadErrorRows(ctx, a.ID)
		if err != nil || !slices.Equal(rows, []int{4, 9}) || !slices.Equal(all, []int{4, 4, 9}) {
			t.Fatalf("error rows %v, all %v, %v", rows, all, err)
		}

		ok, err = db.CommitUploadJob(ctx, a.ID, store.UploadCommit{From: "ready", To: "queued", ByID: "u1", By: "finance", Role: "finance", IP: "10.0.0.1",
			Acknowledged: []string{"amount_small", "date_order"}})
		if err != nil || !ok {
			t.Fatalf("commit: %v %v", ok, err)
		}
		if j, _ := db.UploadJobByID(ctx, a.ID); j.Reading != `{"format":"xls","sheet":"Tagihan (2)"}` || !slices.Equal(j.Acknowledged, []string{"amount_small", "date_order"}) {
			t.Fatalf("how it was read, what was acknowledged: %q %q", j.Reading, j.Acknowledged)
		}
		if ok, _ := db.CommitUploadJob(ctx, a.ID, store.UploadCommit{From: "ready", To: "queued", ByID: "u1", By: "finance", Role: "finance", IP: "10.0.0.1"}); ok {
			t.Fatal("committed twice")
		}
		for i, state := range []string{"confirmed", "failed", "unknown", "pending"} {
			c := store.UploadChunk{JobID: a.ID, Seq: i + 1, State: "pending", Size: 2, Payload: `[]`, PendingRows: []int{10 * i, 10*i + 1}}
			if err := db.InsertUploadChunk(ctx, c); err != nil {
				t.Fatal(err)
			}
			c.State = state
			switch state {
			case "confirmed":
				c.PendingRows, c.Recognised = nil, 2
			case "failed":
				c.PendingRows = c.PendingRows[1:]
				c.Failures = []store.UploadFailure{{Row: 10, Code: "rejected", Arg: "account_code: unknown"}}
				c.SentAt = time.Now()
			}
			if err := db.SaveUploadChunk(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		// A confirmed chunk's progress and the components it created, in one write.
		c5 := store.UploadChunk{JobID: a.ID, Seq: 5, State: "sent", Size: 0, Payload: `[]`}
		if err := db.InsertUploadChunk(ctx, c5); err != nil {
			t.Fatal(err)
		}
		c5.State = "confirmed"
		ids := make([]string, 120)
		for i := range ids {
			ids[i] = fmt.Sprintf("comp-%03d", i)
		}
		for range 2 { // twice: recorded once
			if err := db.SaveUploadChunkCreated(ctx, c5, ids); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := db.UploadCreated(ctx, a.ID); err != nil || !slices.Equal(got, ids) {
			t.Fatalf("created: %d %v", len(got), err)
		}
		if c, _ := db.UploadChunk(ctx, a.ID, 5); c.State != "confirmed" {
			t.Fatalf("chunk 5: %+v", c)
		}
		if err := db.SetUploadSending(ctx, a.ID, "sending", 8, 1); err != nil {
			t.Fatal(err)
		}
		p, err := db.UploadProgressOf(ctx, a.ID, "confirmed", "failed", "sent", "unknown")
		if err != nil {
			t.Fatal(err)
		}
		want := store.UploadProgress{Chunks: 5, Confirmed: 2, Failed: 1, Unknown: 1, Rows: 8, Pending: 5, FailedRows: 1, Recognised: 2}
		if p != want || p.Done() != 2 {
			t.Fatalf("progress %+v, want %+v", p, want)
		}
		c, err := db.UploadChunk(ctx, a.ID, 2)
		if err != nil || c.Payload != `[]` || !slices.Equal(c.PendingRows, []int{11}) || len(c.Failures) != 1 || c.Failures[0].Arg != "account_code: unknown" || c.SentAt.IsZero() {
			t.Fatalf("chunk 2: %+v, %v", c, err)
		}
		states, err := db.UploadChunkStates(ctx, a.ID)
		if err != nil || len(states) != 5 || states[3].State != "pending" {
			t.Fatalf("states %+v %v", states, err)
		}
		if err := db.FinishUploadJob(ctx, a.ID, "partial", 2, 1); err != nil {
			t.Fatal(err)
		}
		j, err := db.UploadJobByID(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if j.State != "partial" || j.Created != 2 || j.Failed != 1 || j.ToSend != 8 || j.Skipped != 1 || j.CommittedIP != "10.0.0.1" ||
			j.CommittedAt.IsZero() || j.FinishedAt.IsZero() || len(j.Totals) != 1 || j.Totals[0].Amount != 1_500_000 || !j.FileKept {
			t.Fatalf("job %+v", j)
		}

		list, total, err := db.ListUploadJobs(ctx, 0, 10)
		if err != nil || total != 2 || len(list) != 2 || list[0].ID != b.ID {
			t.Fatalf("history: %d, %v", total, err)
		}
		running, err := db.UploadJobsInStates(ctx, "held", "partial")
		if err != nil || len(running) != 2 {
			t.Fatalf("in states: %+v %v", running, err)
		}
		if err := db.SetUploadFileKept(ctx, a.ID, false); err != nil {
			t.Fatal(err)
		}
		old, err := db.UploadJobsWithFilesBefore(ctx, time.Now().Add(time.Hour))
		if err != nil || len(old) != 1 || old[0].ID != b.ID {
			t.Fatalf("files to clean: %+v %v", old, err)
		}
		if ok, err := db.SetUploadJobState(ctx, b.ID, "discarded", "held", "ready"); err != nil || !ok {
			t.Fatalf("discard: %v %v", ok, err)
		}
		if err := db.SetUploadProblem(ctx, b.ID, "upstream", []string{"x", "y"}); err != nil {
			t.Fatal(err)
		}
		if j, _ := db.UploadJobByID(ctx, b.ID); j.State != "discarded" || j.Problem != "upstream" || !slices.Equal(j.ProblemArgs, []string{"x", "y"}) {
			t.Fatalf("job b %+v", j)
		}
		if err := db.DeleteUploadChunks(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		if err := db.DeleteUploadIssues(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		if rows, _ := db.UploadErrorRows(ctx, a.ID); len(rows) != 0 {
			t.Fatal("issues not deleted")
		}
	})
}

// TestUploadJobLease: one owner at a time holds a job; a renewed lease keeps others out,
// a lapsed or released one lets the next owner in, and a lost lease cannot be renewed.
func TestUploadJobLease(t *testing.T) {
	t.Parallel()
	eachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		j, err := db.CreateUploadJob(ctx, store.UploadJob{Kind: "components", FileName: "a.xlsx", FileSHA256: "abc", FileSize: 10,
			FileKept: true, State: "queued", UploadedByID: "u1", UploadedBy: "finance"})
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Date(2026, 7, 1, 3, 0, 0, 0, time.UTC)
		ttl := time.Minute
		leases := db.JobLeases(store.UploadJobsTable)
		steps := []struct {
			name string
			do   func() (bool, error)
			want bool
		}{
			{"a claims a free job", func() (bool, error) { return leases.Claim(ctx, j.ID, "a", t0.Add(ttl), t0) }, true},
			{"a claims again", func() (bool, error) { return leases.Claim(ctx, j.ID, "a", t0.Add(ttl), t0) }, true},
			{"b is kept out of a live lease", func() (bool, error) {
				return leases.Claim(ctx, j.ID, "b", t0.Add(30*time.Second+ttl), t0.Add(30*time.Second))
			}, false},
			{"b cannot renew a's lease", func() (bool, error) { return leases.Renew(ctx, j.ID, "b", t0.Add(2*ttl)) }, false},
			{"a renews", func() (bool, error) { return leases.Renew(ctx, j.ID, "a", t0.Add(50*time.Second+ttl)) }, true},
			{"b is kept out past the first expiry", func() (bool, error) {
				return leases.Claim(ctx, j.ID, "b", t0.Add(90*time.Second+ttl), t0.Add(90*time.Second))
			}, false},
			{"b takes the lapsed lease", func() (bool, error) {
				return leases.Claim(ctx, j.ID, "b", t0.Add(111*time.Second+ttl), t0.Add(111*time.Second))
			}, true},
			{"a lost it and cannot renew", func() (bool, error) { return leases.Renew(ctx, j.ID, "a", t0.Add(3*ttl)) }, false},
			{"a releasing does not free b's lease", func() (bool, error) {
				if err := leases.Release(ctx, j.ID, "a"); err != nil {
					return false, err
				}
				return leases.Claim(ctx, j.ID, "c", t0.Add(2*ttl), t0.Add(112*time.Second))
			}, false},
			{"c claims once b released", func() (bool, error) {
				if err := leases.Release(ctx, j.ID, "b"); err != nil {
					return false, err
				}
				return leases.Claim(ctx, j.ID, "c", t0.Add(2*ttl), t0.Add(112*time.Second))
			}, true},
			{"c's release unless queued keeps the lease of the queued job", func() (bool, error) {
				if err := leases.ReleaseUnlessIn(ctx, j.ID, "c", "queued", "sending"); err != nil {
					return false, err
				}
				return leases.Claim(ctx, j.ID, "d", t0.Add(2*ttl), t0.Add(113*time.Second))
			}, false},
			{"c's release unless sending frees it", func() (bool, error) {
				if err := leases.ReleaseUnlessIn(ctx, j.ID, "c", "sending"); err != nil {
					return false, err
				}
				return leases.Claim(ctx, j.ID, "d", t0.Add(2*ttl), t0.Add(113*time.Second))
			}, true},
			{"no lease on a job that does not exist", func() (bool, error) { return leases.Claim(ctx, "nope", "c", t0, t0) }, false},
		}
		for _, s := range steps {
			got, err := s.do()
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			if got != s.want {
				t.Fatalf("%s: %v, want %v", s.name, got, s.want)
			}
		}
	})
}
