package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/changes"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/store"
)

// bulkSeed is five students with SPP Desember (Rp 450.000) each, one of them paid, and a
// Seragam each that the filter leaves out.
func bulkSeed(t *testing.T, p *portaltest.Portal) (all []billing.Bill, paid billing.Bill) {
	t.Helper()
	for i := range 5 {
		nis := fmt.Sprintf("270%d", i)
		bills := seedStudent(t, p, billing.Student{NIS: nis, Name: "Siswa " + nis},
			billing.ComponentInput{AccountCode: "SPP", Name: "SPP Desember", Amount: 450_000, Penalty: 25_000, Due: utcDay(2026, 12, 10), Expiry: utcDay(2027, 1, 31), Notes: "spp-des"},
			billing.ComponentInput{AccountCode: "BCA", Name: "Seragam", Amount: 300_000, Due: utcDay(2026, 12, 10), Expiry: utcDay(2027, 1, 31)})
		all = append(all, bills[0])
	}
	paid = all[4]
	if _, err := p.Billing.Pay(context.Background(), billing.Payment{NIS: paid.NIS, ComponentIDs: []string{paid.ComponentID}}); err != nil {
		t.Fatal(err)
	}
	p.SyncLedger(t)
	return all, paid
}

func waitCorrection(t *testing.T, c *portaltest.Client, path string) *portaltest.Response {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		res := c.Get(path)
		if st, _ := res.Doc.Find(`[data-testid="correction-job"]`).Attr("data-state"); st == "done" || st == "partial" {
			return res
		}
		if time.Now().After(deadline) {
			t.Fatalf("correction job not finished: %s", stext(res, `[data-testid="correction-job"]`))
		}
	}
}

