package billing

import (
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// CallbackHeader is the request header that carries a callback's signature.
const CallbackHeader = "X-IDN-CS"

// Errors of VerifyCallback; the receiver answers a 4xx for both and stores nothing.
var (
	// ErrBadSignature: the signature is missing or does not match the body's
	// ref_number under our credentials.
	ErrBadSignature = errors.New("billing: callback signature does not match")
	// ErrBadCallback: the body is not a payment callback we can read.
	ErrBadCallback = errors.New("billing: unreadable payment callback")
)

// Callback is one payment the service reports to the school's callback URL
// (money received through a bank or a shop), with typed fields. The same
// RefNumber may arrive more than once, and callbacks may arrive out of order.
type Callback struct {
	MerchantName      string // where the parent paid
	BillerName        string
	BillerCode        string
	StudentName       string // bill_name
	NIS               string // bill_key
	Total             int64  // total_bill_amount, rupiah
	Quantity          int    // bill_quantity
	AdminFee          int64  // admin_fee, rupiah
	RefNumber         string // the payment's reference; the signed message's second half
	MerchantRefNumber string
	// PaidAt is paid_date in UTC (a zoneless paid_date is service time); zero when absent.
	PaidAt     time.Time
	Components []CallbackComponent
}

// CallbackComponent is one component a callback reports as paid.
type CallbackComponent struct {
	ComponentID string
	AmountPaid  int64  // rupiah
	Currency    string // amount_currency, e.g. "IDR"
	Notes       string
	State       State // StatePaid for "paid" and the service's other paid-like states
	RawState    string
	RefNumber   string
}

// readCallback is a callback body as read: every value tolerant.
type readCallback struct {
	MerchantName      text   `json:"merchant_name"`
	BillerName        text   `json:"biller_name"`
	BillerCode        text   `json:"biller_code"`
	BillName          text   `json:"bill_name"`
	BillKey           text   `json:"bill_key"`
	TotalBillAmount   number `json:"total_bill_amount"`
	BillQuantity      number `json:"bill_quantity"`
	AdminFee          number `json:"admin_fee"`
	RefNumber         text   `json:"ref_number"`
	MerchantRefNumber text   `json:"merchant_ref_number"`
	PaidDate          stamp  `json:"paid_date"`
	Components        []struct {
		ID             text   `json:"bill_component_id"`
		AmountPaid     number `json:"amount_paid"`
		AmountCurrency text   `json:"amount_currency"`
		Notes          text   `json:"notes"`
		State          text   `json:"state"`
		RefNumber      text   `json:"ref_number"`
	} `json:"bill_component_list"`
}

// VerifyCallback checks a payment callback's signature (header is the
// X-IDN-CS value) and decodes its body. The signature is
// hex(HMAC-SHA256(key = hex(sha256(issuedPassword)), message = billerCode +
// ":" + ref_number)), compared in constant time. serviceZone is where a
// paid_date without a zone is read (nil: Asia/Jakarta, the provider's zone);
// a Client passes the zone it has learned, see Client.VerifyCallback.
//
// It fails with ErrBadSignature or ErrBadCallback; nothing of such a body
// may be stored.
func VerifyCallback(issuedPassword, billerCode, header string, body []byte, serviceZone *time.Location) (Callback, error) {
	if serviceZone == nil {
		serviceZone = jakarta
	}
	var r readCallback
	if err := json.Unmarshal(body, &r); err != nil {
		return Callback{}, fmt.Errorf("%w: %v", ErrBadCallback, err)
	}
	if r.RefNumber == "" {
		return Callback{}, fmt.Errorf("%w: no ref_number", ErrBadCallback)
	}
	got, err := hex.DecodeString(strings.TrimSpace(header))
	if err != nil || len(got) != sha256.Size {
		return Callback{}, ErrBadSignature
	}
	if !hmac.Equal(got, callbackMAC(issuedPassword, billerCode, string(r.RefNumber))) {
		return Callback{}, ErrBadSignature
	}
	if r.BillerCode != "" && string(r.BillerCode) != billerCode {
		return Callback{}, fmt.Errorf("%w: for biller %q, not %q", ErrBadCallback, r.BillerCode, billerCode)
	}
	if len(r.Components) == 0 {
		return Callback{}, fmt.Errorf("%w: no bill_component_list", ErrBadCallback)
	}
	cb := Callback{
		MerchantName:      string(r.MerchantName),
		BillerName:        string(r.BillerName),
		BillerCode:        cmp.Or(string(r.BillerCode), billerCode),
		StudentName:       string(r.BillName),
		NIS:               string(r.BillKey),
		Total:             int64(r.TotalBillAmount),
		Quantity:          int(r.BillQuantity),
		AdminFee:          int64(r.AdminFee),
		RefNumber:         string(r.RefNumber),
		MerchantRefNumber: string(r.MerchantRefNumber),
		PaidAt:            r.PaidDate.instant(serviceZone),
		Components:        make([]CallbackComponent, len(r.Components)),
	}
	for i, c := range r.Components {
		if c.ID == "" {
			return Callback{}, fmt.Errorf("%w: bill_component_list[%d] has no bill_component_id", ErrBadCallback, i)
		}
		if c.AmountPaid < 0 {
			return Callback{}, fmt.Errorf("%w: bill_component_list[%d].amount_paid is negative", ErrBadCallback, i)
		}
		cb.Components[i] = CallbackComponent{
			ComponentID: string(c.ID),
			AmountPaid:  int64(c.AmountPaid),
			Currency:    string(c.AmountCurrency),
			Notes:       string(c.Notes),
			State:       foldState(string(c.State)),
			RawState:    string(c.State),
			RefNumber:   cmp.Or(string(c.RefNumber), string(r.RefNumber)),
		}
	}
	return cb, nil
}

// VerifyCallback is the package's VerifyCallback with this client's
// credentials (its username is the biller code) and its ServiceZone.
func (c *Client) VerifyCallback(header string, body []byte) (Callback, error) {
	return VerifyCallback(c.password, c.username, header, body, c.ServiceZone())
}

// CallbackSignature is the X-IDN-CS value the service sends with a callback
// for refNumber; tests and tools use it to sign their own.
func CallbackSignature(issuedPassword, billerCode, refNumber string) string {
	return hex.EncodeToString(callbackMAC(issuedPassword, billerCode, refNumber))
}

func callbackMAC(issuedPassword, billerCode, refNumber string) []byte {
	inner := sha256.Sum256([]byte(issuedPassword))
	m := hmac.New(sha256.New, []byte(hex.EncodeToString(inner[:])))
	m.Write([]byte(billerCode + ":" + refNumber))
	return m.Sum(nil)
}
