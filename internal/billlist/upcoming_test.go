package billlist

import (
	"reflect"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
)

func TestUpcomingRangeAndQuery(t *testing.T) {
	t.Parallel()
	// 23:30 WIB on 21 Nov is 16:30 UTC: the range starts on the Jakarta date.
	now := time.Date(2026, 11, 21, 16, 30, 0, 0, time.UTC).In(jakarta)
	first, last := UpcomingRange(now)
	if !first.Equal(day("2026-11-21")) || !last.Equal(day("2026-11-27")) {
		t.Fatalf("range %v – %v", first, last)
	}
	q := UpcomingQuery(now)
	want := billing.Query{State: billing.StateProvisioned, DueFrom: day("2026-11-21"), DueTo: day("2026-11-27")}
	if !reflect.DeepEqual(q, want) {
		t.Fatalf("query %+v", q)
	}
}

func TestGroupUpcoming(t *testing.T) {
	t.Parallel()
	bs := []billing.Bill{
		bill("d29", "1", "2026-11-29", "2026-12-31"), // one day past the range
		bill("d24-b", "20", "2026-11-24", "2026-12-31"),
		bill("d22", "3", "2026-11-22", "2026-12-31"),
		bill("d24-a", "3", "2026-11-24", "2026-12-31"),
		bill("d25", "4", "2026-11-25", "2026-12-31"),
		bill("d21", "5", "2026-11-21", "2026-12-31"), // late already: not upcoming
		paid(bill("d23", "6", "2026-11-23", "2026-12-31"), today22, 100_000, "R"),
		bill("d28", "7", "2026-11-28", "2026-12-31"), // the last day of the range
	}
	u := GroupUpcoming(bs, today22)
	if !u.First.Equal(day("2026-11-22")) || !u.Last.Equal(day("2026-11-28")) {
		t.Fatalf("range %v – %v", u.First, u.Last)
	}
	type item struct {
		id   string
		sent bool
		in   int
	}
	got := map[string][]item{}
	var order []string
	for _, d := range u.Days {
		k := d.Day.Format(DateLayout)
		order = append(order, k)
		for _, it := range d.Items {
			got[k] = append(got[k], item{it.Bill.ComponentID, it.ReminderSent, it.ReminderIn})
		}
		if d.Total != int64(len(d.Items))*100_000 {
			t.Errorf("%s total %d", k, d.Total)
		}
	}
	wantOrder := []string{"2026-11-22", "2026-11-24", "2026-11-25", "2026-11-28"}
	if !reflect.DeepEqual(order, wantOrder) {
		t.Fatalf("days %v, want %v", order, wantOrder)
	}
	want := map[string][]item{
		"2026-11-22": {{"d22", true, 0}},                       // reminder went out on the 20th
		"2026-11-24": {{"d24-a", true, 0}, {"d24-b", true, 0}}, // reminder goes out today; NIS 3 before 20
		"2026-11-25": {{"d25", false, 1}},                      // reminder tomorrow
		"2026-11-28": {{"d28", false, 4}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("items\n got %v\nwant %v", got, want)
	}
	if u.Count != 5 || u.Total != 500_000 || u.Reminded != 3 || u.RemindedSoon != 2 {
		t.Fatalf("count %d total %d reminded %d soon %d", u.Count, u.Total, u.Reminded, u.RemindedSoon)
	}
}