func TestBulkCorrection(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	all, paid := bulkSeed(t, p)
	c := p.SignedIn(t, "finance")
	ctx := context.Background()
	filter := url.Values{"state": {"all"}, "account": {"SPP"}, "notes": {"spp-des"}}

	// The list links to the bulk correction of its selection.
	list := c.Get("/bills?" + filter.Encode())
	href, _ := list.Doc.Find(`[data-testid="bulk-correct"]`).Attr("href")
	if !strings.HasPrefix(href, "/bills/correct?") || !strings.Contains(href, "notes=spp-des") {
		t.Fatalf("bulk correction link: %q", href)
	}
	res := c.Get(href)
	if res.StatusCode != http.StatusOK || !strings.Contains(stext(res, `[data-testid="bulk-selection"]`), "5 tagihan") {
		t.Fatalf("form: %d %q", res.StatusCode, stext(res, `[data-testid="bulk-selection"]`))
	}

	// The component rules: a bad amount is 422 with what was typed kept.
	form := url.Values{"action": {"amount"}, "amount": {"empat ratus"}}
	for k, v := range filter {
		form[k] = v
	}
	res = c.Post("/bills/correct/preview", form)
	if res.StatusCode != http.StatusUnprocessableEntity || stext(res, `[data-testid="error-amount"]`) == "" || svalue(res, "#f-amount") != "empat ratus" {
		t.Fatalf("bad amount: %d %q", res.StatusCode, stext(res, `[data-testid="error-amount"]`))
	}

	// The preview: exactly what changes, the paid one left out and counted.
	form.Set("amount", "475.000")
	res = c.Post("/bills/correct/preview", form, "HX-Request", "true")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("preview: %d", res.StatusCode)
	}
	if got := stext(res, `[data-testid="bulk-summary"]`); got != "4 tagihan, total Rp 1.800.000 → Rp 1.900.000" {
		t.Errorf("summary = %q", got)
	}
	if got := stext(res, `[data-testid="bulk-left-out"]`); !strings.Contains(got, "1 tagihan tidak diubah: Sudah dibayar") {
		t.Errorf("left out = %q", got)
	}
	if n := res.Doc.Find(`[data-testid="bulk-row"]`).Length(); n != 5 {
		t.Errorf("%d preview rows", n)
	}
	fp := svalue(res, `[data-testid="bulk-confirm-form"] input[name="fingerprint"]`)
	confirm := url.Values{}
	res.Doc.Find(`[data-testid="bulk-confirm-form"] input`).Each(func(_ int, s *goquery.Selection) {
		n, _ := s.Attr("name")
		v, _ := s.Attr("value")
		if n != "csrf_token" && n != "" {
			confirm.Add(n, v)
		}
	})
	if fp == "" || confirm.Get("action") != "amount" || confirm.Get("amount") != "475.000" || confirm.Get("notes") != "spp-des" {
		t.Fatalf("confirm form carries %v", confirm)
	}

	// The selection changes between preview and confirm (one more is paid): caught, and
	// previewed again; nothing is sent.
	if _, err := p.Billing.Pay(ctx, billing.Payment{NIS: all[3].NIS, ComponentIDs: []string{all[3].ComponentID}}); err != nil {
		t.Fatal(err)
	}
	p.SyncLedger(t)
	res = c.Post("/bills/correct/confirm", confirm)
	if res.StatusCode != http.StatusConflict || stext(res, `[data-testid="bulk-changed"]`) == "" ||
		stext(res, `[data-testid="bulk-summary"]`) != "3 tagihan, total Rp 1.350.000 → Rp 1.425.000" {
		t.Fatalf("changed selection: %d %q %q", res.StatusCode, stext(res, `[data-testid="bulk-changed"]`), stext(res, `[data-testid="bulk-summary"]`))
	}
	if got, _ := p.Billing.GetComponent(ctx, all[0].ComponentID); got.Amount != 450_000 {
		t.Fatal("a stale confirmation was sent")
	}
	confirm.Set("fingerprint", svalue(res, `[data-testid="bulk-confirm-form"] input[name="fingerprint"]`))
	res = c.Post("/bills/correct/confirm", confirm)
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/corrections/") {
		t.Fatalf("confirm: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	job := waitCorrection(t, c, res.Header.Get("Location"))
	if st, _ := job.Doc.Find(`[data-testid="correction-job"]`).Attr("data-state"); st != "done" || stext(job, `[data-testid="correction-done"]`) != "3" {
		t.Errorf("job: %s done %q", st, stext(job, `[data-testid="correction-done"]`))
	}
	for i, b := range all {
		got, err := p.Billing.GetComponent(ctx, b.ComponentID)
		want := int64(475_000)
		if i >= 3 {
			want = 450_000 // paid
		}
		if err != nil || got.Amount != want || got.Penalty != 25_000 || !got.Due.Equal(b.Due) {
			t.Errorf("%s: %+v %v", b.NIS, got, err)
		}
	}
	if entries, _, _ := p.DB.ListAudit(ctx, store.AuditFilter{Action: changes.ActionComponentUpdate}); len(entries) != 3 {
		t.Errorf("%d audit entries, want 3", len(entries))
	}
	_ = paid

	// Cancel them all with a reason: the reason is required.
	cform := url.Values{"action": {"cancel"}, "reason": {""}}
	for k, v := range filter {
		cform[k] = v
	}
	if res := c.Post("/bills/correct/preview", cform); res.StatusCode != http.StatusUnprocessableEntity || stext(res, `[data-testid="error-reason"]`) == "" {
		t.Errorf("cancel without a reason: %d", res.StatusCode)
	}
}

func TestBulkCorrectionRoles(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	all, _ := bulkSeed(t, p)
	c := p.SignedIn(t, "principal")
	if res := c.Get("/bills?state=all"); res.Doc.Find(`[data-testid="bulk-correct"]`).Length() != 0 {
		t.Error("principal sees the bulk correction")
	}
	if res := c.Get("/bills/correct?state=all"); res.StatusCode != http.StatusForbidden {
		t.Errorf("principal GET: %d", res.StatusCode)
	}
	form := url.Values{"state": {"all"}, "action": {"amount"}, "amount": {"1"}, "fingerprint": {"x"}}
	for _, path := range []string{"/bills/correct/preview", "/bills/correct/confirm"} {
		if res := c.Post(path, form); res.StatusCode != http.StatusForbidden {
			t.Errorf("principal POST %s: %d", path, res.StatusCode)
		}
	}
	if res := c.Get("/corrections/0190"); res.StatusCode != http.StatusForbidden {
		t.Errorf("principal job page: %d", res.StatusCode)
	}
	if got, _ := p.Billing.GetComponent(context.Background(), all[0].ComponentID); got.Amount != 450_000 {
		t.Error("principal changed a component")
	}
}

