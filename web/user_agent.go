package web

import (
	"net/http"
	"strings"

	"github.com/sekolah/portal/internal/auth"
)

// device is where a request comes from, as a session records it.
func (h *Handler) device(r *http.Request) auth.Device {
	return auth.Device{Addr: h.clientIP(r), UserAgent: describeUserAgent(r.UserAgent())}
}

// uaBrowsers and uaSystems are matched in order: the first marker found in the
// User-Agent names the browser and the system (Edge and Opera also say "Chrome", Chrome
// also says "Safari", Android also says "Linux").
var (
	uaBrowsers = []struct{ marker, name string }{
		{"Edg/", "Edge"}, {"EdgA/", "Edge"}, {"EdgiOS/", "Edge"},
		{"OPR/", "Opera"}, {"Opera", "Opera"},
		{"SamsungBrowser/", "Samsung Internet"},
		{"Firefox/", "Firefox"}, {"FxiOS/", "Firefox"},
		{"CriOS/", "Chrome"}, {"Chromium/", "Chromium"}, {"Chrome/", "Chrome"},
		{"Safari/", "Safari"},
	}
	uaSystems = []struct{ marker, name string }{
		{"Windows", "Windows"},
		{"Android", "Android"},
		{"iPhone", "iPhone"}, {"iPad", "iPad"},
		{"Macintosh", "macOS"}, {"Mac OS X", "macOS"},
		{"CrOS", "ChromeOS"},
		{"Linux", "Linux"},
	}
)

// maxProductName bounds the name taken from an unknown client's User-Agent.
const maxProductName = 32

// describeUserAgent makes the short description the sessions list shows, such as
// "Firefox · Windows" or "Chrome · Android": names only, so it reads the same in every
// language. A client that is no known browser is named by its first product token
// ("curl"); nothing recognisable gives "".
func describeUserAgent(ua string) string {
	var browser, system string
	for _, b := range uaBrowsers {
		if strings.Contains(ua, b.marker) {
			browser = b.name
			break
		}
	}
	for _, s := range uaSystems {
		if strings.Contains(ua, s.marker) {
			system = s.name
			break
		}
	}
	if browser == "" && system == "" {
		product, _, _ := strings.Cut(strings.TrimSpace(ua), "/")
		if product == "Mozilla" || !printableToken(product) {
			return ""
		}
		return product
	}
	if browser == "" || system == "" {
		return browser + system
	}
	return browser + " · " + system
}

// printableToken reports whether s is a short product name: letters, digits, dots,
// dashes and underscores.
func printableToken(s string) bool {
	if s == "" || len(s) > maxProductName {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
