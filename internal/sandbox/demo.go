package sandbox

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/google/uuid"
)

// demoSeed fixes the demo school: the same school year always gives the same
// students, charges and payment behaviour; the day only decides how much of
// it has happened yet.
const demoSeed = 0x5c400126

// demoStudent is a generated student with the charges of their year.
type demoStudent struct {
	student
	chronic bool // pays late or not at all, more often than others
	charges []demoCharge
}

// demoCharge is one component with its drawn fate.
type demoCharge struct {
	componentRow
	paidAt time.Time // zero: never paid
}

// loadDemo fills an empty store with a school of about 600 students in
// classes 7–12 and the bills of the school year (July–June) containing today:
// monthly SPP and the yearly charges, partly paid on time, partly late with
// the penalty, partly outstanding and partly expired.
func (s *Server) loadDemo(ctx context.Context) error {
	// Everything up to the start of today has happened, so the same day always
	// gives the same school whatever the hour.
	local := s.Now().In(s.loc)
	cutoff := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, s.loc)
	year := local.Year() // first calendar year of the school year
	if local.Month() < time.July {
		year--
	}
	g := &demoGen{s: s, year: year, rng: rand.New(rand.NewPCG(demoSeed, uint64(year)))}
	students := g.school()

	return s.store.inTx(ctx, func(tx *sql.Tx) error {
		list := make([]student, len(students))
		for i := range students {
			list[i] = students[i].student
		}
		created := g.at(year, time.June, 20, 8, 0)
		rows, err := insertStudents(ctx, tx, list, created.UnixNano(), g.id)
		if err != nil {
			return err
		}
		ins, err := newComponentInserter(ctx, tx)
		if err != nil {
			return err
		}
		defer ins.close()
		for i, st := range students {
			for _, c := range st.charges {
				if !c.createdAt.Before(cutoff) {
					continue // not uploaded yet on this day
				}
				row := c.componentRow
				row.studentID = rows[i].id
				if !c.paidAt.IsZero() && c.paidAt.Before(cutoff) {
					paidAt := c.paidAt
					row.paidAt, row.paidDay, row.amountPaid = &paidAt, dayOf(paidAt.In(s.loc)), row.amount
					if row.paidDay > dayOf(row.due) {
						row.amountPaid += row.penalty
					}
					row.refNumber = g.ref(row.accountCode, paidAt, row.id)
				}
				if err := ins.insert(ctx, &row); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// demoGen draws the demo school from one seeded stream.
type demoGen struct {
	s    *Server
	year int
	rng  *rand.Rand
}

// at is a wall-clock time in the service zone.
func (g *demoGen) at(y int, m time.Month, d, hour, min int) time.Time {
	return time.Date(y, m, d, hour, min, 0, 0, g.s.loc)
}

// id is a version-4 UUID from the seeded stream, so ids repeat too.
func (g *demoGen) id() string {
	var u uuid.UUID
	a, b := g.rng.Uint64(), g.rng.Uint64()
	for i := range 8 {
		u[i], u[8+i] = byte(a>>(8*i)), byte(b>>(8*i))
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u.String()
}

func (g *demoGen) pick(list []string) string { return list[g.rng.IntN(len(list))] }

// account maps a role (0 tuition, 1 school bank, 2 other bank) onto the
// configured account codes.
func (g *demoGen) account(role int) string { return g.s.accounts[role%len(g.s.accounts)] }

// school draws 18 classes, 7A to 12C, of 33 or 34 students.
func (g *demoGen) school() []demoStudent {
	var out []demoStudent
	seq := map[string]int{}
	for ci := range 18 {
		grade, letter := 7+ci/3, string(rune('A'+ci%3))
		size := 33
		if ci < 6 {
			size = 34
		}
		smp := grade <= 9
		entry := g.year - (grade - 7)
		base := 0
		if !smp {
			entry, base = g.year-(grade-10), 5000
		}
		prefix := fmt.Sprintf("%02d%02d", entry%100, (entry+1)%100)
		// Each class is uploaded in one sitting in the last week of June.
		upload := g.at(g.year, time.June, 24+ci/4, 8+(ci%4)*2, g.rng.IntN(50))
		for range size {
			key := fmt.Sprint(prefix, smp)
			seq[key]++
			nis := fmt.Sprintf("%s%04d", prefix, base+seq[key])
			st := demoStudent{student: g.person(nis, fmt.Sprintf("Kelas %d%s", grade, letter)), chronic: g.rng.Float64() < 0.08}
			st.charges = g.charges(grade, smp, st.chronic, upload)
			upload = upload.Add(time.Duration(len(st.charges)) * time.Second)
			out = append(out, st)
		}
	}
	return out
}

// person draws a name, a phone and sometimes an e-mail address.
func (g *demoGen) person(nis, class string) student {
	first, middle := demoMaleNames, demoMaleMiddle
	if g.rng.IntN(2) == 0 {
		first, middle = demoFemaleNames, demoFemaleMiddle
	}
	given := g.pick(first)
	family := g.pick(demoFamilyNames)
	name := given + " " + family
	switch r := g.rng.Float64(); {
	case r < 0.3:
		name = g.pick(middle) + " " + name
	case r < 0.5:
		name = given + " " + g.pick(first) + " " + family
	}
	phone := g.pick(demoPhonePrefixes) + fmt.Sprintf("%08d", g.rng.IntN(100_000_000))[:7+g.rng.IntN(2)]
	email := ""
	if g.rng.Float64() < 0.45 {
		email = fmt.Sprintf("%s.%s%d@%s", strings.ToLower(given), strings.ToLower(family), g.rng.IntN(100), g.pick(demoMailDomains))
	}
	return student{Name: name, BillKeyValue: nis, BillKeyName: "NIS", Phone: phone, Email: email, Description: class}
}

// charges draws the components of one student's school year, uploaded from
// upload on (later ones at their own dates), each with its payment fate.
func (g *demoGen) charges(grade int, smp, chronic bool, upload time.Time) []demoCharge {
	y, next := g.year, g.year+1
	notes := fmt.Sprintf("TA %d/%d", y, next)
	price := func(smpAmount, smaAmount int64) int64 {
		if smp {
			return smpAmount
		}
		return smaAmount
	}
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	var out []demoCharge
	add := func(name string, role int, amount, penalty int64, due, expiry time.Time, created time.Time) *demoCharge {
		out = append(out, demoCharge{componentRow: componentRow{
			id: g.id(), accountCode: g.account(role), name: name, amount: amount, penalty: penalty,
			due: due, expiry: expiry, notes: notes, createdAt: created.Add(time.Duration(len(out)) * time.Second),
		}})
		c := &out[len(out)-1]
		c.paidAt = g.fate(c, chronic)
		return c
	}

	for i := range 12 {
		m := time.Month((6+i)%12 + 1) // July … June
		cy := y
		if m < time.July {
			cy = next
		}
		due := day(cy, m, 10)
		add(fmt.Sprintf("SPP %s %d", demoMonths[m-1], cy), 0, price(450_000, 650_000), 25_000, due, due.AddDate(0, 2, 0), upload)
	}
	add("Uang Kegiatan Semester Ganjil", 1, price(600_000, 850_000), 50_000, day(y, time.August, 15), day(y, time.October, 15), upload)
	add("Uang Kegiatan Semester Genap", 1, price(600_000, 850_000), 50_000, day(next, time.January, 15), day(next, time.March, 15), upload)
	add("Uang Buku", 1, price(1_200_000, 1_500_000), 0, day(y, time.July, 31), day(y, time.September, 30), upload)
	switch grade {
	case 7, 10:
		add("Seragam Sekolah", 2, price(1_750_000, 2_100_000), 0, day(y, time.July, 20), day(y, time.September, 30), upload)
	case 8, 11:
		// Announced in October, payable from January.
		c := add("Study Tour", 2, price(2_500_000, 3_500_000), 0, day(next, time.March, 10), day(next, time.April, 10),
			g.at(y, time.October, 1, 9, 0).Add(time.Duration(g.rng.IntN(3600))*time.Second))
		active := day(next, time.January, 2)
		c.active = &active
		if !c.paidAt.IsZero() && c.paidAt.Before(g.at(next, time.January, 2, 8, 0)) {
			c.paidAt = g.at(next, time.January, 2+g.rng.IntN(40), 8+g.rng.IntN(10), g.rng.IntN(60))
		}
	case 9, 12:
		add("Biaya Ujian Akhir", 1, price(750_000, 1_000_000), 0, day(next, time.February, 14), day(next, time.April, 30),
			g.at(next, time.January, 5, 9, 0).Add(time.Duration(g.rng.IntN(3600))*time.Second))
	}
	if chronic && grade != 7 && grade != 10 && g.rng.IntN(2) == 0 {
		// Arrears moved over from last year: already expired, never paid.
		for _, m := range []time.Month{time.May, time.June} {
			due := day(y, m, 10)
			c := add(fmt.Sprintf("Tunggakan SPP %s %d", demoMonths[m-1], y), 0, price(450_000, 650_000), 25_000, due, due.AddDate(0, 2, 0),
				g.at(y, time.July, 1, 9, 0))
			c.paidAt, c.notes = time.Time{}, fmt.Sprintf("TA %d/%d", y-1, y)
		}
	}
	return out
}

// fate draws when a charge gets paid (zero: never): most on time in the weeks
// before the due day, some late within the expiry window, some never.
func (g *demoGen) fate(c *demoCharge, chronic bool) time.Time {
	onTime, late := 0.82, 0.11
	if chronic {
		onTime, late = 0.3, 0.35
	}
	r := g.rng.Float64()
	daysBefore := g.rng.IntN(21)
	window := int(c.expiry.Sub(c.due).Hours()/24) - 1
	daysAfter := 1 + g.rng.IntN(max(window, 1))
	hour, minute := 7+g.rng.IntN(14), g.rng.IntN(60)
	var paid time.Time
	switch {
	case r < onTime:
		paid = g.at(c.due.Year(), c.due.Month(), c.due.Day()-daysBefore, hour, minute)
		if earliest := c.createdAt.Add(time.Duration(1+daysBefore) * time.Hour); paid.Before(earliest) {
			paid = earliest
		}
	case r < onTime+late:
		paid = g.at(c.due.Year(), c.due.Month(), c.due.Day()+daysAfter, hour, minute)
	}
	return paid
}

// ref is a bank-style reference number for a payment.
func (g *demoGen) ref(account string, paidAt time.Time, id string) string {
	prefix := account
	if len(prefix) > 3 {
		prefix = prefix[:3]
	}
	return strings.ToUpper(prefix) + paidAt.In(g.s.loc).Format("060102") + strings.ToUpper(strings.ReplaceAll(id, "-", "")[:8])
}
