package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/store"
)

// walkPage is one page of a full walk: its records, the offset it was read at and the
// offset of the next page.
type walkPage struct {
	bills        []billing.Bill
	offset, next int
	err          error
}

// walk reads every component newest first from offset from, one page after another
// (up to FillConcurrency pages in flight, so the service's latency is paid once per
// FillConcurrency pages), and hands the pages to fn in order. It ends on the first empty
// page. The first page sets the stride: a service that caps pages below MaxLimit
// answers its cap. It holds a few pages at a time, never the whole walk.
func (s *Syncer) walk(ctx context.Context, from int, r *RunResult, seen *int, fn func(p walkPage) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	fetch := func(offset int) walkPage {
		bills, err := s.client.Search(ctx, billing.Query{Offset: offset, Limit: billing.MaxLimit})
		return walkPage{bills: bills, offset: offset, err: err}
	}
	first := fetch(from)
	r.Calls++
	if first.err != nil {
		return first.err
	}
	first.next = from + len(first.bills)
	if len(first.bills) == 0 {
		return fn(first)
	}
	*seen = max(*seen, len(first.bills))
	stride := min(len(first.bills), billing.MaxLimit)
	if err := fn(first); err != nil {
		return err
	}

	// Pages after the first, each at its own offset, fetched ahead and handed on in order.
	k := max(s.cfg.FillConcurrency, 1)
	inflight := make([]chan walkPage, 0, k)
	nextOffset := first.next
	launch := func() {
		ch := make(chan walkPage, 1)
		off := nextOffset
		nextOffset += stride
		go func() { ch <- fetch(off) }()
		inflight = append(inflight, ch)
	}
	for range k {
		launch()
	}
	// The pages still in flight when the walk ends are cancelled and waited for: no
	// call of this walk reaches the service after it returns.
	defer func() {
		cancel()
		for _, ch := range inflight {
			<-ch
		}
	}()
	for {
		p := <-inflight[0]
		inflight = inflight[1:]
		r.Calls++
		if p.err != nil {
			return p.err
		}
		p.next = p.offset + stride
		if len(p.bills) == 0 {
			return fn(p)
		}
		*seen = max(*seen, len(p.bills))
		launch()
		if err := fn(p); err != nil {
			return err
		}
	}
}

