package web_test

import (
	"net/http"
	"testing"

	"github.com/sekolah/portal/internal/portaltest"
)

// A record nobody has is a 404 before any handler runs, whichever domain was asked: a
// member of staff, a fee template, a registration, a student neither the roster nor the
// service knows, an upload.
func TestUnknownRecordsAreNotFound(t *testing.T) {
	t.Parallel()
	p := portaltest.Start(t, portaltest.Options{})
	admin := p.SignedIn(t, "admin")
	for _, path := range []string{"/staff/nope", "/settings/fee-templates/nope", "/registrations/nope", "/students/99887766", "/uploads/nope"} {
		if res := admin.Get(path); res.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d", path, res.StatusCode)
		}
	}
}
