package web_test

import (
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/portaltest"
)

// reportsFetched is an export as the browser received it, with the person's cookies.
type reportsFetched struct {
	Status      int    `json:"status"`
	Type        string `json:"type"`
	Disposition string `json:"disposition"`
	Body        string `json:"body"` // base64
}

// fetchLink downloads the href of the link sel from inside the page.
func reportsFetchLink(t *testing.T, b *portaltest.Browser, sel string) (reportsFetched, []byte) {
	t.Helper()
	f := portaltest.Get(b, chromedp.Evaluate[reportsFetched](`(async () => {
		const a = document.querySelector(`+strconv.Quote(sel)+`);
		const res = await fetch(a.getAttribute("href"), {credentials: "same-origin"});
		const bytes = new Uint8Array(await res.arrayBuffer());
		let bin = "";
		for (let i = 0; i < bytes.length; i += 8192) {
			bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
		}
		return {status: res.status, type: res.headers.get("Content-Type"),
			disposition: res.headers.get("Content-Disposition"), body: btoa(bin)};
	})()`, chromedp.EvalAwaitPromise))
	body, err := base64.StdEncoding.DecodeString(f.Body)
	if err != nil {
		t.Fatal(err)
	}
	return f, body
}

func TestBrowserPaymentsReportFilterAndDownload(t *testing.T) {
	t.Parallel()
	p, _ := reportsDemoPortal(t)
	b := p.NewBrowser(t)
	b.SignIn("principal", portaltest.Password)
	b.Visit("/")
	b.WaitVisible(`[data-testid="card-collected-year"]`)
	b.Screenshot("dashboard")

	b.Click(`[data-testid="nav-reports"]`)
	b.Click(`[data-testid="report-payments"]`)
	b.WaitVisible(`[data-testid="payments-table"]`)

	// Filter: the first ten days of March, SPP only; htmx swaps the results in place.
	b.Do(
		chromedp.SetValue(chromedp.CSS(`#f-from`), "2027-03-01"),
		chromedp.SetValue(chromedp.CSS(`#f-to`), "2027-03-10"),
		chromedp.SetValue(chromedp.CSS(`#f-account`), "SPP"),
	)
	b.Click(`[data-testid="apply"]`)
	b.Do(chromedp.WaitVisible(chromedp.CSS(`[data-testid="export-xlsx"][href*="account=SPP"]`)))
	if loc := b.Location(); !strings.Contains(loc, "account=SPP") || !strings.Contains(loc, "to=2027-03-10") {
		t.Errorf("address after filtering = %s", loc)
	}
	total := b.Text(`[data-testid="payments-total"]`)
	accounts := portaltest.Get(b, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="payments-table"] tbody [data-testid="payment-account"]')].map(td => td.textContent.trim())`))
	for _, a := range accounts {
		if a != "SPP" {
			t.Fatalf("filtered table shows account %q", a)
		}
	}
	b.Screenshot("report-payments")

	// Both downloads, with the browser's session.
	x, body := reportsFetchLink(t, b, `[data-testid="export-xlsx"]`)
	if x.Status != 200 || !strings.HasPrefix(x.Type, "application/vnd.openxmlformats") || !strings.Contains(x.Disposition, `.xlsx"`) && !strings.HasSuffix(x.Disposition, ".xlsx") {
		t.Fatalf("xlsx: %d %q %q", x.Status, x.Type, x.Disposition)
	}
	f, err := excelize.OpenReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, _ := f.GetRows("Pembayaran", excelize.Options{RawCellValue: true})
	last := rows[len(rows)-1]
	paid, _ := strconv.ParseInt(last[9], 10, 64)
	if last[0] != "Total" || i18n.Rupiah(paid) != total || rows[2][1] != "SPP" {
		t.Errorf("xlsx totals %q (account filter %q), page says %s", last, rows[2][1], total)
	}

	c, body := reportsFetchLink(t, b, `[data-testid="export-csv"]`)
	if c.Status != 200 || !strings.HasPrefix(c.Type, "text/csv") || !bytes.HasPrefix(body, []byte("\ufeff")) {
		t.Fatalf("csv: %d %q, BOM %v", c.Status, c.Type, bytes.HasPrefix(body, []byte("\ufeff")))
	}
	recs, err := csv.NewReader(bytes.NewReader(body[3:])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, r := range recs[1:] {
		v, _ := strconv.ParseInt(r[9], 10, 64)
		sum += v
		if r[6] != "SPP" || r[0] < "2027-03-01" || r[0] > "2027-03-10" {
			t.Fatalf("csv row outside the filters: %q", r)
		}
	}
	if i18n.Rupiah(sum) != total || len(recs)-1 != len(rows)-7 {
		t.Errorf("csv: %d rows adding up to %s; xlsx %d rows; page %s", len(recs)-1, i18n.Rupiah(sum), len(rows)-7, total)
	}
}
