package uploads

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/store"
)

// Directory answers "does the service know this NIS?" from the roster first and asks the
// service only for the rest: a few by GET /bill/{NIS}, more by reading the service's
// student list (one call per billing.MaxStudentLimit students), so an upload's cost on
// the wire does not grow with its unknown students. A student found there joins the
// roster (source sync), so the next sheet finds them locally.
type Directory struct {
	DB     *store.DB
	Client *billing.Client
	// Concurrency bounds the parallel calls (default 8). Up to that many unknown NIS are
	// asked one by one, in one round of parallel calls; more read the list.
	Concurrency int
	// Clock is the portal's clock: the roster's sync time of the students found.
	Clock clock.Clock

	mu    sync.Mutex
	cache map[string]bool // answers of the service, for this Directory's life
}

// KnownStudents implements StudentChecker.
func (d *Directory) KnownStudents(ctx context.Context, nis []string) (map[string]bool, error) {
	known := make(map[string]bool, len(nis))
	if len(nis) == 0 {
		return known, nil
	}
	roster, err := d.DB.StudentsByNIS(ctx, nis)
	if err != nil {
		return nil, fmt.Errorf("uploads: roster lookup: %w", err)
	}
	var ask []string
	d.mu.Lock()
	for _, n := range nis {
		if _, ok := roster[n]; ok {
			known[n] = true
		} else if k, ok := d.cache[n]; ok {
			known[n] = k
		} else {
			ask = append(ask, n)
		}
	}
	d.mu.Unlock()
	if len(ask) == 0 {
		return known, nil
	}
	var found []billing.Student
	if len(ask) <= max(d.Concurrency, 1) {
		found, err = d.askEach(ctx, ask)
	} else {
		found, err = d.askList(ctx, ask)
	}
	if err != nil {
		return nil, err
	}
	for _, n := range ask {
		known[n] = false
	}
	now := d.Clock.Now
	roll := make([]store.Student, len(found))
	for i, st := range found {
		known[st.NIS] = true
		roll[i] = store.Student{NIS: st.NIS, Name: st.Name, KeyName: st.KeyName, Phone: st.Phone,
			Email: st.Email, Description: st.Description, Source: store.SourceSync, SyncedAt: now()}
	}
	if len(roll) > 0 {
		if err := d.DB.UpsertStudents(ctx, roll); err != nil {
			return nil, fmt.Errorf("uploads: add students found at the service to the roster: %w", err)
		}
	}
	d.mu.Lock()
	if d.cache == nil {
		d.cache = map[string]bool{}
	}
	for _, n := range ask {
		d.cache[n] = known[n]
	}
	d.mu.Unlock()
	return known, nil
}

// askEach asks the service for each NIS (GET /bill/{NIS}), in parallel, and returns
// those it knows.
func (d *Directory) askEach(ctx context.Context, ask []string) ([]billing.Student, error) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(d.Concurrency, 1))
	var mu sync.Mutex
	var found []billing.Student
	for _, n := range ask {
		g.Go(func() error {
			st, err := d.Client.Student(gctx, n)
			switch {
			case errors.Is(err, billing.ErrNotFound):
				return nil
			case err != nil:
				return fmt.Errorf("uploads: check NIS %s: %w", n, err)
			}
			mu.Lock()
			found = append(found, st)
			mu.Unlock()
			return nil
		})
	}
	return found, g.Wait()
}

// askList reads the service's whole student list and returns the asked ones it holds.
func (d *Directory) askList(ctx context.Context, ask []string) ([]billing.Student, error) {
	want := make(map[string]bool, len(ask))
	for _, n := range ask {
		want[n] = true
	}
	var found []billing.Student
	for st, err := range d.Client.AllStudents(ctx, billing.StudentQuery{Limit: billing.MaxStudentLimit}) {
		if err != nil {
			return nil, fmt.Errorf("uploads: list the service's students: %w", err)
		}
		if want[st.NIS] {
			want[st.NIS] = false // once, however often paging yields it
			found = append(found, st)
		}
	}
	return found, nil
}

