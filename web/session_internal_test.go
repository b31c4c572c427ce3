package web

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sekolah/portal/internal/app"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/config"
)

func TestSessionCookieSecureOverHTTPS(t *testing.T) {
	t.Parallel()
	keys := [2][]byte{[]byte(strings.Repeat("h", 32)), []byte(strings.Repeat("b", 32))}
	tests := []struct {
		name   string
		cfg    config.Config
		tls    bool
		proto  string
		secure bool
	}{
		{"plain http", config.Config{}, false, "", false},
		{"https", config.Config{}, true, "", true},
		{"forwarded https, proxy not trusted", config.Config{}, false, "https", false},
		{"forwarded https behind a trusted proxy", config.Config{TrustedProxies: prefixes("192.0.2.0/24")}, false, "https", true},
		{"forced", config.Config{SecureCookies: true}, false, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHandler(Deps{App: &app.App{Config: tt.cfg, Clock: clock.System(time.UTC)}, SessionKeys: keys})
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			if tt.tls {
				r.TLS = &tls.ConnectionState{}
			}
			if tt.proto != "" {
				r.Header.Set("X-Forwarded-Proto", tt.proto)
			}
			w := httptest.NewRecorder()
			s := h.session(r)
			h.renewSession(s)
			h.saveSession(w, r, s)
			cookies := w.Result().Cookies()
			if len(cookies) != 1 {
				t.Fatalf("cookies = %v", cookies)
			}
			c := cookies[0]
			if c.Secure != tt.secure || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
				t.Fatalf("cookie %+v, want Secure=%v HttpOnly SameSite=Lax", c, tt.secure)
			}
		})
	}
}
