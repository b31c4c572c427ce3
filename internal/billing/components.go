package billing

import (
	"cmp"
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
	if err := c.call(ctx, "CreateComponents", http.MethodPost, "/bill_component/batch", nil, in, &out); err != nil {
		return nil, err
	}
	return bills(out, c.ServiceZone(), false), nil
}

// CreateComponent uploads one component (POST /bill_component) and returns
// its record; the Bill is zero (no ComponentID) when the service sent none back.
func (c *Client) CreateComponent(ctx context.Context, in ComponentInput) (Bill, error) {
	var out readBill
	if err := c.call(ctx, "CreateComponent", http.MethodPost, "/bill_component", nil, in.wire(), &out); err != nil {
		return Bill{}, err
	}
	if out.ComponentID == "" {
		return Bill{}, nil
	}
	return out.bill(c.ServiceZone()), nil
}

// GetComponent fetches one component record whatever its state, deleted
// included (GET /bill_component/get/{id}); ErrNotFound when unknown.
func (c *Client) GetComponent(ctx context.Context, id string) (Bill, error) {
	if id == "" {
		return Bill{}, invalidInput("empty component id")
	}
	var out readBill
	if err := c.call(ctx, "GetComponent", http.MethodGet, "/bill_component/get/"+url.PathEscape(id), nil, nil, &out); err != nil {
		return Bill{}, err
	}
	if out.ComponentID == "" {
		return Bill{}, fmt.Errorf("billing: GET /bill_component/get/%s: the service answered no record", url.PathEscape(id))
	}
	return out.bill(c.ServiceZone()), nil
}

// ComponentUpdate changes some fields of a component; nil fields keep their
// value. Dates are calendar days as in ComponentInput; Active pointing at
// the zero time removes the active date.
type ComponentUpdate struct {
	AccountCode *string
	Name        *string
	Due         *time.Time
	Expiry      *time.Time
	Active      *time.Time
	Amount      *int64
	Penalty     *int64
	Notes       *string
	// UpdatedBy is sent as last_update_by (who made the change); empty: the username.
	UpdatedBy string
}

// UpdateComponent changes a provisioned or expired component
// (PUT /bill_component) and returns the updated record. A paid or deleted
// one is refused (ErrValidation); a new expiry in the future makes an
// expired component payable again.
func (c *Client) UpdateComponent(ctx context.Context, id string, u ComponentUpdate) (Bill, error) {
	if id == "" {
		return Bill{}, invalidInput("empty component id")
	}
	in := map[string]any{
		"id":             id,
		"biller_code":    c.username,
		"last_update_by": cmp.Or(u.UpdatedBy, c.username),
	}
	setText := func(key string, v *string) {
		if v != nil {
			in[key] = *v
		}
	}
	setDay := func(key string, v *time.Time) {
		if v != nil {
			in[key] = dayStamp(*v)
		}
	}
	setText("account_code", u.AccountCode)
	setText("bill_component_name", u.Name)
	setText("notes", u.Notes)
	setDay("due_date", u.Due)
	setDay("expiry_date", u.Expiry)
	setDay("active_date", u.Active)
	if u.Amount != nil {
		in["amount"] = *u.Amount
	}
	if u.Penalty != nil {
		in["penalty_amount"] = *u.Penalty
	}
	var out readBill
	if err := c.call(ctx, "UpdateComponent", http.MethodPut, "/bill_component", nil, in, &out); err != nil {
		return Bill{}, err
	}
	if out.ComponentID == "" {
		// Updated, but no record came back: read it.
		return c.GetComponent(ctx, id)
	}
	return out.bill(c.ServiceZone()), nil
}

// ComponentDeletion names components to delete together.
type ComponentDeletion struct {
	ComponentIDs []string
	// TransferRef is sent as transfer_ref (the provider's clients send "").
	TransferRef string
	// UpdatedBy is sent as update_by (who deleted them); empty: the username.
	UpdatedBy string
}

