package billing

import (
	"encoding/json"
	"testing"
	"time"
)

// FuzzVerifyCallback feeds VerifyCallback any body, signed for its own
// ref_number or not. It must never panic, never accept an unsigned body, and
// whatever it accepts must be a usable payment.
func FuzzVerifyCallback(f *testing.F) {
	for _, s := range []string{
		`{"biller_code":"10014","ref_number":"REF123","bill_key":"1001","total_bill_amount":"475000.00","paid_date":"2026-01-05T10:04:05",` +
			`"bill_component_list":[{"bill_component_id":"c1","amount_paid":475000,"state":"paid"}]}`,
		`{"ref_number":7,"bill_component_list":[{"bill_component_id":1,"amount_paid":"1e3","state":"cleared"}],"paid_date":"2026-01-05T03:04:05.000Z"}`,
		`{"ref_number":"R","bill_component_list":[{"bill_component_id":"c","amount_paid":"-0"}],"paid_date":null,"bill_quantity":"9223372036854775808"}`,
		`{"ref_number":"R","bill_component_list":[{"bill_component_id":"c","amount_paid":0.5}]}`,
		`{"ref_number":"R","bill_component_list":[]}`, `{"ref_number":""}`, `[]`, `null`, `{`, ``,
	} {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	jakarta := defaultZone()
	f.Fuzz(func(t *testing.T, body []byte, signIt bool) {
		header := "00"
		if signIt {
			var r struct {
				Ref text `json:"ref_number"`
			}
			_ = json.Unmarshal(body, &r)
			header = CallbackSignature("secret", "10014", string(r.Ref))
		}
		cb, err := VerifyCallback("secret", "10014", header, body, jakarta)
		if err != nil {
			return
		}
		if !signIt {
			t.Fatalf("accepted an unsigned body %q", body)
		}
		if cb.RefNumber == "" || len(cb.Components) == 0 || cb.BillerCode != "10014" {
			t.Fatalf("accepted %+v from %q", cb, body)
		}
		if !cb.PaidAt.IsZero() && cb.PaidAt.Location() != time.UTC {
			t.Fatalf("paid_at %v not in UTC", cb.PaidAt)
		}
		for _, c := range cb.Components {
			if c.ComponentID == "" || c.AmountPaid < 0 {
				t.Fatalf("component %+v from %q", c, body)
			}
		}
	})
}
