package billing

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// ComponentInput is one component to upload. Dates are calendar days: each
// is sent as its own Y-M-D (in the value's location) at UTC midnight.
type ComponentInput struct {
	NIS         string
	AccountCode string
	Name        string
	Due         time.Time
	Expiry      time.Time
	Active      time.Time // zero: active at once
	Amount      int64
	Penalty     int64
	Notes       string
}

func (in ComponentInput) wire() wireComponent {
	return wireComponent{
		NIS:         in.NIS,
		AccountCode: in.AccountCode,
		Name:        in.Name,
		Expiry:      dayStamp(in.Expiry),
		Due:         dayStamp(in.Due),
		Active:      dayStamp(in.Active),
		Amount:      in.Amount,
		Penalty:     in.Penalty,
		Notes:       in.Notes,
	}
}

// CreateComponents uploads all the components or none
// (POST /bill_component/batch); a rejected batch is an *APIError whose
// Items say which ones and why.
func (c *Client) CreateComponents(ctx context.Context, components []ComponentInput) ([]Bill, error) {
	list := make([]wireComponent, len(components))
	for i, in := range components {
		list[i] = in.wire()
	}
	in := struct {
		List []wireComponent `json:"bill_upload_list"`
	}{list}
	var out []readBill
	if err := c.call(ctx, http.MethodPost, "/bill_component/batch", nil, in, &out); err != nil {
		return nil, err
	}
	return bills(out), nil
}

// Query filters a search; zero fields are left out. Dates are calendar
// days: each is sent as its own Y-M-D (the service reads them in its zone).
type Query struct {
	State       State
	AccountCode string
	RefNumber   string
	Notes       string
	PaidFrom    time.Time // start_payment_date, inclusive
	PaidTo      time.Time // end_payment_date, inclusive
	DueFrom     time.Time // start_due_date, inclusive
	DueTo       time.Time // end_due_date, inclusive
	Offset      int
	Limit       int // 0: the service's default (50); at most MaxLimit
}

func (q Query) values() url.Values {
	v := url.Values{}
	set := func(key, val string) {
		if val != "" {
			v.Set(key, val)
		}
	}
	set("state", string(q.State))
	set("account_code", q.AccountCode)
	set("ref_number", q.RefNumber)
	set("notes", q.Notes)
	set("start_payment_date", queryDate(q.PaidFrom))
	set("end_payment_date", queryDate(q.PaidTo))
	set("start_due_date", queryDate(q.DueFrom))
	set("end_due_date", queryDate(q.DueTo))
	if q.Offset != 0 {
		v.Set("offset", strconv.Itoa(q.Offset))
	}
	if q.Limit != 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	return v
}

const (
	pathSearchBiller = "/bill_component/search/biller"
	pathSearchBill   = "/bill_component/search/bill"
)

// Search lists components of all students, newest first
// (GET /bill_component/search/biller). Deleted components are left out.
func (c *Client) Search(ctx context.Context, q Query) ([]Bill, error) {
	bs, _, err := c.search(ctx, pathSearchBiller, q.values())
	return bs, err
}

// StudentBills lists one student's components, newest first
// (GET /bill_component/search/bill?bill_key=NIS); ErrNotFound when the student is unknown.
func (c *Client) StudentBills(ctx context.Context, nis string, q Query) ([]Bill, error) {
	v, err := studentQuery(nis, q)
	if err != nil {
		return nil, err
	}
	bs, _, err := c.search(ctx, pathSearchBill, v)
	return bs, err
}

func studentQuery(nis string, q Query) (url.Values, error) {
	if nis == "" {
		return nil, invalidInput("empty NIS")
	}
	v := q.values()
	v.Set("bill_key", nis)
	return v, nil
}

// search returns the page's bills and how many records the page held
// before deleted ones were dropped, which is what tells a short page.
func (c *Client) search(ctx context.Context, path string, v url.Values) ([]Bill, int, error) {
	var out []readBill
	if err := c.call(ctx, http.MethodGet, path, v, nil, &out); err != nil {
		return nil, 0, err
	}
	return bills(out), len(out), nil
}

// All yields every component matching q across pages (Query.Limit per
// page, MaxLimit when unset), starting at q.Offset. Bills created while it
// pages push older ones down a page; their IDs are remembered so none is
// yielded twice. On an error it yields the error and stops.
func (c *Client) All(ctx context.Context, q Query) iter.Seq2[Bill, error] {
	return c.pages(ctx, pathSearchBiller, q, func(q Query) (url.Values, error) { return q.values(), nil })
}

// AllForStudent is All over one student's components.
func (c *Client) AllForStudent(ctx context.Context, nis string, q Query) iter.Seq2[Bill, error] {
	return c.pages(ctx, pathSearchBill, q, func(q Query) (url.Values, error) { return studentQuery(nis, q) })
}

// stalledPages is how many full pages in a row may bring nothing new before
// paging gives up: a service ignoring offset would otherwise loop forever.
const stalledPages = 3

func (c *Client) pages(ctx context.Context, path string, q Query, values func(Query) (url.Values, error)) iter.Seq2[Bill, error] {
	return func(yield func(Bill, error) bool) {
		if q.Limit <= 0 {
			q.Limit = MaxLimit
		}
		seen := make(map[string]struct{})
		stalled := 0
		for {
			v, err := values(q)
			if err != nil {
				yield(Bill{}, err)
				return
			}
			page, n, err := c.search(ctx, path, v)
			if err != nil {
				yield(Bill{}, err)
				return
			}
			fresh := 0
			for _, b := range page {
				if _, dup := seen[b.ComponentID]; dup && b.ComponentID != "" {
					continue
				}
				seen[b.ComponentID] = struct{}{}
				fresh++
				if !yield(b, nil) {
					return
				}
			}
			if n < q.Limit {
				return
			}
			if fresh == 0 && n == len(page) {
				if stalled++; stalled >= stalledPages {
					yield(Bill{}, fmt.Errorf("billing: GET %s: paging made no progress at offset %d", path, q.Offset))
					return
				}
			} else {
				stalled = 0
			}
			q.Offset += n
		}
	}
}

// Payment records money received for some of one student's components.
type Payment struct {
	NIS          string
	RefNumber    string // biller_ref_number; becomes the records' ref_number
	ComponentIDs []string
}

// Pay records a payment of all the listed components or none
// (POST /bill_component/pay) and returns the paid records. The service
// charges the penalty when late and refuses expired, already paid or not
// yet active components (ErrValidation).
func (c *Client) Pay(ctx context.Context, p Payment) ([]Bill, error) {
	ids := p.ComponentIDs
	if ids == nil {
		ids = []string{}
	}
	in := struct {
		NIS       string   `json:"bill_key"`
		RefNumber string   `json:"biller_ref_number"`
		IDs       []string `json:"bill_component_list"`
	}{p.NIS, p.RefNumber, ids}
	var out []readBill
	if err := c.call(ctx, http.MethodPost, "/bill_component/pay", nil, in, &out); err != nil {
		return nil, err
	}
	return bills(out), nil
}
