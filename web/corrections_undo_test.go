package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/corrections"
	"github.com/sekolah/portal/internal/portaltest"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// TestUndoUpload is the undo without a browser: the reason required (422, typed kept),
// the unpaid ones cancelled, the paid one kept and listed, and only once.
func TestUndoUpload(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			testUndoUpload(t, portaltest.Start(t, portaltest.Options{Now: uploadNow, Postgres: engine == "postgres"}))
		})
	}
}

func testUndoUpload(t *testing.T, p *portaltest.Portal) {
	ctx := context.Background()
	data := enrolledSheet(t, p, "tagihan.xlsx", sheettest.Options{Rows: 12, Students: 4})
	c := p.SignedIn(t, "finance")
	id := uploadIDFrom(t, postUpload(t, p, c, "components", "tagihan.xlsx", data))
	waitUpload(t, p, id)
	// Not finished yet: nothing offered, a POST does nothing.
	if res := c.Get("/uploads/" + id); res.Doc.Find(`[data-testid="upload-undo"]`).Length() != 0 {
		t.Error("undo offered before the upload is sent")
	}
	c.Post("/uploads/"+id+"/commit", confirmYes())
	if j := waitUpload(t, p, id); j.State != uploads.StateDone {
		t.Fatalf("upload: %s", j.State)
	}
	created, _ := p.DB.UploadCreated(ctx, id)
	if len(created) != 12 {
		t.Fatalf("remembered %d components", len(created))
	}
	var paid billing.Bill
	for _, cid := range created {
		if b, _ := p.Billing.GetComponent(ctx, cid); b.Active.IsZero() || !b.Active.After(uploadNow) {
			paid = b
			break
		}
	}
	if _, err := p.Billing.Pay(ctx, billing.Payment{NIS: paid.NIS, ComponentIDs: []string{paid.ComponentID}}); err != nil {
		t.Fatal(err)
	}
	p.SyncLedger(t)

	res := c.Get("/uploads/" + id)
	if !strings.Contains(stext(res, `[data-testid="undo-plan"]`), "11 tagihan") || !strings.Contains(stext(res, `[data-testid="undo-paid"]`), paid.Name) {
		t.Fatalf("undo card: %q / %q", stext(res, `[data-testid="undo-plan"]`), stext(res, `[data-testid="undo-paid"]`))
	}
	if svalue(res, "#f-reason") != "Unggahan tagihan.xlsx dibatalkan" {
		t.Errorf("reason offered: %q", svalue(res, "#f-reason"))
	}
	if res := c.Post("/uploads/"+id+"/undo", url.Values{"reason": {" "}}); res.StatusCode != http.StatusUnprocessableEntity || stext(res, `[data-testid="error-reason"]`) == "" {
		t.Fatalf("undo without a reason: %d", res.StatusCode)
	}
	if res := c.Post("/uploads/"+id+"/undo", url.Values{"reason": {"salah semester"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("undo: %d", res.StatusCode)
	}
	job, err := p.DB.CorrectionJobForUpload(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	res = waitCorrection(t, c, "/corrections/"+job.ID)
	if stext(res, `[data-testid="correction-done"]`) != "11" || !strings.Contains(stext(res, `[data-testid="correction-problems"]`), "Sudah dibayar") {
		t.Errorf("job page: done %q, problems %q", stext(res, `[data-testid="correction-done"]`), stext(res, `[data-testid="correction-problems"]`))
	}
	res = c.Get("/uploads/" + id)
	if got := stext(res, `[data-testid="undo-result"]`); !strings.Contains(got, "11 tagihan dibatalkan") || !strings.Contains(got, "1 tagihan disimpan") {
		t.Errorf("result: %q", got)
	}
	for _, cid := range created {
		b, _ := p.Billing.GetComponent(ctx, cid)
		if (cid == paid.ComponentID) != (b.State == billing.StatePaid) || cid != paid.ComponentID && b.State != billing.StateDeleted {
			t.Errorf("%s: %s", cid, b.State)
		}
	}
	// Once only.
	if res := c.Post("/uploads/"+id+"/undo", url.Values{"reason": {"lagi"}}); res.StatusCode != http.StatusSeeOther {
		t.Errorf("second undo: %d", res.StatusCode)
	}
	if jobs, _ := p.DB.CorrectionJobsInStates(ctx, corrections.StateQueued, corrections.StateRunning, corrections.StateDone, corrections.StatePartial); len(jobs) != 1 {
		t.Errorf("%d correction jobs, want 1", len(jobs))
	}
}
