package ledger_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/sandbox"
	"github.com/sekolah/portal/internal/store"
)

// envInt reads a positive number from the environment, or def.
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// TestRandomisedEndToEnd runs long random sequences of what happens to a school's bills
// (fixed seeds here; PORTAL_LEDGER_E2E_SEEDS=n runs n more, random ones, and
// PORTAL_LEDGER_E2E_STEPS sets the length): portal writes whose answers go into the
// ledger, changes made at the service behind the portal's back, bank payments whose
// callback comes at once, late, twice or never, the clock moving past due and expiry
// days, failures of the service, and syncs in between. After an incremental sync and a
// reconcile, the ledger equals a full walk of the service field by field, the roster
// equals its student list, and the dashboard from the ledger equals internal/reports'
// figures computed from the walk.
func TestRandomisedEndToEnd(t *testing.T) {
	eachEngine(t, testRandomisedEndToEnd)
}

func testRandomisedEndToEnd(t *testing.T, engine string) {
	seeds := []uint64{1, 2, 3}
	for range envInt("PORTAL_LEDGER_E2E_SEEDS", 0) {
		seeds = append(seeds, rand.Uint64())
	}
	steps := envInt("PORTAL_LEDGER_E2E_STEPS", 120)
	if engine == "postgres" {
		seeds = seeds[:1] // the same code paths; SQLite runs the others
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Logf("seed %d, %d steps", seed, steps)
			randomSchool(t, engine, seed, steps)
		})
	}
}

