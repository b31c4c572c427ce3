package pages

import (
	"time"

	"github.com/sekolah/portal/views/components"
)

// Freshness says when figures were computed; the refresh control posts to Action.
type Freshness struct {
	At     time.Time
	Now    time.Time
	Action string
	// Warning is set when a refresh failed and these are the last good figures.
	Warning string
}

// StatCard is one dashboard card; every card links to what makes up its figure.
type StatCard struct {
	TestID  string
	Label   string
	Value   string
	Sub     string
	Href    string
	Variant string // "", success, warning, danger, neutral
}

func (c StatCard) class() string {
	if c.Variant == "" {
		return "card stat"
	}
	return "card stat stat--" + c.Variant
}

// DueSoonRow is a group of unpaid components due in the next days.
type DueSoonRow struct {
	Due          time.Time
	DaysLate     int
	Name         string
	Account      string
	Count        int
	Amount       int64
	Reminder     time.Time
	ReminderSent bool
	Href         string
}

// ArrearsRow is one of the largest arrears.
type ArrearsRow struct {
	NIS, Name, Class string
	Count            int
	Amount           int64
	OldestDays       int
	StudentHref      string
	StatementHref    string
}

// DashboardView is the principal's dashboard.
type DashboardView struct {
	Today       time.Time
	Fresh       Freshness
	Error       string // no figures at all
	Ready       bool
	Cards       []StatCard
	Collections components.ColumnChart
	Aging       components.BarChart
	Classes     components.BarChart
	DueSoon     []DueSoonRow
	TopArrears  []ArrearsRow
}