// DeleteComponents deletes all the listed components or none
// (POST /bill_component/delete) and returns their records, now in
// StateDeleted. Paid components cannot be deleted (ErrValidation): payment
// history is kept.
func (c *Client) DeleteComponents(ctx context.Context, d ComponentDeletion) ([]Bill, error) {
	ids := d.ComponentIDs
	if ids == nil {
		ids = []string{}
	}
	in := struct {
		IDs         []string `json:"bill_component_id"`
		TransferRef string   `json:"transfer_ref"`
		UpdatedBy   string   `json:"update_by"`
	}{ids, d.TransferRef, cmp.Or(d.UpdatedBy, c.username)}
	var out []readBill
	if err := c.call(ctx, "DeleteComponents", http.MethodPost, "/bill_component/delete", nil, in, &out); err != nil {
		return nil, err
	}
	return bills(out, c.ServiceZone(), true), nil
}

// Query filters a search; zero fields are left out. DueFrom and DueTo are
// component days, sent as their own Y-M-D. PaidFrom and PaidTo are days of
// the school, in the configured zone: when the service counts its days in
// another zone (ServiceZone), the client asks for the service days that cover
// them; either way it keeps only the components paid within them (see search).
type Query struct {
	State       State // StateDeleted lists deleted components, which are otherwise left out
	AccountCode string
	RefNumber   string
	Notes       string
	PaidFrom    time.Time // start_payment_date, inclusive
	PaidTo      time.Time // end_payment_date, inclusive
	DueFrom     time.Time // start_due_date, inclusive
	DueTo       time.Time // end_due_date, inclusive
	Offset      int       // below 0 is sent as 0
	Limit       int       // 0: the service's default (50); above MaxLimit is sent as MaxLimit
}

// values is the query string of q; zone is the service's, loc the school's.
func (q Query) values(loc, zone *time.Location) url.Values {
	v := url.Values{}
	set := func(key, val string) {
		if val != "" {
			v.Set(key, val)
		}
	}
	from, to := serviceDays(q.PaidFrom, q.PaidTo, loc, zone)
	set("state", string(q.State))
	set("account_code", q.AccountCode)
	set("ref_number", q.RefNumber)
	set("notes", q.Notes)
	set("start_payment_date", from)
	set("end_payment_date", to)
	set("start_due_date", queryDate(q.DueFrom))
	set("end_due_date", queryDate(q.DueTo))
	setPage(v, q.Offset, q.Limit, MaxLimit)
	return v
}

// serviceDays turns a range of school days (in loc) into the service's days
// (in zone) that cover it: the first day's first instant and the last day's
// last instant, each as a date in zone. In one zone they are the days as given.
func serviceDays(from, to time.Time, loc, zone *time.Location) (string, string) {
	if loc == zone || loc.String() == zone.String() {
		return queryDate(from), queryDate(to)
	}
	start, end := "", ""
	if !from.IsZero() {
		y, m, d := from.Date()
		start = time.Date(y, m, d, 0, 0, 0, 0, loc).In(zone).Format("20060102")
	}
	if !to.IsZero() {
		y, m, d := to.Date()
		end = time.Date(y, m, d+1, 0, 0, 0, 0, loc).Add(-time.Nanosecond).In(zone).Format("20060102")
	}
	return start, end
}

// keep is what a search of q keeps of the service's records: deleted ones
// only when asked for, and, with a paid range, what was paid within it in
// the school's zone.
func (c *Client) keep(q Query) func(Bill) bool {
	keepDeleted := q.State == StateDeleted
	from, to := -1<<31, 1<<31
	if !q.PaidFrom.IsZero() {
		from = civil(q.PaidFrom.Date())
	}
	if !q.PaidTo.IsZero() {
		to = civil(q.PaidTo.Date())
	}
	paidRange := !q.PaidFrom.IsZero() || !q.PaidTo.IsZero()
	return func(b Bill) bool {
		if b.State == StateDeleted && !keepDeleted {
			return false
		}
		if paidRange && !b.PaidAt.IsZero() {
			if day := localDay(b.PaidAt.In(c.loc)); day < from || day > to {
				return false
			}
		}
		return true
	}
}

// setPage adds offset and limit, clamped to what the service answers: no
// negative offset, no limit above most (a negative limit is the default).
func setPage(v url.Values, offset, limit, most int) {
	if offset > 0 {
		v.Set("offset", strconv.Itoa(offset))
	}
	if limit > 0 {
		v.Set("limit", strconv.Itoa(min(limit, most)))
	}
}

const (
	pathSearchBiller = "/bill_component/search/biller"
	pathSearchBill   = "/bill_component/search/bill"
)

