package web

import (
	"context"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/i18n"
	"github.com/sekolah/portal/internal/store"
)

// TestDurationsNeverZero: how long an upload or a sync run took reads "kurang dari 1
// detik" / "under a second" when it was quicker than its unit, never "0 detik".
func TestDurationsNeverZero(t *testing.T) {
	t.Parallel()
	start := time.Date(2027, 3, 15, 3, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		lang     i18n.Lang
		d        time.Duration
		upload   string
		syncTook string
	}{
		{i18n.Indonesian, 300 * time.Millisecond, "kurang dari 1 detik", "0,3 dtk"},
		{i18n.Indonesian, 20 * time.Millisecond, "kurang dari 1 detik", "kurang dari 1 detik"},
		{i18n.English, 400 * time.Millisecond, "under a second", "0.4 s"},
		{i18n.English, 2 * time.Second, "2 s", "2.0 s"},
		{i18n.Indonesian, 65 * time.Second, "1 menit 5 detik", "1 mnt 05 dtk"},
	} {
		ctx := i18n.WithPrinter(context.Background(), i18n.Printer{Lang: c.lang})
		j := store.UploadJob{CommittedAt: start, FinishedAt: start.Add(c.d)}
		if got := uploadDuration(ctx, j, start); got != c.upload {
			t.Errorf("%s upload of %v reads %q, want %q", c.lang, c.d, got, c.upload)
		}
		if got := took(ctx, c.d); got != c.syncTook {
			t.Errorf("%s run of %v reads %q, want %q", c.lang, c.d, got, c.syncTook)
		}
	}
}
