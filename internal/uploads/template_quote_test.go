package uploads_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/celltext/celltexttest"
	"github.com/sekolah/portal/internal/uploads"
)

// TestCorrectionSheetQuotesFormulaText: the bills list's export as an upload template
// writes a component name or note that starts like a formula ("=HYPERLINK(…)" a parent's
// registration once brought in) as the string it is, no apostrophe added, with Excel's
// quote prefix on its cell, so editing it in Excel keeps it text; other cells get none.
// Read back by the upload, the text is what was typed.
func TestCorrectionSheetQuotesFormulaText(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 8, 10, 0, 0, 0, 0, time.UTC)
	evil := `=HYPERLINK("http://evil.example","Bayar di sini")`
	bills := []billing.Bill{
		{ComponentID: "c1", NIS: "2026001", Name: evil, AccountCode: "SPP", Amount: 150_000, Due: due, Expiry: due.AddDate(0, 1, 0),
			Notes: "+62 812 ada catatan", State: billing.StateProvisioned},
		{ComponentID: "c2", NIS: "2026002", Name: "SPP Agustus", AccountCode: "SPP", Amount: 150_000, Due: due, Expiry: due.AddDate(0, 1, 0),
			State: billing.StateProvisioned},
	}
	var buf bytes.Buffer
	must(t, uploads.WriteCorrectionSheet(&buf, accounts, func(yield func(billing.Bill, error) bool) {
		for _, b := range bills {
			if !yield(b, nil) {
				return
			}
		}
	}))
	sheet := "xl/worksheets/sheet1.xml"
	if c := celltexttest.Read(t, buf.Bytes(), sheet, "B2"); !c.String || c.Text != evil || !c.QuotePrefix || c.Formula != "" {
		t.Errorf("B2 = %+v, want %q as a quote-prefixed string", c, evil)
	}
	for _, ref := range []string{"B3", "A2", "C2", "J2"} {
		if c := celltexttest.Read(t, buf.Bytes(), sheet, ref); c.QuotePrefix || c.Text == "" || c.Text[0] == '\'' {
			t.Errorf("%s = %+v: no prefix wanted", ref, c)
		}
	}
	if c := celltexttest.Read(t, buf.Bytes(), sheet, "I2"); !c.QuotePrefix || c.Text != "+62 812 ada catatan" {
		t.Errorf("I2 = %+v, want the note quote-prefixed as typed", c)
	}
	// Read back as the upload reads it, the name is the text as typed.
	f, err := excelize.OpenReader(bytes.NewReader(buf.Bytes()))
	must(t, err)
	defer f.Close()
	if v, _ := f.GetCellValue(f.GetSheetName(0), "B2"); v != evil {
		t.Errorf("read back: %q", v)
	}
}