func randomSchool(t *testing.T, engine string, seed uint64, steps int) {
	rng := rand.New(rand.NewPCG(seed, 0x1ed9e7))
	e := newEnvOn(t, engine, syncNow)
	ctx := context.Background()
	var nis []string
	var ids []string // every component ever created
	nextStudent := 0

	newStudents := func(n int, portal bool) {
		var list []billing.Student
		for range n {
			nextStudent++
			list = append(list, billing.Student{NIS: fmt.Sprintf("%d", 3000+nextStudent), Name: fmt.Sprintf("Siswa %d", nextStudent),
				Description: fmt.Sprintf("Kelas %d", 7+rng.IntN(3)), Phone: fmt.Sprintf("08%d", rng.IntN(1e8))})
		}
		created, err := e.c.CreateStudents(ctx, list)
		if err != nil {
			return // a fault: nothing was created
		}
		for _, s := range created {
			nis = append(nis, s.NIS)
		}
		if portal {
			var entries []store.Student
			for _, s := range created {
				entries = append(entries, store.Student{NIS: s.NIS, Name: s.Name, KeyName: s.KeyName, Phone: s.Phone,
					Description: s.Description, Source: store.SourcePortal})
			}
			if err := e.db.UpsertStudents(ctx, entries); err != nil {
				t.Fatal(err)
			}
		}
	}
	// portal writes put the service's answer into the ledger, as the audited writer will.
	answer := func(portal bool, bills []billing.Bill, err error) {
		if err != nil || !portal {
			return
		}
		if _, err := e.l.Upsert(ctx, bills); err != nil {
			t.Fatal(err)
		}
	}
	newComponents := func(n int, portal bool) {
		if len(nis) == 0 {
			return
		}
		today := billing.DayIn(e.sb.Now(), jakarta)
		var in []billing.ComponentInput
		for range n {
			due := today.AddDate(0, 0, rng.IntN(150)-60)
			c := billing.ComponentInput{NIS: nis[rng.IntN(len(nis))], AccountCode: []string{"SPP", "BCA", "MANDIRI"}[rng.IntN(3)],
				Name: fmt.Sprintf("Iuran %d", rng.IntN(6)), Due: due, Expiry: due.AddDate(0, 0, rng.IntN(90)),
				Amount: int64(50_000 * (1 + rng.IntN(20))), Penalty: int64(5_000 * rng.IntN(5))}
			if rng.IntN(10) == 0 {
				c.Notes = "cicilan"
			}
			in = append(in, c)
		}
		bills, err := e.c.CreateComponents(ctx, in)
		for _, b := range bills {
			ids = append(ids, b.ComponentID)
		}
		answer(portal, bills, err)
	}
	pick := func(n int) []string {
		if len(ids) == 0 {
			return nil
		}
		var out []string
		for range n {
			out = append(out, ids[rng.IntN(len(ids))])
		}
		return out
	}
	// payable finds one of the picked components that the service would take today.
	payable := func() (billing.Bill, bool) {
		for _, id := range pick(8) {
			b, err := e.c.GetComponent(ctx, id)
			if err == nil && b.State == billing.StateProvisioned && (b.Active.IsZero() || !b.Active.After(billing.DayIn(e.sb.Now(), jakarta))) {
				return b, true
			}
		}
		return billing.Bill{}, false
	}

	newStudents(15, true)
	newComponents(150, true)
	if _, err := e.s.RunIncremental(ctx); err != nil {
		t.Fatal(err)
	}
	faulty := false
	for step := range steps {
		portal := rng.IntN(2) == 0
		switch op := rng.IntN(100); {
		case op < 8:
			newStudents(1+rng.IntN(3), portal)
		case op < 25:
			newComponents(1+rng.IntN(30), portal)
		case op < 40: // a bank payment; its callback comes at once, late, twice or never
			b, ok := payable()
			if !ok {
				continue
			}
			e.recv.mu.Lock()
			switch rng.IntN(4) {
			case 0:
				e.recv.fail = 1 + rng.IntN(2) // late: after one or two retries
			case 1:
				e.recv.lose = 1 // twice: stored, the answer lost
			case 2:
				e.recv.drop = true // never
			}
			e.recv.mu.Unlock()
			_ = e.trySandboxPost("/_sandbox/bank-payment", map[string]any{"bill_key": b.NIS, "bill_component_list": []string{b.ComponentID}}, nil)
			if rng.IntN(3) == 0 {
				e.waitCallbacks()
			}
			e.recv.mu.Lock()
			e.recv.drop = false
			e.recv.mu.Unlock()
		case op < 48: // a counter payment
			b, ok := payable()
			if !ok {
				continue
			}
			paid, err := e.c.Pay(ctx, billing.Payment{NIS: b.NIS, RefNumber: fmt.Sprintf("KSR%d-%d", seed, step), ComponentIDs: []string{b.ComponentID}})
			answer(portal, paid, err)
		case op < 58: // an update
			for _, id := range pick(1) {
				amount := int64(50_000 * (1 + rng.IntN(20)))
				u := billing.ComponentUpdate{Amount: &amount}
				if rng.IntN(2) == 0 {
					exp := billing.DayIn(e.sb.Now(), jakarta).AddDate(0, 0, rng.IntN(60)-10)
					due := exp.AddDate(0, 0, -rng.IntN(30))
					u.Due, u.Expiry = &due, &exp
				}
				b, err := e.c.UpdateComponent(ctx, id, u)
				answer(portal, []billing.Bill{b}, err)
			}
		case op < 65: // a deletion
			got, err := e.c.DeleteComponents(ctx, billing.ComponentDeletion{ComponentIDs: pick(1 + rng.IntN(2))})
			answer(portal, got, err)
		case op < 68: // a student changed or deleted at the service
			if len(nis) == 0 {
				continue
			}
			i := rng.IntN(len(nis))
			if rng.IntN(2) == 0 {
				s, err := e.c.Student(ctx, nis[i])
				if err == nil {
					s.Description = fmt.Sprintf("Kelas %d", 7+rng.IntN(3))
					_, _ = e.c.UpdateStudent(ctx, s)
				}
			} else if e.c.DeleteStudent(ctx, nis[i]) == nil {
				if portal {
					if _, err := e.l.StudentRemoved(ctx, nis[i]); err != nil {
						t.Fatal(err)
					}
					if err := e.db.DeleteStudent(ctx, nis[i]); err != nil {
						t.Fatal(err)
					}
				}
				nis = append(nis[:i], nis[i+1:]...)
			}
		case op < 78: // time passes
			e.sb.SetClock(e.sb.Now().Add(time.Duration(rng.IntN(20*24)) * time.Hour))
		case op < 82: // the service fails a share of calls for a while
			faulty = !faulty
			if faulty {
				e.sb.SetFaults(sandbox.Faults{ErrorRate: 0.3})
			} else {
				e.sb.SetFaults(sandbox.Faults{})
			}
		case op < 97:
			_, _ = e.s.RunIncremental(ctx) // may fail while the service does
		default:
			_, _ = e.s.RunReconcile(ctx)
		}
	}
	e.sb.SetFaults(sandbox.Faults{})
	e.waitCallbacks()
	if _, err := e.s.RunIncremental(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.RunReconcile(ctx); err != nil {
		t.Fatal(err)
	}
	e.sameAsService()
	e.sameStudents()
	today := billing.DayIn(e.sb.Now(), jakarta)
	got, err := e.l.Dashboard(ctx)
	if err != nil {
		t.Fatal(err)
	}
	walk := e.walk()
	want := reportsDashboard(t, today, func(yield func(billing.Bill, error) bool) {
		for _, b := range walk {
			if !yield(b, nil) {
				return
			}
		}
	}, people(t, e.db))
	if want.Bills == 0 {
		t.Fatal("nothing to compare")
	}
	sameDashboard(t, got, want)
	t.Logf("%d components, %d students at the end; %d callbacks stored", len(walk), len(e.roster()), len(e.callbacks()))
}
