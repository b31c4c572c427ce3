package pages

import (
	"time"

	"github.com/sekolah/portal/views/components"
)

// Freshness says how fresh the figures are, as the ledger's sync stands: up to date as
// of a time, stale (the last sync failed: why, and since when), or still filling.
type Freshness struct {
	// State is FreshUpToDate, FreshStale, FreshFilling or FreshEmpty ("" shows nothing).
	State string
	// Text is the sentence: "Terkini · 12.03", "Sinkron terakhir 40 menit lalu: …".
	Text string
	// Permille is a filling ledger's progress in tenths of a percent; -1 when not known.
	Permille int
	// Asked: a person asked for a sync now and it has not run yet.
	Asked bool
	// Action is where the "sync now" control posts; empty offers none.
	Action string
}

// Live is how an open page keeps its figures current: every Every (an hx-trigger,
// "every 10s") it asks URL, which answers 204 while nothing changed and the new figures
// otherwise. Without JavaScript nothing asks: a reload shows the new figures.
type Live struct {
	URL   string
	Every string // an hx-trigger: "every 10s, live:show"
}

// The states of Freshness.
const (
	FreshUpToDate = "fresh"
	FreshStale    = "stale"
	FreshFilling  = "filling"
	FreshEmpty    = "empty"
)

// StatCard is one dashboard card; every card links to what makes up its figure.
type StatCard struct {
	TestID  string
	Label   string
	Value   string
	Sub     string
	Hint    string // what the figure counts, in words (the lead figures)
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
	Live        Live
	Error       string // no figures at all
	Ready       bool
	Lead        []StatCard // the three figures the page leads with
	Cards       []StatCard
	Collections components.ColumnChart
	Aging       components.BarChart
	Classes     components.BarChart
	DueSoon     []DueSoonRow
	TopArrears  []ArrearsRow
	// Unconfirmed says that payments announced by banks wait for the payment service's
	// confirmation (they are in no figure yet); empty when none wait.
	Unconfirmed string
	// Channels are today's and this month's receipts by channel (channels.templ).
	Channels *DashboardChannels
}
