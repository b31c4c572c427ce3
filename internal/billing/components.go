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
	if err := c.call(ctx, http.MethodPost, "/bill_component/batch", nil, in, &out); err != nil {
		return nil, err
	}
	return bills(out, c.ServiceZone(), false), nil
}

// CreateComponent uploads one component (POST /bill_component) and returns
// its record; the Bill is zero (no ComponentID) when the service sent none back.
func (c *Client) CreateComponent(ctx context.Context, in ComponentInput) (Bill, error) {
	var out readBill
	if err := c.call(ctx, http.MethodPost, "/bill_component", nil, in.wire(), &out); err != nil {
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
	if err := c.call(ctx, http.MethodGet, "/bill_component/get/"+url.PathEscape(id), nil, nil, &out); err != nil {
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
	if err := c.call(ctx, http.MethodPut, "/bill_component", nil, in, &out); err != nil {
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
	if err := c.call(ctx, http.MethodPost, "/bill_component/delete", nil, in, &out); err != nil {
		return nil, err
	}
	return bills(out, c.ServiceZone(), true), nil
}

// Query filters a search; zero fields are left out. Dates are calendar
// days: each is sent as its own Y-M-D (the service reads them in its zone).
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
	setPage(v, q.Offset, q.Limit, MaxLimit)
	return v
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
// unless q.State is StateDeleted.
func (c *Client) Search(ctx context.Context, q Query) ([]Bill, error) {
	bs, _, err := c.search(ctx, pathSearchBiller, q.values(), q.State == StateDeleted)
	return bs, err
}

// StudentBills lists one student's components, newest first
// (GET /bill_component/search/bill?bill_key=NIS); ErrNotFound when the student is unknown.
func (c *Client) StudentBills(ctx context.Context, nis string, q Query) ([]Bill, error) {
	v, err := studentQuery(nis, q)
	if err != nil {
		return nil, err
	}
	bs, _, err := c.search(ctx, pathSearchBill, v, q.State == StateDeleted)
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
// before deleted ones were dropped, which is what tells an empty page.
func (c *Client) search(ctx context.Context, path string, v url.Values, keepDeleted bool) ([]Bill, int, error) {
	var out []readBill
	if err := c.call(ctx, http.MethodGet, path, v, nil, &out); err != nil {
		return nil, 0, err
	}
	return bills(out, c.ServiceZone(), keepDeleted), len(out), nil
}

// All yields every component matching q across pages, starting at
// q.Offset, as described at pages (Query.Limit per page, MaxLimit when unset).
func (c *Client) All(ctx context.Context, q Query) iter.Seq2[Bill, error] {
	return c.allBills(ctx, pathSearchBiller, q, func(q Query) (url.Values, error) { return q.values(), nil })
}

// AllForStudent is All over one student's components.
func (c *Client) AllForStudent(ctx context.Context, nis string, q Query) iter.Seq2[Bill, error] {
	return c.allBills(ctx, pathSearchBill, q, func(q Query) (url.Values, error) { return studentQuery(nis, q) })
}

func (c *Client) allBills(ctx context.Context, path string, q Query, values func(Query) (url.Values, error)) iter.Seq2[Bill, error] {
	keepDeleted := q.State == StateDeleted
	fetch := func(offset, limit int) ([]Bill, int, error) {
		q.Offset, q.Limit = offset, limit
		v, err := values(q)
		if err != nil {
			return nil, 0, err
		}
		return c.search(ctx, path, v, keepDeleted)
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
	if err := c.call(ctx, http.MethodPost, "/bill_component/pay", nil, in, &out); err != nil {
		return nil, err
	}
	return bills(out, c.ServiceZone(), false), nil
}
