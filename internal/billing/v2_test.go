package billing

// Contract version 2 against the real sandbox over real HTTP: the student
// list, single creates, component get / update / delete, the deleted state,
// updated_at and the payment fields the provider's clients send.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/sandbox"
)

func studentNIS(list []Student) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = s.NIS
	}
	return out
}

func TestSandboxStudentCreateAndList(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	got, err := e.c.CreateStudent(ctx, Student{NIS: "1001", Name: "Ani Lestari", Phone: "0812", Description: "Kelas 7A"})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Student{NIS: "1001", Name: "Ani Lestari", KeyName: "NIS", Phone: "0812", Description: "Kelas 7A"}); got != want {
		t.Errorf("CreateStudent = %+v, want %+v", got, want)
	}
	_, err = e.c.CreateStudent(ctx, Student{NIS: "1001", Name: "Again"})
	if ae := apiErr(t, err, 400, ErrValidation); !strings.Contains(ae.StatusDesc, "1001 already exists") {
		t.Errorf("duplicate: %q", ae.StatusDesc)
	}
	_, err = e.c.CreateStudent(ctx, Student{NIS: "10 02", Name: "Bad"})
	apiErr(t, err, 400, ErrValidation)

	// Created one second apart, so newest first is 1006 … 1001.
	for i, name := range []string{"Budi", "Daniel", "Citra", "Eko", "Fani"} {
		e.srv.SetClock(jakartaNoon.Add(time.Duration(i+1) * time.Second))
		e.students(t, fmt.Sprint(1002+i))
		upd := Student{NIS: fmt.Sprint(1002 + i), Name: name}
		if _, err := e.c.UpdateStudent(ctx, upd); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		q    StudentQuery
		want string
	}{
		{"all, newest first", StudentQuery{}, "1006 1005 1004 1003 1002 1001"},
		{"name, any case, any part", StudentQuery{Name: "AN"}, "1006 1003 1001"},
		{"exact NIS", StudentQuery{NIS: "1003"}, "1003"},
		{"NIS is not a prefix", StudentQuery{NIS: "100"}, ""},
		{"name and NIS", StudentQuery{Name: "ani", NIS: "1003"}, "1003"},
		{"page", StudentQuery{Offset: 2, Limit: 3}, "1004 1003 1002"},
		{"past the end", StudentQuery{Offset: 6}, ""},
		{"negative offset sent as 0", StudentQuery{Offset: -3, Limit: 1}, "1006"},
		{"limit above the largest page sent as it", StudentQuery{Limit: MaxStudentLimit + 10}, "1006 1005 1004 1003 1002 1001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, err := e.c.ListStudents(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(studentNIS(list), " "); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	list, _ := e.c.ListStudents(ctx, StudentQuery{NIS: "1001"})
	if len(list) != 1 || list[0].Description != "Kelas 7A" || list[0].KeyName != "NIS" {
		t.Errorf("listed record %+v, want every field", list)
	}

	// The iterator: pages of 2, each student once, ended by an empty page.
	e.logs.Reset()
	var all []string
	for s, err := range e.c.AllStudents(ctx, StudentQuery{Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, s.NIS)
	}
	if strings.Join(all, " ") != "1006 1005 1004 1003 1002 1001" {
		t.Errorf("AllStudents = %v", all)
	}
	if n := strings.Count(e.logs.String(), "billing call"); n != 4 {
		t.Errorf("AllStudents by 2 made %d calls, want 4 (three pages and the empty one)", n)
	}

	// A deleted student leaves the list.
	if err := e.c.DeleteStudent(ctx, "1003"); err != nil {
		t.Fatal(err)
	}
	list, _ = e.c.ListStudents(ctx, StudentQuery{Name: "an"})
	if got := strings.Join(studentNIS(list), " "); got != "1006 1001" {
		t.Errorf("after deleting 1003: %q", got)
	}
}

// TestSandboxComponentLifecycle runs against a sandbox writing timestamps
// with a zone and one writing them without (service time): the records read
// the same.
func TestSandboxComponentLifecycle(t *testing.T) {
	t.Parallel()
	for _, zoneless := range []bool{false, true} {
		t.Run(fmt.Sprintf("zoneless=%v", zoneless), func(t *testing.T) {
			testComponentLifecycle(t, setup(t, func(o *sandbox.Options, c *Config) { o.Zoneless = zoneless }))
		})
	}
}

func testComponentLifecycle(t *testing.T, e *env) {
	ctx := context.Background()
	e.students(t, "1001", "1002")

	created, err := e.c.CreateComponent(ctx, ComponentInput{NIS: "1001", AccountCode: "SPP", Name: "SPP Januari",
		Due: day(2026, 1, 10), Expiry: day(2026, 1, 31), Active: day(2026, 1, 2), Amount: 450000, Penalty: 25000, Notes: "TA 2025/2026"})
	if err != nil {
		t.Fatal(err)
	}
	want := Bill{ComponentID: created.ComponentID, BillID: created.BillID, NIS: "1001", StudentName: "Siswa 1001",
		AccountCode: "SPP", Name: "SPP Januari", Amount: 450000, Penalty: 25000, Active: day(2026, 1, 2),
		Due: day(2026, 1, 10), Expiry: day(2026, 1, 31), State: StateProvisioned, RawState: "provisioned",
		Notes: "TA 2025/2026", CreatedAt: jakartaNoon, UpdatedAt: jakartaNoon}
	if created.ComponentID == "" || created.BillID == "" || created != want {
		t.Fatalf("CreateComponent = %+v\nwant %+v", created, want)
	}
	got, err := e.c.GetComponent(ctx, created.ComponentID)
	if err != nil || got != created {
		t.Fatalf("GetComponent = %+v, %v; want the created record", got, err)
	}
	_, err = e.c.GetComponent(ctx, "00000000-0000-0000-0000-000000000000")
	apiErr(t, err, 404, ErrNotFound)
	_, err = e.c.CreateComponent(ctx, ComponentInput{NIS: "9999", AccountCode: "SPP", Name: "x", Due: day(2026, 1, 10), Expiry: day(2026, 1, 31), Amount: 1})
	if ae := apiErr(t, err, 400, ErrValidation); ae.StatusDesc != "bill_key: unknown student 9999" {
		t.Errorf("unknown student: %q", ae.StatusDesc)
	}

	// Update: the fields given change, the others stay, updated_at moves.
	later := jakartaNoon.Add(time.Hour)
	e.srv.SetClock(later)
	amount, notes, zero := int64(500000), "naik", time.Time{}
	upd, err := e.c.UpdateComponent(ctx, created.ComponentID, ComponentUpdate{Amount: &amount, Notes: &notes, Active: &zero})
	if err != nil {
		t.Fatal(err)
	}
	want.Amount, want.Notes, want.Active, want.UpdatedAt = 500000, "naik", time.Time{}, later
	if upd != want {
		t.Errorf("UpdateComponent = %+v\nwant %+v", upd, want)
	}
	badDue := day(2026, 2, 10) // after the expiry
	_, err = e.c.UpdateComponent(ctx, created.ComponentID, ComponentUpdate{Due: &badDue})
	if ae := apiErr(t, err, 400, ErrValidation); ae.StatusDesc != "due_date: must not be after expiry_date" {
		t.Errorf("bad update: %q", ae.StatusDesc)
	}
	_, err = e.c.UpdateComponent(ctx, "00000000-0000-0000-0000-000000000000", ComponentUpdate{Amount: &amount})
	apiErr(t, err, 404, ErrNotFound)

	// An expired component becomes payable again with a new expiry (rule 6).
	old := e.upload(t, ComponentInput{NIS: "1001", AccountCode: "BCA", Name: "arrears", Due: day(2025, 11, 1), Expiry: day(2025, 12, 1), Amount: 1000, Penalty: 100})[0]
	if old.State != StateExpired {
		t.Fatalf("arrears state %q", old.State)
	}
	expiry := day(2026, 2, 1)
	revived, err := e.c.UpdateComponent(ctx, old.ComponentID, ComponentUpdate{Expiry: &expiry})
	if err != nil || revived.State != StateProvisioned || !revived.Expiry.Equal(expiry) {
		t.Fatalf("revived = %+v, %v", revived, err)
	}
	paid, err := e.c.Pay(ctx, Payment{NIS: "1001", RefNumber: "R-1", ComponentIDs: []string{old.ComponentID}})
	if err != nil || paid[0].AmountPaid != 1100 {
		t.Fatalf("pay revived: %+v, %v (want the penalty: past due)", paid, err)
	}
	_, err = e.c.UpdateComponent(ctx, old.ComponentID, ComponentUpdate{Amount: &amount})
	if ae := apiErr(t, err, 400, ErrValidation); !strings.Contains(ae.StatusDesc, "is paid") {
		t.Errorf("update of a paid component: %q", ae.StatusDesc)
	}

	// Delete: all or none; paid ones stay.
	more := e.upload(t, spp("1001", "a", day(2026, 1, 20), 1000, 0), spp("1001", "b", day(2026, 1, 20), 1000, 0))
	_, err = e.c.DeleteComponents(ctx, ComponentDeletion{ComponentIDs: []string{more[0].ComponentID, old.ComponentID}})
	if ae := apiErr(t, err, 400, ErrValidation); len(ae.Items) != 1 || ae.Items[0].Index != 1 {
		t.Errorf("deleting a paid one: items %+v", ae.Items)
	}
	if b, _ := e.c.GetComponent(ctx, more[0].ComponentID); b.State != StateProvisioned {
		t.Errorf("a refused deletion deleted %+v", b)
	}
	e.srv.SetClock(later.Add(time.Minute))
	deleted, err := e.c.DeleteComponents(ctx, ComponentDeletion{ComponentIDs: []string{more[0].ComponentID, more[1].ComponentID}, UpdatedBy: "bendahara"})
	if err != nil {
		t.Fatal(err)
	}
	if len(deleted) != 2 || deleted[0].State != StateDeleted || deleted[1].State != StateDeleted ||
		!deleted[0].UpdatedAt.Equal(later.Add(time.Minute)) || deleted[0].Name != "a" {
		t.Errorf("deleted = %+v", deleted)
	}
	_, err = e.c.DeleteComponents(ctx, ComponentDeletion{ComponentIDs: []string{more[0].ComponentID}})
	if ae := apiErr(t, err, 400, ErrValidation); !strings.Contains(ae.Error(), "already deleted") {
		t.Errorf("deleting twice: %v", ae)
	}
	_, err = e.c.Pay(ctx, Payment{NIS: "1001", RefNumber: "R-2", ComponentIDs: []string{more[1].ComponentID}})
	if ae := apiErr(t, err, 400, ErrValidation); len(ae.Items) != 1 || ae.Items[0].Message != "deleted, cannot be paid" {
		t.Errorf("paying a deleted one: %+v", ae.Items)
	}
	_, err = e.c.UpdateComponent(ctx, more[0].ComponentID, ComponentUpdate{Amount: &amount})
	apiErr(t, err, 400, ErrValidation)

	// Deleted ones are left out of every listing unless asked for.
	if b, err := e.c.GetComponent(ctx, more[0].ComponentID); err != nil || b.State != StateDeleted {
		t.Errorf("GetComponent of a deleted one = %+v, %v", b, err)
	}
	all, _ := e.c.StudentBills(ctx, "1001", Query{})
	if n := names(all); !slices.Equal(n, []string{"SPP Januari", "arrears"}) {
		t.Errorf("listing without state: %v", n)
	}
	gone, _ := e.c.Search(ctx, Query{State: StateDeleted})
	if n := names(gone); !slices.Equal(n, []string{"a", "b"}) {
		t.Errorf("state=deleted: %v", n)
	}
	var iterated []string
	for b, err := range e.c.All(ctx, Query{State: StateDeleted, Limit: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		iterated = append(iterated, b.Name)
	}
	if len(iterated) != 2 {
		t.Errorf("All with state=deleted yielded %v", iterated)
	}
}

func TestSandboxDeletedStudentKeepsRecords(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	e.students(t, "1001")
	old := e.upload(t, spp("1001", "old", day(2026, 1, 10), 1000, 0))[0]
	if err := e.c.DeleteStudent(ctx, "1001"); err != nil {
		t.Fatal(err)
	}
	b, err := e.c.GetComponent(ctx, old.ComponentID)
	if err != nil || b.State != StateDeleted || b.NIS != "1001" || b.StudentName != "Siswa 1001" {
		t.Fatalf("component of a deleted student = %+v, %v", b, err)
	}
	// The NIS is free for a new student, whose bills are their own.
	e.students(t, "1001")
	e.upload(t, spp("1001", "new", day(2026, 1, 10), 1000, 0))
	bs, err := e.c.StudentBills(ctx, "1001", Query{})
	if err != nil || len(bs) != 1 || bs[0].Name != "new" || bs[0].BillID == old.BillID {
		t.Errorf("the new 1001's bills = %+v, %v", bs, err)
	}
	if gone, _ := e.c.Search(ctx, Query{State: StateDeleted}); len(gone) != 1 || gone[0].ComponentID != old.ComponentID {
		t.Errorf("deleted ones: %+v", gone)
	}
}

func TestSandboxPayMakesUpAReference(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	e.students(t, "1001")
	b := e.upload(t, spp("1001", "a", day(2026, 1, 10), 1000, 0))[0]
	paid, err := e.c.Pay(ctx, Payment{NIS: "1001", ComponentIDs: []string{b.ComponentID}, UpdatedBy: "kasir"})
	if err != nil {
		t.Fatal(err)
	}
	if ref := paid[0].RefNumber; !strings.HasPrefix(ref, "SBX260105") || len(ref) != len("SBX260105")+8 {
		t.Errorf("made-up reference %q", ref)
	}
	if !paid[0].UpdatedAt.Equal(jakartaNoon) || !paid[0].PaidAt.Equal(jakartaNoon) {
		t.Errorf("paid record %+v", paid[0])
	}
}

// TestSandboxCappedPaging is the tolerance rule on page sizes: the service
// answers at most 300 records whatever limit is asked, silently. A client
// that stopped at the first short page would miss 1,700 bills.
func TestSandboxCappedPaging(t *testing.T) {
	t.Parallel()
	e := setup(t, func(o *sandbox.Options, c *Config) { o.MaxLimit, o.CapSilently = 300, true })
	ctx := context.Background()
	const total = 2000
	var nis []string
	for i := range 40 {
		nis = append(nis, fmt.Sprint(3000+i))
	}
	e.students(t, nis...)
	var batch []ComponentInput
	for i := range total {
		batch = append(batch, spp(nis[i%len(nis)], fmt.Sprintf("c%04d", i), day(2026, 1, 10), int64(1000+i), 0))
	}
	e.upload(t, batch[:1000]...)
	e.upload(t, batch[1000:]...)

	walk := func() (int, int64, int) {
		e.logs.Reset()
		seen := map[string]bool{}
		var sum int64
		for b, err := range e.c.All(ctx, Query{}) {
			if err != nil {
				t.Fatal(err)
			}
			if seen[b.ComponentID] {
				t.Fatalf("%s yielded twice", b.Name)
			}
			seen[b.ComponentID] = true
			sum += b.Amount
		}
		return len(seen), sum, strings.Count(e.logs.String(), "billing call")
	}
	wantSum := int64(total*1000 + total*(total-1)/2)
	// Pages of 300: 6 full ones, one of 200, then the empty page that ends it.
	n, sum, calls := walk()
	if n != total || sum != wantSum || calls != 8 {
		t.Errorf("first walk: %d bills (sum %d) in %d calls, want %d (sum %d) in 8", n, sum, calls, total, wantSum)
	}
	if !strings.Contains(e.logs.String(), "the service answers at most 300 records a page") {
		t.Errorf("the learned page size was not logged:\n%s", e.logs)
	}
	// Learned: the next walk asks for 300 from its first page on.
	n, sum, calls = walk()
	if n != total || sum != wantSum || calls != 8 || !strings.Contains(e.logs.String(), "limit=300") ||
		strings.Contains(e.logs.String(), "limit=1000") {
		t.Errorf("second walk: %d bills in %d calls, want %d in 8 asking limit=300 each time:\n%s", n, calls, total, e.logs)
	}
	// A short last page is not the end by itself: 120 bills in pages of 300
	// cost the page and the empty one, and nothing is learned from them.
	e2 := setup(t)
	e2.students(t, "1001")
	for i := range batch[:120] {
		batch[i].NIS = "1001"
	}
	e2.upload(t, batch[:120]...)
	e2.logs.Reset()
	count := 0
	for _, err := range e2.c.All(ctx, Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		count++
	}
	if calls := strings.Count(e2.logs.String(), "billing call"); count != 120 || calls != 2 || e2.c.learnedPageSize(pathSearchBiller) != 0 {
		t.Errorf("%d bills in %d calls (learned %d), want 120 in 2, nothing learned", count, calls, e2.c.learnedPageSize(pathSearchBiller))
	}
}

func TestDeadlineBoundsTheCall(t *testing.T) {
	t.Parallel()
	e := setup(t, func(o *sandbox.Options, c *Config) {
		c.Timeout, c.Deadline, c.MaxAttempts = 150*time.Millisecond, 400*time.Millisecond, 50
	})
	ctx := context.Background()
	e.students(t, "1001")
	e.srv.SetFaults(sandbox.Faults{TimeoutRate: 1})
	e.logs.Reset()
	_, err := e.c.Student(ctx, "1001")
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "no answer within the 400ms allowed for the call") {
		t.Fatalf("err = %v, want the call's deadline", err)
	}
	// 50 attempts were allowed; the deadline stopped the call after a few. Every attempt
	// hangs for its whole 150ms, so no more than three start in 400ms (four with one cut off
	// at the deadline) however slow the machine is; a loaded machine only fits fewer, so
	// the bound is not a timing assertion.
	if n := strings.Count(e.logs.String(), "billing call"); n < 1 || n > 4 {
		t.Errorf("%d attempts within a 400ms deadline of 150ms attempts, want 1 to 4", n)
	}
	// The caller's own cancellation stays the caller's.
	cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, err = e.c.Student(cctx, "1001")
	if !errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "allowed for the call") {
		t.Errorf("caller's deadline: %v", err)
	}
}
