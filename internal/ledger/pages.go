package ledger

import (
	"context"
	"iter"
)

// How the ledger's iterators read (All, AllForStudent, Payments): a page of iterPage
// rows at a time, each page a query of its own that starts exactly after the last row of
// the one before (keyset paging: the row's place in the order, compared as a row value,
// never an OFFSET and never the range's first day again), so no query stays open while
// the caller works and every page costs the same however far the walk has come. Each
// such query is one range of an index whose order is the iterator's order (EXPLAIN QUERY
// PLAN: a SEARCH with the keyset bound, no TEMP B-TREE; TestIteratorQueriesAreIndexRanges
// keeps it so), so reading n rows costs n, not n²/iterPage. Only what is small is sorted:
// one student's components, one payment day's (a range of days is merged from one
// stream per day: iter.go's byDay). EachBill, whose order is any of the bills list's,
// reads its result's ids in order once instead (bills.go).
//
// The pages are read one ahead of the caller, by a goroutine: while an export writes
// one page the next is being read, on the other core. The channel between them holds
// one page, so at most three pages are in memory (the caller's, the one waiting, the one
// being read), whatever the walk's length; the caller gives each page's slice back once
// it has yielded its rows, and the next page is read into it (less for the collector to
// do beside the caller's own work).

// iterPage is how many rows each query of an iterator reads.
const iterPage = 1000

// page reads the page after last (nil: the first page), at most iterPage rows, appended
// to into (empty; its room is a page the caller is done with).
type page[R any] func(ctx context.Context, last *R, into []R) ([]R, error)

// readAhead yields every row of the pages read reads, in order, reading the next page
// while the caller handles the current one. It stops after a page shorter than iterPage,
// on the first error (yielded once), or when the caller stops; it returns only once
// its goroutine has ended.
func readAhead[R any](ctx context.Context, read page[R]) iter.Seq2[R, error] {
	return func(yield func(R, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		type result struct {
			rows []R
			err  error
		}
		pages := make(chan result, 1)
		// stop says the caller stopped; ctx ending is not that: its error is a page's
		// error, which the caller gets.
		stop := make(chan struct{})
		free := make(chan []R, 3) // pages the caller is done with
		go func() {
			defer close(pages)
			var last *R
			for {
				var into []R
				select {
				case into = <-free:
				default:
				}
				rows, err := read(ctx, last, into)
				more := err == nil && len(rows) == iterPage
				if more {
					// Copied before the page is sent: the caller may be done with it, and
					// give it back cleared, before this goroutine looks again.
					end := rows[len(rows)-1]
					last = &end
				}
				select {
				case pages <- result{rows, err}:
				case <-stop:
					return
				}
				if !more {
					return
				}
			}
		}()
		defer func() {
			close(stop)
			cancel()          // a query under way ends
			for range pages { // the goroutine's last page, if it was sending one
			}
		}()
		for p := range pages {
			if p.err != nil {
				var zero R
				yield(zero, p.err)
				return
			}
			for _, r := range p.rows {
				if !yield(r, nil) {
					return
				}
			}
			clear(p.rows) // no strings kept alive by a page waiting to be reused
			select {
			case free <- p.rows[:0]:
			default:
			}
		}
	}
}
