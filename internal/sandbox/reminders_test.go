package sandbox

import (
	"net/http"
	"slices"
	"testing"
	"time"
)

func TestRemindersTwoDaysBeforeDue(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{}) // 2026-11-22
	c.seedStudents("A1", "B2", "C3")
	recs := c.upload(
		componentJSON("A1", "SPP", day(2026, 12, 10), 450000, 25000), // reminded on Dec 8
		componentJSON("B2", "SPP", day(2026, 12, 10), 450000, 25000), // paid before Dec 8: no reminder
		componentJSON("C3", "BCA", day(2026, 12, 11), 750000, 0),     // reminded on Dec 9
		componentJSON("A1", "SPP", day(2027, 1, 10), 450000, 25000),  // later
	)
	c.must(http.StatusOK, "POST", "/bill_component/pay", obj{"bill_key": "B2", "biller_ref_number": "R", "bill_component_list": []string{recs[1].ID}})

	reminders := func() []Reminder {
		return into[[]Reminder](t, c.must(http.StatusOK, "GET", "/_sandbox/reminders", nil))
	}
	setClock := func(at string) {
		r := c.must(http.StatusOK, "POST", "/_sandbox/clock", obj{"now": at})
		if got := into[clockView](t, r); !got.Fixed {
			t.Fatalf("clock = %+v", got)
		}
	}
	if got := reminders(); len(got) != 0 {
		t.Fatalf("reminders before any due date: %+v", got)
	}

	setClock("2026-12-07T10:00:00+07:00")
	if got := reminders(); len(got) != 0 {
		t.Fatalf("three days before: %+v", got)
	}
	setClock("2026-12-08T08:00:00+07:00")
	got := reminders()
	want := Reminder{BillComponentID: recs[0].ID, BillKey: "A1", DueDate: day(2026, 12, 10),
		SentAt: time.Date(2026, 12, 8, 1, 0, 0, 0, time.UTC), Phone: "081234567890", Email: "a1@example.com"}
	if len(got) != 1 || got[0] != want {
		t.Fatalf("Dec 8: %+v, want %+v", got, want)
	}
	setClock("2026-12-08T20:00:00+07:00") // same day again: once per component
	setClock("2026-12-09T08:00:00+07:00")
	got = reminders()
	if len(got) != 2 || got[1].BillComponentID != recs[2].ID || got[1].BillKey != "C3" {
		t.Fatalf("Dec 9: %+v", got)
	}
	if !slices.Equal(got, c.sb.Reminders()) {
		t.Fatal("Reminders() differs from the route")
	}
	// Going back in time does not repeat them.
	setClock("2026-12-08T08:00:00+07:00")
	if n := len(reminders()); n != 2 {
		t.Fatalf("after going back: %d reminders", n)
	}
}

func TestRemindersOnUploadAndLazily(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{}) // 2026-11-22
	c.seedStudents("A1")
	// Uploaded on its reminder day: reminded at once.
	due24 := c.upload(componentJSON("A1", "SPP", day(2026, 11, 24), 450000, 0))[0]
	due25 := c.upload(componentJSON("A1", "SPP", day(2026, 11, 25), 450000, 0))[0]
	if got := c.sb.Reminders(); len(got) != 1 || got[0].BillComponentID != due24.ID {
		t.Fatalf("after upload: %+v", got)
	}
	// The date moves without the clock route (as a real clock would): the
	// next request evaluates the new day.
	c.sb.clockMu.Lock()
	c.sb.fixed = time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC)
	c.sb.clockMu.Unlock()
	if got := c.sb.Reminders(); len(got) != 1 {
		t.Fatalf("before any request: %+v", got)
	}
	c.must(http.StatusOK, "GET", "/bill/A1", nil)
	if got := c.sb.Reminders(); len(got) != 2 || got[1].BillComponentID != due25.ID {
		t.Fatalf("after a request on the new day: %+v", got)
	}
}

func TestClockRoute(t *testing.T) {
	t.Parallel()
	c := newSandbox(t, Options{})
	got := into[clockView](t, c.must(http.StatusOK, "GET", "/_sandbox/clock", nil))
	if got.Now != "2026-11-22T02:00:00Z" || got.Today != "20261122" || !got.Fixed {
		t.Fatalf("clock = %+v", got)
	}
	for _, bad := range []obj{{"now": "tomorrow"}, {"now": "2026-11-22"}, {"now": 5}} {
		c.must(http.StatusBadRequest, "POST", "/_sandbox/clock", bad)
	}
	c.must(http.StatusOK, "POST", "/_sandbox/clock", obj{"now": "2026-11-23T00:30:00+07:00"})
	if d := c.sb.Now().In(c.sb.loc).Format("20060102"); d != "20261123" {
		t.Fatalf("service date = %s", d)
	}
	// null returns to real time.
	got = into[clockView](t, c.must(http.StatusOK, "POST", "/_sandbox/clock", obj{"now": nil}))
	if got.Fixed || time.Since(c.sb.Now()) > time.Minute {
		t.Fatalf("clock = %+v", got)
	}
}
