package portaltest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/chromium"
)

// Browser drives a tab of the test binary's one headless Chromium against a running
// portal.
type Browser struct {
	t    testing.TB
	p    *Portal
	Ctx  context.Context
	stop func()
}

// shared is the one browser of this test binary: started by the first browser test,
// shared by the others (each in a browser context of its own, so no cookie or storage
// crosses between tests), closed by CloseBrowser.
var shared struct {
	mu      sync.Mutex
	ctx     context.Context // the browser's first tab; every test's tab is made from it
	cancel  func()
	profile string
	err     error
}

// sharedChromium starts the browser once.
func sharedChromium(path string) (context.Context, error) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.ctx != nil || shared.err != nil {
		return shared.ctx, shared.err
	}
	profile, err := os.MkdirTemp("", "portaltest-chromium-")
	if err != nil {
		shared.err = err
		return nil, err
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("lang", "id-ID"),
	}
	if drawsOnlyWhenAsked(path) {
		opts = append(opts, chromedp.Flag("enable-begin-frame-control", true))
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	// The first call starts the browser; it must not carry a timeout (that would end the
	// browser with it). Later actions get their own deadlines.
	if err := chromedp.Do(ctx); err != nil {
		cancelB()
		cancelA()
		os.RemoveAll(profile)
		shared.err = fmt.Errorf("start chromium: %w", err)
		return nil, shared.err
	}
	shared.ctx, shared.profile = ctx, profile
	shared.cancel = func() { cancelB(); cancelA() }
	return ctx, nil
}

// drawsOnlyWhenAsked reports whether the test browser is to draw no frames of its own.
// The browser tests read the DOM and its layout, which Chromium computes whenever they
// (or a click) ask; drawing the pages nobody looks at was a quarter of the web package's
// CPU (43 s to 34 s). The headless shell draws only on HeadlessExperimental.beginFrame
// with --enable-begin-frame-control, so requestAnimationFrame never fires there: the
// portal's scripts do not use it, and tests poll on an interval, not on frames. Runs that
// save screenshots (PORTAL_SCREENSHOTS) draw as usual, and so does any other Chromium.
func drawsOnlyWhenAsked(path string) bool {
	return !SavesScreenshots() && strings.Contains(filepath.Base(path), "headless-shell")
}

// CloseBrowser ends the test binary's Chromium, if a test started it, and removes its
// profile. Call it from TestMain after m.Run.
func CloseBrowser() {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.cancel != nil {
		shared.cancel()
		os.RemoveAll(shared.profile)
	}
	shared.ctx, shared.cancel, shared.err = nil, nil, nil
}

// NewBrowser opens a tab for the test in a browser context of its own (fresh cookies and
// storage) on the test binary's one Chromium, started by the first test that asks. Without
// a browser on the machine the test is skipped, unless PORTAL_REQUIRE_BROWSER=1 (CI),
// where a missing browser is a failure.
func (p *Portal) NewBrowser(t testing.TB) *Browser {
	t.Helper()
	if _, err := ScreenshotDir(); err != nil {
		t.Fatal(err)
	}
	parent, err := sharedChromium(chromium.Find(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := chromedp.NewContext(parent, chromedp.WithNewBrowserContext())
	// The first run opens the tab; like the browser's, it carries no timeout.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		cancel()
		t.Fatalf("open a tab: %v", err)
	}
	if _, err := chromedp.Run(ctx, quiet); err != nil {
		cancel()
		t.Fatalf("open a tab: %v", err)
	}
	b := &Browser{t: t, p: p, Ctx: ctx, stop: cancel}
	t.Cleanup(b.stop)
	return b
}

// quiet turns off the DevTools domains chromedp enables on every tab that the tests do
// not read: CSS (an event per style sheet of every page, and the renderer's bookkeeping
// of them), Network (events for every request and response) and Log. The tests read the
// DOM, run scripts and watch downloads (the Browser domain), none of which needs them;
// network.SetCookies works with the domain off. The browser tests' CPU, Chromium's and
// the test binary's together, went from about 26 s to 24 s.
func quiet(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
	for _, disable := range []cdp.Command[cdp.Empty, cdp.Empty]{css.Disable, network.Disable, log.Disable} {
		if _, err := cdp.Call(ctx, tg, disable, cdp.Empty{}); err != nil {
			return cdp.Empty{}, err
		}
	}
	return cdp.Empty{}, nil
}

// actionTimeout bounds one step so a missing element fails the test instead of hanging it.
const actionTimeout = 20 * time.Second

// Do performs the steps and fails the test (saving a screenshot when asked) on error.
func (b *Browser) Do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, actionTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.Screenshot("failure-" + sanitize(b.t.Name()))
		b.t.Fatalf("browser: %v (at %s)", err, b.Location())
	}
}

// Get runs one action that returns a value.
func Get[T any](b *Browser, a chromedp.Action[T]) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, actionTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		b.Screenshot("failure-" + sanitize(b.t.Name()))
		b.t.Fatalf("browser: %v", err)
	}
	return v
}

// Visit opens a path of the portal and waits for the body.
func (b *Browser) Visit(path string) {
	b.t.Helper()
	b.Do(chromedp.Navigate(b.p.URL+path), chromedp.WaitReady(chromedp.CSS("body")))
}

// Click clicks the first element matching the CSS selector, once it is visible.
func (b *Browser) Click(sel string) {
	b.t.Helper()
	b.Do(chromedp.WaitVisible(chromedp.CSS(sel)), chromedp.Click(chromedp.CSS(sel)))
}

