package web_test

import (
	"bytes"
	"encoding/csv"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestReportCSVFlavours(t *testing.T) {
	t.Parallel()
	p, s := startCounter(t)
	c := p.SignedIn(t, "finance")
	if res := c.Post("/payments", url.Values{"nis": {"2024001"}, "ref": {"KW-1"}, "component": {s.id("SPP Oktober")}, "total": {"275000"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("pay: %d", res.StatusCode)
	}
	page := c.Get("/reports/payments?from=2026-11-01&to=2026-11-22")
	for id, label := range map[string]string{"export-csv-id": "CSV (Excel Indonesia, ;)", "export-csv": "CSV (,)", "export-xlsx": "Excel (.xlsx)"} {
		if got := billsText(page.Doc.Find(`[data-testid="` + id + `"]`)); got != label {
			t.Errorf("%s = %q, want %q", id, got, label)
		}
	}
	// Each flavour downloads under its own name, which says which one it is: saved side by
	// side they are two files, not "laporan.csv" and "laporan (1).csv".
	names := map[string]string{
		"export-csv-id": "laporan-pembayaran_2026-11-01_2026-11-22_excel-indonesia.csv",
		"export-csv":    "laporan-pembayaran_2026-11-01_2026-11-22_koma.csv",
		"export-xlsx":   "laporan-pembayaran_2026-11-01_2026-11-22.xlsx",
	}
	read := func(id string, comma rune) [][]string {
		t.Helper()
		href := page.Doc.Find(`[data-testid="`+id+`"]`).AttrOr("href", "")
		res := c.Get(href)
		if _, params, _ := mime.ParseMediaType(res.Header.Get("Content-Disposition")); res.StatusCode != http.StatusOK || params["filename"] != names[id] {
			t.Fatalf("%s: %d %q, want the file name %q", href, res.StatusCode, res.Header.Get("Content-Disposition"), names[id])
		}
		body := []byte(res.Body)
		if !bytes.HasPrefix(body, []byte("\ufeff")) {
			t.Fatalf("%s: no BOM", href)
		}
		r := csv.NewReader(bytes.NewReader(body[3:]))
		r.Comma = comma
		recs, err := r.ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", href, err)
		}
		return recs
	}
	if res := c.Get(page.Doc.Find(`[data-testid="export-xlsx"]`).AttrOr("href", "")); !strings.Contains(res.Header.Get("Content-Disposition"), names["export-xlsx"]) {
		t.Errorf("the workbook downloads as %q, want %q", res.Header.Get("Content-Disposition"), names["export-xlsx"])
	}
	semi, comma := read("export-csv-id", ';'), read("export-csv", ',')
	if len(semi) != 3 || len(comma) != 3 {
		t.Fatalf("rows: ; %d, , %d", len(semi), len(comma))
	}
	for i := range semi {
		if strings.Join(semi[i], "|") != strings.Join(comma[i], "|") {
			t.Errorf("row %d differs:\n; %q\n, %q", i, semi[i], comma[i])
		}
	}
	// The counter payment, with the time of day it was recorded in the school's zone, its
	// reference, and then where it was paid (the counter, by its cashier).
	var kw []string
	for _, r := range comma[1:] {
		if len(r) > 14 && r[10] == "KW-1" {
			kw = r
		}
	}
	if kw == nil || kw[0] != "2026-11-22" || kw[1] != "10:00" || kw[9] != "275000" || kw[11] != "Loket sekolah" || kw[14] != "Finance Staf" {
		t.Errorf("the counter payment reads %q", kw)
	}
	// A CSV flavour read with the other separator is one column: they are really different.
	if one := read("export-csv-id", ','); len(one[0]) != 1 {
		t.Errorf("the ; flavour has commas between fields: %q", one[0])
	}
}
