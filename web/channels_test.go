package web_test

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/portaltest"
)

// paymentsCSV is the payments report of 22 Nov 2026 as a CSV of format (csv or
// csv-excel-id), its records by column name.
func paymentsCSV(t *testing.T, c *portaltest.Client, format string) []map[string]string {
	t.Helper()
	res := c.Get("/reports/payments?from=2026-11-22&to=2026-11-22&format=" + format)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("export %s: %d", format, res.StatusCode)
	}
	r := csv.NewReader(strings.NewReader(strings.TrimPrefix(res.Body, "\xef\xbb\xbf")))
	if format == "csv-excel-id" {
		r.Comma = ';'
	}
	recs, err := r.ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("export %s: %v", format, err)
	}
	var out []map[string]string
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = rec[i]
		}
		out = append(out, m)
	}
	return out
}

// A bank's payment reaches the payments report, its exports and the dashboard with its
// channel and admin fee only once the service confirmed it: while the service does not
// answer, nothing of the callback is anywhere (the payment itself is not either); then
// the minimarket, its name and fee, on the payment's rows and in the breakdown by
// channel. A counter payment reads as the counter with its cashier; a payment the sync
// found on its own reads "not known".
func TestBankChannelAfterConfirmation(t *testing.T) {
	t.Parallel()
	p, s := startCounter(t)
	c := p.SignedIn(t, "finance")
	serviceDown(t, p, true)
	if err := sandboxPost(p, "/_sandbox/bank-payment", map[string]any{"bill_key": "2024001",
		"bill_component_list": []string{s.id("SPP Oktober"), s.id("SPP Desember")}, "merchant_name": "Indomaret", "admin_fee": 2500}); err != nil {
		t.Fatal(err)
	}
	p.AwaitCallbacks(t)
	rep := c.Get("/reports/payments?from=2026-11-22&to=2026-11-22")
	if rep.Doc.Find(`[data-testid="payments-channels"] [data-channel="minimarket"]`).Length() != 0 || strings.Contains(rep.Body, "Indomaret") {
		t.Fatal("the callback's channel is on the report before the service confirmed it")
	}
	for _, row := range paymentsCSV(t, c, "csv") {
		if row["Saluran"] == "Minimarket" || row["Biaya admin"] != "0" {
			t.Fatalf("the export before the confirmation: %v", row)
		}
	}

	serviceDown(t, p, false)
	awaitConfirmed(t, p)
	// And a payment at the counter, by Finance.
	if res := c.Post("/payments", url.Values{"nis": {"2024002"}, "ref": {"KW-9"}, "component": {s.id("SPP November")}, "total": {"200000"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("counter payment: %d", res.StatusCode)
	}

	rep = c.Get("/reports/payments?from=2026-11-22&to=2026-11-22")
	mini := rep.Doc.Find(`[data-testid="channels-summary"] [data-testid="channel-row"][data-channel="minimarket"]`)
	if got := billsText(mini.Find(`[data-testid="channel-paid"]`)); got != "Rp 535.000" {
		t.Errorf("minimarket received %q (%q)", got, billsText(rep.Doc.Find(`[data-testid="channels-summary"]`)))
	}
	if got := billsText(mini.Find(`[data-testid="channel-fee"]`)); got != "Rp 2.500" {
		t.Errorf("minimarket fees %q", got)
	}
	if got := billsText(rep.Doc.Find(`[data-testid="channels-summary"] [data-channel="counter"] [data-testid="channel-paid"]`)); got != "Rp 200.000" {
		t.Errorf("counter received %q", got)
	}
	if got := billsText(rep.Doc.Find(`[data-testid="channels-total"]`)); got != billsText(rep.Doc.Find(`[data-testid="payments-total"]`)) || got != "Rp 735.000" {
		t.Errorf("the channels add up to %q, the report to %q", got, billsText(rep.Doc.Find(`[data-testid="payments-total"]`)))
	}
	// By month and by day, each headed by what its rows are.
	for id, want := range map[string]string{"channels-months": "Bulan", "channels-days": "Tanggal"} {
		if got := billsText(rep.Doc.Find(`[data-testid="` + id + `"] thead th`).First()); got != want {
			t.Errorf("%s is headed %q, want %q", id, got, want)
		}
	}
	wheres := map[string]string{}
	rep.Doc.Find(`[data-testid="payments-table"] tbody tr`).Each(func(_ int, tr *goquery.Selection) {
		wheres[billsText(tr.Find(`[data-testid="payment-ref"]`))] = spaced(tr.Find(`[data-testid="payment-channel"]`))
	})
	if wheres["KW-9"] != "Loket sekolah kasir Finance Staf" || !strings.HasPrefix(wheres[bankRef(t, p)], "Minimarket Indomaret · biaya admin Rp 2.500") {
		t.Errorf("where each was paid %q", wheres)
	}

	for _, format := range []string{"csv", "csv-excel-id"} {
		fees := 0
		for _, row := range paymentsCSV(t, c, format) {
			switch row["NIS"] {
			case "2024001":
				if row["Saluran"] != "Minimarket" || row["Tempat bayar"] != "Indomaret" || row["No. ref. merchant"] == "" {
					t.Errorf("%s: Indomaret's row %v", format, row)
				}
				if row["Biaya admin"] == "2500" {
					fees++
				} else if row["Biaya admin"] != "0" {
					t.Errorf("%s: fee %q", format, row["Biaya admin"])
				}
			case "2024002":
				if row["Saluran"] != "Loket sekolah" || row["Kasir"] != "Finance Staf" {
					t.Errorf("%s: the counter's row %v", format, row)
				}
			}
		}
		if fees != 1 {
			t.Errorf("%s: the fee is on %d rows of the payment, want its first only", format, fees)
		}
	}
	res := c.Get("/reports/payments?from=2026-11-22&to=2026-11-22&format=xlsx")
	x, err := excelize.OpenReader(bytes.NewReader([]byte(res.Body)))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := x.GetRows("Per saluran")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rows {
		if len(r) >= 5 && r[1] == "Minimarket" {
			found = r[2] == "1" && strings.NewReplacer(".", "", ",", "").Replace(r[4]) == "Rp 2500"
		}
	}
	if !found {
		t.Errorf("the xlsx's sheet by channel: %q", rows)
	}

	// The dashboard: today's and this month's by channel, the fee, and the note on the
	// payment the sync found on its own (BANK-001, two days ago).
	dash := c.Get("/")
	card := dash.Doc.Find(`[data-testid="dashboard-channels"]`)
	if got := spaced(card.Find(`[data-channel="minimarket"] [data-testid="channel-today"]`)); got != "Rp 535.000 1 pembayaran" {
		t.Errorf("minimarket today %q", got)
	}
	if got := billsText(card.Find(`tr[data-channel="minimarket"] [data-testid="channel-fee"]`)); got != "Rp 2.500" {
		t.Errorf("minimarket fee %q", got)
	}
	if got := spaced(card.Find(`tr[data-channel="unknown"] [data-testid="channel-month"]`)); got != "Rp 150.000 1 pembayaran" {
		t.Errorf("not known this month %q", got)
	}
	if card.Find(`[data-testid="channels-unknown-note"]`).Length() != 1 || card.Find(`[data-testid="channels-fee-note"]`).Length() != 1 {
		t.Error("the notes on 'not known' and on the fees")
	}
	if got := billsText(card.Find(`[data-testid="channels-today-total"]`)); got != "Rp 735.000" {
		t.Errorf("today's total %q", got)
	}
}

// bankRef is the reference of the sandbox's last bank payment.
func bankRef(t *testing.T, p *portaltest.Portal) string {
	t.Helper()
	cbs := p.Sandbox.Callbacks()
	if len(cbs) == 0 {
		t.Fatal("no callback")
	}
	return cbs[len(cbs)-1].RefNumber
}