// SetUploadFiles puts files in the file input sel, once it is visible. A page that is
// still settling after a navigation (the DOM's document replaced between finding the
// input and setting its files) answers "Could not find node with given id": that is
// tried again within the step's time, anything else fails the test.
func (b *Browser) SetUploadFiles(sel string, paths ...string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, actionTimeout)
	defer cancel()
	for {
		err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(sel)), chromedp.SetUploadFiles(chromedp.CSS(sel), paths))
		if err == nil {
			return
		}
		if !strings.Contains(err.Error(), "Could not find node") || ctx.Err() != nil {
			b.Screenshot("failure-" + sanitize(b.t.Name()))
			b.t.Fatalf("browser: %v (at %s)", err, b.Location())
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Type replaces the value of an input by typing text into it.
func (b *Browser) Type(sel, text string) {
	b.t.Helper()
	b.Do(chromedp.WaitVisible(chromedp.CSS(sel)), chromedp.Clear(chromedp.CSS(sel)), chromedp.SendKeys(chromedp.CSS(sel), text))
}

// WaitVisible waits until an element matching sel is visible.
func (b *Browser) WaitVisible(sel string) {
	b.t.Helper()
	b.Do(chromedp.WaitVisible(chromedp.CSS(sel)))
}

// Login signs in through the form like a person.
func (b *Browser) Login(username, password string) {
	b.t.Helper()
	b.Visit("/login")
	b.Type(`#f-username`, username)
	b.Type(`#f-password`, password)
	b.Click(`[data-testid="sign-in"]`)
	b.Do(chromedp.WaitReady(chromedp.CSS(`[data-testid="user-name"], [data-testid="login-error"]`)))
}

// SignIn signs the tab in as username without going through the sign-in form: the
// session is opened over HTTP, as the tab's browser (its User-Agent), and its cookies are
// given to the tab, which stays where it is (blank, for a new tab) until the test visits
// its first page. Tests of signing in itself use Login; the rest save the form's pages.
func (b *Browser) SignIn(username, password string) {
	b.t.Helper()
	ua := Get(b, chromedp.Evaluate[string](`navigator.userAgent`))
	c := b.p.NewClient(b.t)
	c.Get("/login", "User-Agent", ua)
	res := c.Post("/login", url.Values{"username": {username}, "password": {password}}, "User-Agent", ua)
	if res.StatusCode != http.StatusSeeOther || strings.HasPrefix(res.Header.Get("Location"), "/login") {
		b.t.Fatalf("sign in %s: status %d, to %q", username, res.StatusCode, res.Header.Get("Location"))
	}
	u, err := url.Parse(b.p.URL)
	if err != nil {
		b.t.Fatal(err)
	}
	var cookies []*network.CookieParam
	for _, ck := range c.HTTP.Jar.Cookies(u) {
		cookies = append(cookies, &network.CookieParam{Name: ck.Name, Value: ck.Value, URL: b.p.URL + "/"})
	}
	if _, err := chromedp.Run(b.Ctx, func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
		return cdp.Call(ctx, tg, network.SetCookies, network.SetCookiesParams{Cookies: cookies})
	}); err != nil {
		b.t.Fatalf("give the tab the session: %v", err)
	}
}

// Text returns the visible text of the first element matching sel, waiting for it.
func (b *Browser) Text(sel string) string {
	b.t.Helper()
	b.WaitVisible(sel)
	return strings.TrimSpace(Get(b, chromedp.Text(chromedp.CSS(sel))))
}

// Count returns how many elements match sel right now.
func (b *Browser) Count(sel string) int {
	b.t.Helper()
	return Get(b, chromedp.Evaluate[int](`document.querySelectorAll(`+jsString(sel)+`).length`))
}

// Location returns the current path and query.
func (b *Browser) Location() string {
	ctx, cancel := context.WithTimeout(b.Ctx, 5*time.Second)
	defer cancel()
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname + location.search`))
	return s
}

// Screenshot saves a full-page PNG under PORTAL_SCREENSHOTS (when set), for reviews and
// for failures. PORTAL_SCREENSHOTS=docs is not a directory: it asks web's
// TestDocsScreenshots to renew the README's screenshots, and no other test's. A value
// that is not an absolute folder fails the test (see ScreenshotDir).
func (b *Browser) Screenshot(name string) {
	dir, err := ScreenshotDir()
	if err != nil {
		b.t.Fatal(err)
	}
	if dir == "" {
		return
	}
	ctx, cancel := context.WithTimeout(b.Ctx, 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return
	}
	_ = os.MkdirAll(dir, 0o755)
	_ = os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' {
			return '_'
		}
		return r
	}, s)
}

func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "`", "\\`", "$", `\$`)
	return "`" + r.Replace(s) + "`"
}

// WaitText waits until the first element matching sel shows exactly want (after a click
// that loads a new page, the old page may still be there for a moment).
func (b *Browser) WaitText(sel, want string) {
	b.t.Helper()
	expr := `(() => { const e = document.querySelector(` + jsString(sel) + `); return !!e && e.textContent.trim() === ` + jsString(want) + `; })()`
	// Evaluate in a loop rather than with chromedp.Poll: a poll does not survive the
	// navigation this is waiting for.
	deadline := time.After(actionTimeout)
wait:
	for {
		ctx, cancel := context.WithTimeout(b.Ctx, time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		cancel()
		if err == nil && ok {
			return
		}
		select {
		case <-deadline:
			break wait
		case <-time.After(50 * time.Millisecond):
		}
	}
	got := ""
	if b.Count(sel) > 0 {
		got = b.Text(sel)
	}
	b.Screenshot("failure-" + sanitize(b.t.Name()))
	b.t.Fatalf("%s shows %q, want %q", sel, got, want)
}
