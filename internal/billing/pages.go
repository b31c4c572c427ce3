package billing

import (
	"fmt"
	"iter"
	"log/slog"
)

// stalledPages is how many non-empty pages in a row may bring nothing new
// before paging gives up: a service ignoring offset would otherwise loop forever.
const stalledPages = 3

// pages yields every record of a listing, page by page, from offset on.
//
// The service may cap a page below the limit asked for, silently, so a short
// page does not prove the end: paging ends only on an empty page. The first
// short page followed by a non-empty one shows the service's real page size;
// it is remembered per path, logged once, and asked for from then on, so
// that the limit sent is what the service answers.
//
// Records created while it pages push older ones down a page; their keys are
// remembered so none is yielded twice. fetch returns a page's records and how
// many the page held before any were dropped (deleted components), which is
// what tells an empty page. On an error it yields the error and stops.
func pages[T any](c *Client, path string, offset, limit, most int,
	fetch func(offset, limit int) ([]T, int, error), key func(T) string) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		if limit <= 0 || limit > most {
			limit = most
		}
		offset = max(offset, 0)
		if learned := c.learnedPageSize(path); learned > 0 && learned < limit {
			limit = learned
		}
		seen := make(map[string]struct{})
		stalled := 0
		shortPage := 0 // size of a short page not yet shown to be the end
		learned := false
		for {
			page, n, err := fetch(offset, limit)
			if err != nil {
				yield(zero, err)
				return
			}
			if n == 0 {
				return
			}
			if shortPage > 0 && !learned {
				// More came after a short page: that page was the service's cap.
				limit, learned = shortPage, true
				c.learnPageSize(path, limit)
			}
			shortPage = 0
			if n < limit {
				shortPage = n
			}
			fresh := 0
			for _, r := range page {
				k := key(r)
				if _, dup := seen[k]; dup && k != "" {
					continue
				}
				seen[k] = struct{}{}
				fresh++
				if !yield(r, nil) {
					return
				}
			}
			if fresh == 0 && n == len(page) {
				if stalled++; stalled >= stalledPages {
					yield(zero, fmt.Errorf("billing: GET %s: paging made no progress at offset %d", path, offset))
					return
				}
			} else {
				stalled = 0
			}
			offset += n
		}
	}
}

func (c *Client) learnedPageSize(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pageSize[path]
}

// learnPageSize remembers that path answers at most n records a page.
func (c *Client) learnPageSize(path string, n int) {
	c.mu.Lock()
	old := c.pageSize[path]
	if old == 0 || n < old {
		c.pageSize[path] = n
	}
	c.mu.Unlock()
	if old == 0 || n < old {
		c.log.Info("billing: the service answers at most "+fmt.Sprint(n)+" records a page; paging by that",
			slog.String("path", path), slog.Int("page_size", n))
	}
}
