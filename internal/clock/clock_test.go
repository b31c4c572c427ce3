package clock

import (
	"testing"
	"time"
)

func TestDaysAreTheSchoolsDate(t *testing.T) {
	t.Parallel()
	jakarta, err := time.LoadLocation("Asia/Jakarta")
	if err != nil {
		t.Fatal(err)
	}
	// 01:30 WIB on 28 Nov is 18:30 UTC on 27 Nov: the school's date is the 28th.
	at := time.Date(2026, 11, 27, 18, 30, 0, 0, time.UTC)
	c := Fixed(at, jakarta)
	want := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	if got := c.Day(); !got.Equal(want) || got.Location() != time.UTC {
		t.Errorf("Day = %v, want %v", got, want)
	}
	if y, m, d := c.Today().Date(); y != 2026 || m != 11 || d != 28 {
		t.Errorf("Today's date = %d-%d-%d, want 2026-11-28", y, m, d)
	}
	if got := c.Now(); !got.Equal(at) || got.Location() != time.UTC {
		t.Errorf("Now = %v, want %v in UTC", got, at)
	}
	if got := c.DayOf(time.Date(2026, 11, 27, 16, 59, 0, 0, time.UTC)); !got.Equal(time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("DayOf 23:59 WIB = %v, want the 27th", got)
	}
	if got := c.Since(at.Add(-time.Minute)); got != time.Minute {
		t.Errorf("Since = %v", got)
	}
}

func TestZeroClockIsRefused(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("a zero Clock read the time; it must refuse")
		}
	}()
	var c Clock
	c.Now()
}
