package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"time"

	"github.com/gorilla/sessions"

	"github.com/sekolah/portal/views/viewctx"
)

const (
	sessionName = "portal_session"
	keyUserID   = "uid"
	keyCSRF     = "csrf"
	keySeen     = "seen"
	keyStarted  = "started"
	keyLang     = "lang"
	// maxSessionAge bounds a session however active it is: staff sign in again each week.
	maxSessionAge = 7 * 24 * time.Hour
)

// session loads the request's session; a cookie that no longer decodes (keys rotated,
// tampered) simply yields a fresh session.
func (h *Handler) session(r *http.Request) *sessions.Session {
	s, err := h.sessions.Get(r, sessionName)
	if err != nil {
		s, _ = h.sessions.New(r, sessionName)
		s.IsNew = true
	}
	return s
}

// saveSession writes the cookie with Secure set when the request came over HTTPS.
func (h *Handler) saveSession(w http.ResponseWriter, r *http.Request, s *sessions.Session) {
	opts := *h.sessions.Options
	opts.Secure = h.cfg.SecureCookies || h.isHTTPS(r)
	s.Options = &opts
	if err := s.Save(r, w); err != nil {
		h.log.Error("save session", "err", err)
	}
}

// renewSession drops everything the session held and issues a new CSRF token, so a
// session identifier planted before sign-in is worthless after it.
func (h *Handler) renewSession(s *sessions.Session) {
	lang := s.Values[keyLang]
	for k := range s.Values {
		delete(s.Values, k)
	}
	if lang != nil {
		s.Values[keyLang] = lang
	}
	s.Values[keyCSRF] = newToken()
	now := h.now().Unix()
	s.Values[keyStarted] = now
	s.Values[keySeen] = now
}

func newToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func sameToken(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// addFlash queues a message for the next page the person sees.
func (h *Handler) addFlash(w http.ResponseWriter, r *http.Request, kind, text string) {
	s := h.session(r)
	s.AddFlash(kind + "\x00" + text)
	h.saveSession(w, r, s)
}

func takeFlashes(s *sessions.Session) []viewctx.Flash {
	var out []viewctx.Flash
	for _, f := range s.Flashes() {
		str, _ := f.(string)
		for i := 0; i < len(str); i++ {
			if str[i] == 0 {
				out = append(out, viewctx.Flash{Kind: str[:i], Text: str[i+1:]})
				break
			}
		}
	}
	return out
}