// The bulk correction link follows the filter when HTMX swaps the results alone.
func TestBulkCorrectionLinkFollowsFilter(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	bulkSeed(t, p)
	c := p.SignedIn(t, "finance")
	res := c.Get("/bills?state=all&account=BCA", "HX-Request", "true")
	href, _ := res.Doc.Find(`[data-testid="bulk-correct"]`).Attr("href")
	if !strings.HasPrefix(href, "/bills/correct?") || !strings.Contains(href, "account=BCA") {
		t.Errorf("bulk link in the results partial: %q", href)
	}
	if res := c.Get(href); stext(res, `[data-testid="bulk-selection"]`) != "Pilihan: Semua · BCA · 5 tagihan, nominal Rp 1.500.000." {
		t.Errorf("selection: %q", stext(res, `[data-testid="bulk-selection"]`))
	}
}

// A bulk correction restates its selection in words, on the list's link and on its page,
// and is not offered on a list no filter narrows: the page, the preview and the
// confirmation refuse a whole tab.
func TestBulkCorrectionNeedsANarrowedList(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{Now: studentsNow})
	bulkSeed(t, p)
	c := p.SignedIn(t, "finance")
	res := c.Get("/bills?state=all")
	if res.Doc.Find(`[data-testid="bulk-correct"]`).Length() != 0 || res.Doc.Find(`[data-testid="bulk-narrow"]`).Length() != 1 {
		t.Fatalf("an unfiltered list offers a bulk correction")
	}
	for _, r := range []*portaltest.Response{
		c.Get("/bills/correct?state=all"),
		c.Post("/bills/correct/preview", url.Values{"state": {"all"}, "action": {"amount"}, "amount": {"1"}}),
		c.Post("/bills/correct/confirm", url.Values{"state": {"all"}, "action": {"amount"}, "amount": {"1"}, "fingerprint": {"x"}}),
	} {
		if r.StatusCode != http.StatusUnprocessableEntity || r.Doc.Find(`[data-testid="bulk-form"]`).Length() != 0 ||
			!strings.Contains(stext(r, `[data-testid="form-error"]`), "sudah disaring") {
			t.Errorf("%s %s: %d %q", r.Request.Method, r.Request.URL.Path, r.StatusCode, stext(r, `[data-testid="form-error"]`))
		}
	}
	// One fee by its name and due day: restated in words on the link and the page.
	res = c.Get("/bills?" + url.Values{"name": {"seragam"}, "due_from": {"2026-12-10"}, "due_to": {"2026-12-10"}}.Encode())
	if got := stext(res, `[data-testid="bulk-correct"]`); got != "Koreksi massal: “seragam” · jatuh tempo 10 Des 2026 · 5 tagihan" {
		t.Errorf("link %q", got)
	}
	href, _ := res.Doc.Find(`[data-testid="bulk-correct"]`).Attr("href")
	if got := stext(c.Get(href), `[data-testid="bulk-selection"]`); got != "Pilihan: “seragam” · jatuh tempo 10 Des 2026 · 5 tagihan, nominal Rp 1.500.000." {
		t.Errorf("selection %q", got)
	}
	// The item's name typed in the student search: offered as an item's name.
	res = c.Get("/bills?q=Seragam")
	link, _ := res.Doc.Find(`[data-testid="bills-search-as-name"]`).Attr("href")
	if link != "/bills?name=Seragam&state=provisioned" {
		t.Fatalf("no offer to search as an item's name: %q", link)
	}
	if got := c.Get(link).Doc.Find(`[data-testid="bill-row"]`).Length(); got != 5 {
		t.Errorf("searched as a name: %d rows", got)
	}
	// The filter suggests the open items' names.
	if got := res.Doc.Find(`datalist#bill-names option[value="Seragam"]`).Length(); got != 1 {
		t.Errorf("the names are not suggested")
	}
}
