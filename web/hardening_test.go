package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/sekolah/portal/internal/config"
	"github.com/sekolah/portal/internal/portaltest"
)

// TestErrorPageBannerWithTheDatabaseDown: while the database is down every page is the
// 500 page, and its banner says the environment the configuration names (here the test
// service), never the sandbox's: the banner must not depend on the database.
func TestErrorPageBannerWithTheDatabaseDown(t *testing.T) {
	t.Parallel()
	for _, env := range []string{config.EnvTest, config.EnvProduction} {
		t.Run(env, func(t *testing.T) {
			t.Parallel()
			p := portaltest.Start(t, portaltest.Options{Env: env})
			c := p.SignedIn(t, "finance")
			if err := p.DB.Close(); err != nil {
				t.Fatal(err)
			}
			for _, path := range []string{"/", "/students", "/login"} {
				res := c.Get(path)
				if path != "/login" && res.StatusCode != http.StatusInternalServerError {
					t.Fatalf("%s with the database down: status %d", path, res.StatusCode)
				}
				banner := res.Doc.Find(`[data-testid="env-banner"]`)
				if cls, _ := banner.Attr("class"); !strings.Contains(cls, "env-banner--"+env) {
					t.Errorf("%s: banner %q (class %q), want the %s banner", path, banner.Text(), cls, env)
				}
				if strings.Contains(strings.ToUpper(res.Body), "SANDBOX") {
					t.Errorf("%s: the page mentions the sandbox", path)
				}
			}
		})
	}
}