// Search lists components of all students, newest first
// (GET /bill_component/search/biller). Deleted components are left out
// unless q.State is StateDeleted; so is, with a paid range, what the
// service returned from outside it (see Query): a page may hold fewer than
// q.Limit records before the end.
func (c *Client) Search(ctx context.Context, q Query) ([]Bill, error) {
	bs, _, err := c.search(ctx, "Search", pathSearchBiller, c.values(q), c.keep(q))
	return bs, err
}

// StudentBills lists one student's components, newest first
// (GET /bill_component/search/bill?bill_key=NIS); ErrNotFound when the student is unknown.
func (c *Client) StudentBills(ctx context.Context, nis string, q Query) ([]Bill, error) {
	v, err := c.studentQuery(nis, q)
	if err != nil {
		return nil, err
	}
	bs, _, err := c.search(ctx, "StudentBills", pathSearchBill, v, c.keep(q))
	return bs, err
}

// values is q's query string for this client's zones.
func (c *Client) values(q Query) url.Values { return q.values(c.loc, c.ServiceZone()) }

func (c *Client) studentQuery(nis string, q Query) (url.Values, error) {
	if nis == "" {
		return nil, invalidInput("empty NIS")
	}
	v := c.values(q)
	v.Set("bill_key", nis)
	return v, nil
}

// search returns the page's records that keep accepts, and how many records
// the page held before any were left out, which is what tells an empty page.
func (c *Client) search(ctx context.Context, endpoint, path string, v url.Values, keep func(Bill) bool) ([]Bill, int, error) {
	var out []readBill
	if err := c.call(ctx, endpoint, http.MethodGet, path, v, nil, &out); err != nil {
		return nil, 0, err
	}
	zone := c.ServiceZone()
	list := make([]Bill, 0, len(out))
	for _, r := range out {
		if b := r.bill(zone); keep(b) {
			list = append(list, b)
		}
	}
	return list, len(out), nil
}

// All yields every component matching q across pages, starting at
// q.Offset, as described at pages (Query.Limit per page, MaxLimit when unset).
func (c *Client) All(ctx context.Context, q Query) iter.Seq2[Bill, error] {
	return c.allBills(ctx, "All", pathSearchBiller, q, func(q Query) (url.Values, error) { return c.values(q), nil })
}

// AllForStudent is All over one student's components.
func (c *Client) AllForStudent(ctx context.Context, nis string, q Query) iter.Seq2[Bill, error] {
	return c.allBills(ctx, "AllForStudent", pathSearchBill, q, func(q Query) (url.Values, error) { return c.studentQuery(nis, q) })
}

func (c *Client) allBills(ctx context.Context, endpoint, path string, q Query, values func(Query) (url.Values, error)) iter.Seq2[Bill, error] {
	keep := c.keep(q)
	fetch := func(offset, limit int) ([]Bill, int, error) {
		q.Offset, q.Limit = offset, limit
		v, err := values(q)
		if err != nil {
			return nil, 0, err
		}
		return c.search(ctx, endpoint, path, v, keep)
	}
	return pages(c, path, q.Offset, q.Limit, MaxLimit, fetch, func(b Bill) string { return b.ComponentID })
}

// Payment records money received for some of one student's components.
type Payment struct {
	NIS          string
	RefNumber    string // biller_ref_number; becomes the records' ref_number (empty: the service makes one)
	ComponentIDs []string
	// UpdatedBy is sent as last_update_by (who recorded it); empty: the username.
	UpdatedBy string
}

// Pay records a payment of all the listed components or none
// (POST /bill_component/pay) and returns the paid records. It sends the
// username as biller_code, as the provider's clients do. The service
// charges the penalty when late and refuses expired, deleted, already paid
// or not yet active components (ErrValidation).
func (c *Client) Pay(ctx context.Context, p Payment) ([]Bill, error) {
	ids := p.ComponentIDs
	if ids == nil {
		ids = []string{}
	}
	in := struct {
		NIS          string   `json:"bill_key"`
		RefNumber    string   `json:"biller_ref_number"`
		IDs          []string `json:"bill_component_list"`
		BillerCode   string   `json:"biller_code"`
		LastUpdateBy string   `json:"last_update_by"`
	}{p.NIS, p.RefNumber, ids, c.username, cmp.Or(p.UpdatedBy, c.username)}
	var out []readBill
	if err := c.call(ctx, "Pay", http.MethodPost, "/bill_component/pay", nil, in, &out); err != nil {
		return nil, err
	}
	return bills(out, c.ServiceZone(), false), nil
}
