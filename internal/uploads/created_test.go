package uploads_test

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/uploads"
	"github.com/sekolah/portal/internal/uploads/sheettest"
)

// TestUploadRemembersWhatItCreated: the components of every confirmed chunk are
// remembered for the upload's undo, those of chunks whose answer was lost (confirmed by
// reconciling) too, and nothing else.
func TestUploadRemembersWhatItCreated(t *testing.T) {
	t.Parallel()
	f := &faulty{path: "/bill_component/batch", lose: 2}
	e := newEnvWith(t, 2*time.Second, func(next http.RoundTripper) http.RoundTripper { f.next = next; return f })
	sh, err := sheettest.Components(filepath.Join(e.dir, "tagihan.xlsx"), sheettest.Options{Rows: 120, Students: 12})
	if err != nil {
		t.Fatal(err)
	}
	e.enrol(t, sh)
	cfg := e.config()
	cfg.ChunkSize = 30
	r := e.start(t, cfg)
	job := receive(t, r, uploads.Components, sh.Path)
	if err := r.Commit(context.Background(), job.ID, financeActor); err != nil {
		t.Fatal(err)
	}
	if done := wait(t, r, job.ID); done.State != uploads.StateDone || done.Created != 120 {
		t.Fatalf("job: %s, created %d", done.State, done.Created)
	}
	ids, err := e.db.UploadCreated(context.Background(), job.ID)
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]bool{}
	for b, err := range e.client.All(context.Background(), billing.Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		all[b.ComponentID] = true
	}
	if len(ids) != 120 || len(all) != 120 {
		t.Fatalf("remembered %d components, the service has %d, want 120", len(ids), len(all))
	}
	for _, id := range ids {
		if !all[id] {
			t.Errorf("remembered %s, which the service does not have", id)
		}
	}
}
