package web

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/securecookie"

	"github.com/sekolah/portal/internal/auth"
)

// The device cookie says this browser signed in to an account before: set at every
// successful sign-in, signed and encrypted with the session keys (so it cannot be made or
// changed elsewhere), kept for auth.DefaultDeviceTrust. It grants nothing by itself: it
// only spares the device the account-wide lock a stranger's guesses from many addresses
// put on the account (auth.Attempt.Device); the password is checked as ever, and the
// device's own address stays under its limits.
const (
	deviceCookie = "portal_device"
	deviceMaxAge = int(auth.DefaultDeviceTrust / time.Second)
)

// knownDevice reads the request's device cookie; zero when it has none, or one that does
// not decode (keys rotated, tampered).
func (h *Handler) knownDevice(r *http.Request) auth.KnownDevice {
	c, err := r.Cookie(deviceCookie)
	if err != nil {
		return auth.KnownDevice{}
	}
	var v string
	if err := securecookie.DecodeMulti(deviceCookie, c.Value, &v, h.sessions.Codecs...); err != nil {
		return auth.KnownDevice{}
	}
	name, at, ok := strings.Cut(v, "\n")
	sec, err := strconv.ParseInt(at, 10, 64)
	if !ok || err != nil {
		return auth.KnownDevice{}
	}
	return auth.KnownDevice{Username: name, At: time.Unix(sec, 0).UTC()}
}

// rememberDevice sets the device cookie for username, signed in now.
func (h *Handler) rememberDevice(w http.ResponseWriter, r *http.Request, username string) {
	v, err := securecookie.EncodeMulti(deviceCookie, username+"\n"+strconv.FormatInt(h.now().Unix(), 10), h.sessions.Codecs...)
	if err != nil {
		h.log.Warn("device cookie", "err", err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: deviceCookie, Value: v, Path: "/", MaxAge: deviceMaxAge, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: h.cfg.SecureCookies || h.isHTTPS(r)})
}
