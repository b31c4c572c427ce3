package billing

import (
	"context"
	"log/slog"
	"time"
)

// The provider never says in which zone its date is taken for the daily
// password; its own clients use the date of the machine they run on, often
// UTC. So the client signs with the date of its configured zone and, on a
// 401, tries the other plausible dates once each: the UTC date, then the day
// before and the day after its own. The rule that worked is kept for the
// rest of that day (in the configured zone): a wrong first guess costs a few
// 401s a day, not one per call.

// dateRule is a way of picking the password's date from the current time.
type dateRule int

const (
	ruleOwn       dateRule = iota // the date in the configured zone
	ruleUTC                       // the UTC date
	ruleDayBefore                 // the day before the configured zone's date
	ruleDayAfter                  // the day after the configured zone's date
)

// ruleOrder is the order of the contract's tolerance section.
var ruleOrder = []dateRule{ruleOwn, ruleUTC, ruleDayBefore, ruleDayAfter}

// date is the calendar date the rule gives at now, as a time whose own date
// is the one to sign (DailyPassword formats it as given).
func (r dateRule) date(now time.Time, loc *time.Location) time.Time {
	local := now.In(loc)
	y, m, d := local.Date()
	switch r {
	case ruleUTC:
		return now.UTC()
	case ruleDayBefore:
		return time.Date(y, m, d-1, 12, 0, 0, 0, loc)
	case ruleDayAfter:
		return time.Date(y, m, d+1, 12, 0, 0, 0, loc)
	}
	return local
}

// describe names the rule for the log, e.g. "the UTC date".
func (r dateRule) describe(loc *time.Location) string {
	switch r {
	case ruleUTC:
		return "the UTC date"
	case ruleDayBefore:
		return "the day before the date in " + loc.String()
	case ruleDayAfter:
		return "the day after the date in " + loc.String()
	}
	return "the date in " + loc.String()
}

// signing is one password date to try.
type signing struct {
	rule dateRule
	day  time.Time
}

// signings lists the dates to try at now, the rule kept for today first,
// each date once (the UTC date is often the configured zone's date too).
func (c *Client) signings(now time.Time) []signing {
	c.mu.Lock()
	first := ruleOwn
	if c.ruleDay == localDay(now.In(c.loc)) {
		first = c.rule
	}
	c.mu.Unlock()
	out := make([]signing, 0, len(ruleOrder))
	seen := map[string]bool{}
	add := func(r dateRule) {
		d := r.date(now, c.loc)
		if key := d.Format("20060102"); !seen[key] {
			seen[key] = true
			out = append(out, signing{rule: r, day: d})
		}
	}
	add(first)
	for _, r := range ruleOrder {
		add(r)
	}
	return out
}

// accepted notes that the service took the password of s at now: a rule
// found after a 401 is kept for the rest of the day and logged once, and the
// date tells which zone the service counts its days in. The zone is judged
// on the service's own clock (serverNow, from its Date header; our clock
// when it sent none), so that a service clock a few minutes behind ours at
// midnight is not taken for a service on UTC.
func (c *Client) accepted(ctx context.Context, now, serverNow time.Time, s signing, after401 bool) {
	if serverNow.IsZero() {
		serverNow = now
	}
	today := localDay(now.In(c.loc))
	c.mu.Lock()
	learned := after401 && (c.rule != s.rule || c.ruleDay != today)
	if after401 {
		c.rule, c.ruleDay = s.rule, today
	}
	oldZone := c.zone
	if z := zoneOfDate(serverNow, s.day.Format("20060102"), c.zone, c.loc); z != nil {
		c.zone = z
	}
	newZone := c.zone
	c.mu.Unlock()
	if learned {
		// The one line that says which date the service uses; never the password.
		c.log.LogAttrs(ctx, slog.LevelInfo, "billing: the service accepts the password of "+s.rule.describe(c.loc)+
			"; using that rule for the rest of the day",
			slog.String("date", s.day.Format("20060102")), slog.String("rule", s.rule.describe(c.loc)))
	}
	if newZone != oldZone {
		c.log.LogAttrs(ctx, slog.LevelInfo, "billing: timestamps without a zone are read as "+newZone.String()+" time",
			slog.String("zone", newZone.String()))
	}
}

// jakarta is the provider's own zone, a candidate for the service's.
var jakarta = defaultZone()

// zoneOfDate picks the zone the service most likely counts days in, from a
// date it accepted at now: the current guess if its date matches, else the
// configured zone, UTC or Jakarta, the first whose date matches. nil: no
// candidate matches (a clock running a little ahead or behind), keep the guess.
func zoneOfDate(now time.Time, date string, current, configured *time.Location) *time.Location {
	for _, z := range []*time.Location{current, configured, time.UTC, jakarta} {
		if now.In(z).Format("20060102") == date {
			return z
		}
	}
	return nil
}

// ServiceZone is the zone the client reads timestamps without a zone in:
// the configured Location until an accepted password date shows that the
// service counts its days in UTC (or in Jakarta, when configured otherwise).
// It can only change while the two zones' dates differ (00:00 to 07:00 in
// Jakarta for UTC), so a client started in the day against a UTC service
// reads zoneless times as configured-zone time until that night.
func (c *Client) ServiceZone() *time.Location {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.zone
}