// countAll finds about how many components the service holds (it has no count), for a
// first fill's progress: the first offset where a page of one record is empty, by
// doubling from a page and then halving the gap to within a hundredth. A million
// components cost about twenty calls of one record each, once; a school of one page
// costs one call and no count (0: the fill is one page, nothing to show progress of).
func (s *Syncer) countAll(ctx context.Context, r *RunResult) (int, error) {
	exists := func(offset int) (bool, error) {
		page, err := s.client.Search(ctx, billing.Query{Offset: offset, Limit: 1})
		r.Calls++
		return len(page) > 0, err
	}
	lo, hi := 0, billing.MaxLimit // a record at lo (or lo is 0); none at hi once the doubling ends
	for {
		ok, err := exists(hi)
		if err != nil {
			return 0, err
		}
		if !ok {
			break
		}
		lo, hi = hi, hi*2
	}
	if lo == 0 {
		return 0, nil
	}
	for hi-lo > max(hi/100, 1) {
		mid := lo + (hi-lo)/2
		ok, err := exists(mid)
		if err != nil {
			return 0, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil
}

// fillBatch is how many components a first fill writes per transaction.
const fillBatch = 5000

// fill reads every student and every component into an empty ledger, storing its
// progress with each page so a fill that stops (a restart, an outage) resumes where it
// was; pages answer from what is there meanwhile, and Freshness says it is filling.
func (s *Syncer) fill(ctx context.Context, st syncState, r *RunResult) error {
	start := st.fillStart
	if st.fill == FillEmpty || start.IsZero() {
		start = r.Start
		if err := s.l.setState(ctx, s.l.sql, `fill_state = $1, fill_started_at = $2, fill_offset = 0, fill_read = 0`,
			FillFilling, store.Time(start)); err != nil {
			return err
		}
		st.fillOffset, st.fillRead = 0, 0
		// How many there are to read, for the pages' "still filling: 41%".
		total, err := s.countAll(ctx, r)
		if err != nil {
			return fmt.Errorf("first fill: count the components: %w", err)
		}
		if err := s.l.setState(ctx, s.l.sql, `fill_total = $1`, total); err != nil {
			return err
		}
	}
	if err := s.allStudents(ctx, &st, r, nil); err != nil {
		return err
	}
	// Pages are written a few at a time: one transaction per fillBatch components
	// rewrites each index page far less often than one per page.
	read := st.fillRead
	var pending []billing.Bill
	next := st.fillOffset
	flush := func() error {
		res, err := s.l.upsertWith(ctx, pending, func(tx *sql.Tx, _ []change) error {
			return s.l.setState(ctx, tx, `fill_offset = $1, fill_read = $2, search_page = $3`, next, read, st.searchPage)
		})
		r.Components.add(res)
		pending = pending[:0]
		return err
	}
	err := s.walk(ctx, st.fillOffset, r, &st.searchPage, func(p walkPage) error {
		pending = append(pending, p.bills...)
		read += len(p.bills)
		next = p.next
		if len(pending) >= fillBatch || len(p.bills) == 0 {
			return flush()
		}
		return nil
	})
	if err != nil && len(pending) > 0 {
		// Keep what was read before the failure: the resumed fill starts after it.
		if ferr := flush(); ferr != nil {
			s.log.Warn("ledger fill: keep the pages read before a failure", "err", ferr)
		}
	}
	if err != nil {
		return fmt.Errorf("first fill: %w", err)
	}
	// The fill read everything there was when it started: it counts as a reconcile.
	if err := s.l.setState(ctx, s.l.sql, `fill_state = $1, fill_done_at = $2, payments_since = $3, reconciled_at = $3,
		student_page = $4`, FillFilled, store.Time(s.l.now()), store.Time(start), st.studentPage); err != nil {
		return err
	}
	s.l.analyze(ctx)
	return nil
}

// analyze refreshes the query planner's statistics after a bulk change, so SQLite picks
// the right index for each page (PostgreSQL's autovacuum does this on its own).
func (l *Ledger) analyze(ctx context.Context) {
	if l.postgre {
		return
	}
	if _, err := l.sql.ExecContext(ctx, `ANALYZE`); err != nil {
		l.log.Warn("ledger: analyze", "err", err)
	}
}

// allStudents reads the whole student list into the roster; with audit (a reconcile)
// it also removes roster entries the service no longer lists and audits each change.
func (s *Syncer) allStudents(ctx context.Context, st *syncState, r *RunResult, audit *auditor) error {
	listed := map[string]bool{}
	offset := 0
	for {
		page, err := s.client.ListStudents(ctx, billing.StudentQuery{Offset: offset, Limit: billing.MaxStudentLimit})
		r.Calls++
		if err != nil {
			return fmt.Errorf("student list: %w", err)
		}
		if len(page) == 0 {
			break
		}
		st.studentPage = max(st.studentPage, len(page))
		for _, p := range page {
			listed[p.NIS] = true
		}
		_, changed, err := s.l.upsertStudents(ctx, page, audit)
		if err != nil {
			return err
		}
		r.Students += changed
		offset += len(page)
	}
	if audit == nil {
		return nil
	}
	// Roster entries the whole list did not name: each is asked for on its own (one the
	// portal registered while the list was read is there), and removed when the service
	// does not know it.
	var gone []store.Student
	if err := s.l.db.AllStudents(ctx, func(st store.Student) error {
		if !listed[st.NIS] {
			gone = append(gone, st)
		}
		return nil
	}); err != nil {
		return err
	}
	for _, g := range gone {
		found, err := s.client.Student(ctx, g.NIS)
		r.Calls++
		switch {
		case err == nil:
			_, changed, err := s.l.upsertStudents(ctx, []billing.Student{found}, audit)
			if err != nil {
				return err
			}
			r.Students += changed
			continue
		case !errors.Is(err, billing.ErrNotFound):
			return fmt.Errorf("student %s: %w", g.NIS, err)
		}
		err = s.l.writeTx(ctx, func(tx *sql.Tx) error {
			if err := store.DeleteStudentTx(ctx, tx, g.NIS); err != nil {
				return err
			}
			if err := audit.student(ctx, tx, g.NIS, fmt.Sprintf("%s (NIS %s) is no longer at the service: removed from the student list", g.Name, g.NIS)); err != nil {
				return err
			}
			return bumpChanges(ctx, tx)
		})
		if err != nil {
			return err
		}
		r.Removed++
	}
	return nil
}

// key is a component's place in the service's order (newest first: created_at, then id).
type key struct {
	created int64
	id      string
}

func (a key) less(b key) bool { return a.created < b.created || a.created == b.created && a.id < b.id }

// reconcile walks everything the service holds and makes the ledger say the same:
// each page is compared with the ledger's rows in the same stretch of the order, so a
// component the ledger has but the walk did not meet (deleted at the service, or moved
// past a page boundary while the walk ran) is looked up on its own. Every corrected
// difference is audited in the transaction that corrects it.
func (s *Syncer) reconcile(ctx context.Context, st syncState, r *RunResult) error {
	audit := &auditor{l: s.l}
	if err := s.allStudents(ctx, &st, r, audit); err != nil {
		return err
	}
	var above *key // the lowest key of the pages so far: this page's stretch ends there
	err := s.walk(ctx, 0, r, &st.searchPage, func(p walkPage) error {
		var low *key
		if len(p.bills) > 0 {
			k := key{micros(p.bills[0].CreatedAt), p.bills[0].ComponentID}
			for _, b := range p.bills[1:] {
				if kb := (key{micros(b.CreatedAt), b.ComponentID}); kb.less(k) {
					k = kb
				}
			}
			low = &k
		}
		stretch, err := s.l.idsBetween(ctx, low, above)
		if err != nil {
			return err
		}
		res, err := s.l.upsertWith(ctx, p.bills, func(tx *sql.Tx, changes []change) error {
			return audit.changes(ctx, tx, changes, r)
		})
		if err != nil {
			return err
		}
		r.Components.add(res)
		inPage := make(map[string]bool, len(p.bills))
		for _, b := range p.bills {
			inPage[b.ComponentID] = true
		}
		var missing []string
		for _, id := range stretch {
			if !inPage[id] {
				missing = append(missing, id)
			}
		}
		if err := s.lookUp(ctx, missing, r, audit); err != nil {
			return err
		}
		if low != nil {
			above = low
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("reconcile: %w", err)
	}
	if err := s.l.setState(ctx, s.l.sql, `reconciled_at = $1, payments_since = $1, search_page = $2, student_page = $3,
		reconcile_asked_at = CASE WHEN reconcile_asked_at <= $1 THEN NULL ELSE reconcile_asked_at END`,
		store.Time(r.Start), st.searchPage, st.studentPage); err != nil {
		return err
	}
	if err := audit.run(ctx, r); err != nil {
		return err
	}
	s.l.optimize(ctx)
	return nil
}

// Optimize refreshes the query planner's statistics where they are missing or have
// drifted (SQLite's PRAGMA optimize over every table: an index no ANALYZE has seen, or a
// table that grew or shrank many times over since), and is cheap when nothing has. The
// Syncer runs it after every reconcile (and a full ANALYZE after a first fill), so a
// ledger that grew through syncs and uploads is analysed too; a ledger filled another
// way (a test's, a benchmark's) calls it to be analysed like a live one. PostgreSQL's
// autovacuum analyses on its own.
func (l *Ledger) Optimize(ctx context.Context) error {
	if l.postgre {
		return nil
	}
	// 0x10002: analyse the tables that need it, every table checked, not only those this
	// connection has queried (a pooled connection may have queried none); no analysis
	// limit, whose sample of the leading column misreads kind (a few open rows among a
	// million paid ones) and with it the plans.
	if _, err := l.sql.ExecContext(ctx, `PRAGMA optimize=0x10002`); err != nil {
		return fmt.Errorf("ledger: optimize: %w", err)
	}
	return nil
}

// optimize is Optimize for the Syncer, which logs a failure and goes on.
func (l *Ledger) optimize(ctx context.Context) {
	if err := l.Optimize(ctx); err != nil {
		l.log.Warn("ledger: refresh the planner's statistics", "err", err)
	}
}

// analyzeNewIndexes gives statistics to the indexes of an analysed ledger that have
// none (one a migration added since the last ANALYZE), each on its own: a read of that
// index, not of the whole table, which PRAGMA optimize would analyse, holding the write
// lock for seconds at a million components in the middle of a school day. The Syncer
// runs it once per start; the drift of the others waits for the night's reconcile.
func (l *Ledger) analyzeNewIndexes(ctx context.Context) {
	if l.postgre {
		return
	}
	var analysed int
	if err := l.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE name = 'sqlite_stat1'`).Scan(&analysed); err != nil || analysed == 0 {
		return // never analysed: the first fill does it, whole
	}
	rows, err := l.sql.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL
		AND tbl_name IN (SELECT tbl FROM sqlite_stat1) AND name NOT IN (SELECT idx FROM sqlite_stat1 WHERE idx IS NOT NULL)`)
	if err != nil {
		l.log.Warn("ledger: indexes without statistics", "err", err)
		return
	}
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err == nil {
			names = append(names, name)
		}
	}
	rows.Close()
	for _, name := range names {
		// An index's name is an identifier of the schema, quoted as one.
		if _, err := l.sql.ExecContext(ctx, `ANALYZE "`+strings.ReplaceAll(name, `"`, `""`)+`"`); err != nil {
			l.log.Warn("ledger: analyse a new index", "index", name, "err", err)
		}
	}
}

// idsBetween lists the ids of the ledger's components (deleted ones left out) with a
// key from low (inclusive) up to above (exclusive); nil bounds are open.
func (l *Ledger) idsBetween(ctx context.Context, low, above *key) ([]string, error) {
	var w where
	w.add("kind <> 2")
	// Row values: both bounds are one range of the created index.
	if low != nil {
		w.add("(created_us, id) >= (?, ?)", low.created, low.id)
	}
	if above != nil {
		w.add("(created_us, id) < (?, ?)", above.created, above.id)
	}
	rows, err := l.sql.QueryContext(ctx, `SELECT id FROM ledger_components`+w.sql(), w.args...)
	if err != nil {
		return nil, fmt.Errorf("ledger: components in a stretch: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// lookUp fetches components one by one (a walk did not meet them): each record found,
// deleted ones included, is written; one the service does not know is marked deleted.
func (s *Syncer) lookUp(ctx context.Context, ids []string, r *RunResult, audit *auditor) error {
	for _, id := range ids {
		b, err := s.client.GetComponent(ctx, id)
		r.Calls++
		r.Missing++
		switch {
		case errors.Is(err, billing.ErrNotFound):
			err = s.l.writeTx(ctx, func(tx *sql.Tx) error {
				_, changes, err := s.l.markDeletedTx(ctx, tx, []string{id}, true)
				if err != nil {
					return err
				}
				return audit.changes(ctx, tx, changes, r)
			})
		case err == nil:
			var res WriteResult
			res, err = s.l.upsertWith(ctx, []billing.Bill{b}, func(tx *sql.Tx, changes []change) error {
				return audit.changes(ctx, tx, changes, r)
			})
			r.Components.add(res)
		}
		if err != nil {
			return fmt.Errorf("look up component %s: %w", id, err)
		}
	}
	return nil
}

// auditor writes the reconcile's audit entries.
type auditor struct {
	l *Ledger
}

// The audit actions the ledger writes; the actor is the service or the sync, not a person.
const (
	ActionReconcile          = "ledger.reconcile"           // a reconcile ended: what it found
	ActionReconcileComponent = "ledger.reconcile.component" // a component corrected
	ActionReconcileStudent   = "ledger.reconcile.student"   // a roster entry corrected
	ActionCallback           = "ledger.callback"            // a payment callback confirmed by the service
	ActorSync                = "ledger-sync"
	ActorService             = "billing-service"
	ActorRole                = "system"
)

func (a *auditor) entry(ctx context.Context, tx *sql.Tx, action, target, detail string) error {
	return store.AppendAuditTx(ctx, tx, store.AuditEntry{At: a.l.now(), Actor: ActorSync, ActorRole: ActorRole,
		Action: action, Target: target, Outcome: "ok", Detail: truncate(detail, 1000)})
}

func (a *auditor) student(ctx context.Context, tx *sql.Tx, nis, detail string) error {
	return a.entry(ctx, tx, ActionReconcileStudent, nis, detail)
}

// changes audits each corrected difference (not a state that only follows the date,
// nor a student's name, which the student's own entry covers).
func (a *auditor) changes(ctx context.Context, tx *sql.Tx, changes []change, r *RunResult) error {
	for _, c := range changes {
		detail := componentDiff(c, a.l.loc)
		if detail == "" {
			continue
		}
		if err := a.entry(ctx, tx, ActionReconcileComponent, c.new.NIS, detail); err != nil {
			return err
		}
		r.Corrected++
	}
	return nil
}

// run audits the reconcile itself: what it looked at and corrected.
func (a *auditor) run(ctx context.Context, r *RunResult) error {
	return a.l.db.AppendAudit(ctx, store.AuditEntry{At: a.l.now(), Actor: ActorSync, ActorRole: ActorRole,
		Action: ActionReconcile, Target: "ledger", Outcome: "ok", Detail: "full reconcile with the billing service: " + r.Summary()})
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
