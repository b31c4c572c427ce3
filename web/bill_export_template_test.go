package web_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/sekolah/portal/internal/auth"
	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// TestBillExportTemplate: the export holds the unpaid bills the list's filter selects
// (never a paid or cancelled one), in the components template's shape with their ids, and
// is offered only to those who may upload.
func TestBillExportTemplate(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: uploadNow})
	sh, err := sheettest.Students(filepath.Join(t.TempDir(), "siswa.xlsx"), sheettest.Options{Rows: 3})
	if err != nil {
		t.Fatal(err)
	}
	enrol(t, p, sh, true)
	ctx := context.Background()
	var in []billing.ComponentInput
	for i, n := range sh.NIS {
		for m := range 2 {
			due := time.Date(2026, time.Month(7+m), 10, 0, 0, 0, 0, time.UTC)
			in = append(in, billing.ComponentInput{NIS: n, AccountCode: []string{"SPP", "BCA"}[m], Name: "SPP " + due.Format("01/2006"),
				Due: due, Expiry: due.AddDate(0, 1, 0), Amount: int64(100_000 * (i + 1)), Notes: "awal"})
		}
	}
	bills, err := p.App.Writer.CreateComponents(ctx, auth.SystemActor, in, "seed")
	if err != nil {
		t.Fatal(err)
	}
	var paid, cancelled string
	for _, b := range bills {
		switch {
		case b.NIS == sh.NIS[0] && paid == "":
			paid = b.ComponentID
		case b.NIS == sh.NIS[1] && cancelled == "":
			cancelled = b.ComponentID
		}
	}
	if _, err := p.App.Writer.Pay(ctx, auth.SystemActor, billing.Payment{NIS: sh.NIS[0], ComponentIDs: []string{paid}}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.App.Writer.CancelComponents(ctx, auth.SystemActor, []string{cancelled}, "salah", ""); err != nil {
		t.Fatal(err)
	}

	c := p.SignedIn(t, "finance")
	if res := c.Get("/bills?state=all"); res.Doc.Find(`[data-testid="bills-export-template"]`).Length() != 1 {
		t.Fatal("the bills list offers no export for corrections")
	}
	href, _ := c.Get("/bills?state=provisioned&account=BCA").Doc.Find(`[data-testid="bills-export-template"]`).Attr("href")
	if !strings.HasPrefix(href, "/bills/export-template.xlsx?") || !strings.Contains(href, "account=BCA") || !strings.Contains(href, "state=provisioned") {
		t.Fatalf("the export link %q does not carry the list's filter", href)
	}
	ids := func(path string) map[string][]string {
		t.Helper()
		res := c.Get(path)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s answered %d", path, res.StatusCode)
		}
		f, err := excelize.OpenReader(strings.NewReader(res.Body))
		if err != nil {
			t.Fatal(err)
		}
		rows, _ := f.GetRows(f.GetSheetName(0))
		if strings.Join(rows[0], "|") != "NIS|Nama Tagihan|Kode Rekening|Nominal|Denda|Jatuh Tempo|Kedaluwarsa|Tanggal Aktif|Catatan|ID Tagihan" {
			t.Fatalf("header %q", rows[0])
		}
		out := map[string][]string{}
		for _, r := range rows[1:] {
			out[r[len(r)-1]] = r
		}
		return out
	}
	all := ids("/bills/export-template.xlsx?state=all")
	if len(all) != 4 || all[paid] != nil || all[cancelled] != nil {
		t.Fatalf("all unpaid: %d rows %v", len(all), all)
	}
	for id, r := range all {
		if r[0] == "" || r[3] == "" || r[5] == "" || r[8] != "awal" {
			t.Errorf("row of %s: %q", id, r)
		}
	}
	if got := ids("/bills/export-template.xlsx?state=provisioned&nis=" + sh.NIS[2]); len(got) != 2 {
		t.Fatalf("one student's: %d rows", len(got))
	}
	if got := ids("/bills/export-template.xlsx?state=provisioned&account=BCA"); len(got) != 3 {
		t.Fatalf("account BCA: %d rows", len(got))
	}
	if res := p.SignedIn(t, "principal").Get("/bills/export-template.xlsx?state=all"); res.StatusCode != http.StatusForbidden {
		t.Fatalf("a principal got %d", res.StatusCode)
	}
}
