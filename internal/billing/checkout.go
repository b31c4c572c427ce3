package billing

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// CheckoutComponent is one component of a registration checkout; dates are
// calendar days as in ComponentInput.
type CheckoutComponent struct {
	AccountCode string
	Name        string
	Due         time.Time
	Expiry      time.Time
	Active      time.Time // zero: active at once
	Amount      int64
	Penalty     int64
	Description string
}

// Checkout is a new student with their first bill, created together.
type Checkout struct {
	Student    Student // KeyName is not sent: the service stores "NIS"
	Components []CheckoutComponent
}

// CheckoutResult names what a checkout created.
type CheckoutResult struct {
	BillID       string
	NIS          string
	ComponentIDs []string
}

// Checkout creates the student and all components, or nothing
// (POST /bill/checkout); an existing NIS is ErrValidation. Server to server only.
func (c *Client) Checkout(ctx context.Context, co Checkout) (CheckoutResult, error) {
	list := make([]wireComponent, len(co.Components))
	for i, k := range co.Components {
		list[i] = wireComponent{
			AccountCode: k.AccountCode,
			Name:        k.Name,
			Expiry:      dayStamp(k.Expiry),
			Due:         dayStamp(k.Due),
			Active:      dayStamp(k.Active),
			Amount:      k.Amount,
			Penalty:     k.Penalty,
			Description: k.Description,
		}
	}
	in := struct {
		Name        string          `json:"name"`
		NIS         string          `json:"bill_key_value"`
		Phone       string          `json:"phone,omitempty"`
		Email       string          `json:"email,omitempty"`
		Description string          `json:"description,omitempty"`
		List        []wireComponent `json:"bill_upload_list"`
	}{co.Student.Name, co.Student.NIS, co.Student.Phone, co.Student.Email, co.Student.Description, list}
	var out struct {
		BillID text              `json:"bill_id"`
		NIS    text              `json:"bill_key_value"`
		IDs    []json.RawMessage `json:"bill_component_list"`
	}
	if err := c.call(ctx, "Checkout", http.MethodPost, "/bill/checkout", nil, in, &out); err != nil {
		return CheckoutResult{}, err
	}
	res := CheckoutResult{BillID: string(out.BillID), NIS: string(out.NIS), ComponentIDs: make([]string, 0, len(out.IDs))}
	for _, raw := range out.IDs {
		if id := componentID(raw); id != "" {
			res.ComponentIDs = append(res.ComponentIDs, id)
		}
	}
	return res, nil
}

// componentID reads a checkout's component entry: an id, or a record
// carrying bill_component_id (the shape other endpoints answer with).
func componentID(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' {
		var r struct {
			ID text `json:"bill_component_id"`
		}
		if json.Unmarshal(raw, &r) == nil {
			return string(r.ID)
		}
		return ""
	}
	var id text
	if id.UnmarshalJSON(raw) == nil {
		return string(id)
	}
	return ""
}