// Finder looks for components at the service by student, name and due day. It searches
// whichever way costs fewer calls: per due day over all students (search/biller) when a
// day's components belong to many students, or per student over the days concerned
// (search/bill) when a few students have components on many days.
//
// Source is where it searches: the service (Client) when the answer decides what is sent,
// or the ledger, the portal's copy of it, for a preview that must not cost a call per
// day of the sheet; the commit searches the service again before anything is sent.
type Finder struct {
	Client *billing.Client
	// Source, when set, is searched instead of Client (a *ledger.Ledger).
	Source ComponentSource
	// Concurrency bounds the parallel searches (default 4).
	Concurrency int
}

// ComponentSource lists components as the billing client does: *billing.Client and
// *ledger.Ledger are both one.
type ComponentSource interface {
	All(ctx context.Context, q billing.Query) iter.Seq2[billing.Bill, error]
	AllForStudent(ctx context.Context, nis string, q billing.Query) iter.Seq2[billing.Bill, error]
}

// FindComponents implements ComponentFinder.
func (f *Finder) FindComponents(ctx context.Context, keys []Key) ([]bool, error) {
	found := make([]bool, len(keys))
	if len(keys) == 0 {
		return found, nil
	}
	var src ComponentSource = f.Client
	if f.Source != nil {
		src = f.Source
	}
	type want struct {
		nis, name string
		day       int32
	}
	index := make(map[want][]int, len(keys))
	days := map[int32]bool{}
	students := map[string][2]int32{} // NIS → first and last due day
	for i, k := range keys {
		d := epochDay(k.Due)
		w := want{k.NIS, nameKey(k.Name), d}
		index[w] = append(index[w], i)
		days[d] = true
		if r, ok := students[k.NIS]; !ok {
			students[k.NIS] = [2]int32{d, d}
		} else {
			students[k.NIS] = [2]int32{min(r[0], d), max(r[1], d)}
		}
	}

	var mu sync.Mutex
	match := func(b billing.Bill) {
		w := want{b.NIS, nameKey(b.Name), epochDay(b.Due)}
		if idx, ok := index[w]; ok {
			mu.Lock()
			for _, i := range idx {
				found[i] = true
			}
			mu.Unlock()
		}
	}
	// The service reads due-date filters as days in its own zone while due dates travel as
	// UTC midnight; a day of margin either side keeps a zone west of UTC from hiding one.
	span := func(from, to int32) billing.Query {
		return billing.Query{DueFrom: dayOfEpoch(from - 1), DueTo: dayOfEpoch(to + 1), Limit: billing.MaxLimit}
	}

	// Due days close together are searched as one range, so the margins never make two
	// searches read the same components.
	sorted := slices.Sorted(maps.Keys(days))
	var runs [][2]int32
	for _, d := range sorted {
		if n := len(runs); n > 0 && d-runs[n-1][1] <= 3 {
			runs[n-1][1] = d
		} else {
			runs = append(runs, [2]int32{d, d})
		}
	}

	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(f.Concurrency, 1))
	if len(students) <= len(runs) {
		for nis, r := range students {
			g.Go(func() error {
				for b, err := range src.AllForStudent(gctx, nis, span(r[0], r[1])) {
					if errors.Is(err, billing.ErrNotFound) {
						return nil // no such student: nothing of theirs exists
					}
					if err != nil {
						return fmt.Errorf("uploads: search components of %s: %w", nis, err)
					}
					match(b)
				}
				return nil
			})
		}
	} else {
		for _, r := range runs {
			g.Go(func() error {
				for b, err := range src.All(gctx, span(r[0], r[1])) {
					if err != nil {
						return fmt.Errorf("uploads: search components due %s: %w", dayOfEpoch(r[0]).Format(time.DateOnly), err)
					}
					match(b)
				}
				return nil
			})
		}
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return found, nil
}
