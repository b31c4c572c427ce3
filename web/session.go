package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"

	"github.com/gorilla/sessions"

	"github.com/sekolah/portal/views/viewctx"
)

// The session cookie is signed and encrypted (gorilla/sessions' CookieStore) and holds:
//
//   - the token of the signed-in session, whose row in the database (internal/auth) is
//     what grants access: ending the row ends the session on every instance, whatever
//     copies of the cookie exist;
//   - the CSRF token, the language and the flashes;
//   - the reference of the counter payment this browser just recorded, until its receipt
//     is first shown: that showing is the original, every later one a copy (SALINAN).
//
// The CSRF token and the flashes stay in the cookie because visitors who are not signed in
// need them too (the sign-in form, "you have signed out"), and a row per anonymous visitor
// would let anyone fill the table; the cookie's encryption keeps them unforgeable and
// unread. The CSRF token is replaced at every sign-in and sign-out, so one planted before
// is worthless after.
const (
	sessionName = "portal_session"
	keyToken    = "sid"
	keyCSRF     = "csrf"
	keyLang     = "lang"
	// keyFreshReceipt: see markReceiptOriginal.
	keyFreshReceipt = "receipt"
)

// session loads the request's cookie session; a cookie that no longer decodes (keys
// rotated, tampered) simply yields a fresh one.
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

// renewSession drops everything the cookie held but the language, the session token
// included, and issues a new CSRF token.
func (h *Handler) renewSession(s *sessions.Session) {
	lang := s.Values[keyLang]
	for k := range s.Values {
		delete(s.Values, k)
	}
	if lang != nil {
		s.Values[keyLang] = lang
	}
	s.Values[keyCSRF] = newToken()
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

// currentSessionKey is the context key of the signed-in session's id (loadSession).
type currentSessionKey struct{}

// currentSessionID is the id of the session the request is signed in with, "" when none;
// the sessions lists mark it "this session".
func currentSessionID(ctx context.Context) string {
	id, _ := ctx.Value(currentSessionKey{}).(string)
	return id
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
