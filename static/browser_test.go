package static

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/sekolah/portal/internal/chromium"
)

// testPage exercises every data-* behaviour of app.js with htmx loaded, under the
// portal's CSP.
const testPage = `<!DOCTYPE html>
<html lang="id"><head>
<meta charset="utf-8">
<meta name="csrf-token" content="tok-123">
<meta name="htmx-config" content='{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false}'>
<link rel="stylesheet" href="%s">
<script src="%s" defer></script>
<script src="%s" defer></script>
</head><body>
<div class="alert alert--info" id="note"><span>Hi</span><button type="button" data-dismiss>x</button></div>
<button type="button" id="hx-delete" hx-post="/echo?from=hx-delete" hx-target="#out">Hapus</button>
<form id="filters" method="get" action="/echo" hx-get="/echo" hx-target="#out" data-autosubmit>
  <select id="state" name="state"><option value="a">a</option><option value="b">b</option></select>
  <button class="js-hide" id="apply">Apply</button>
</form>
<button type="button" id="print" data-print>Cetak</button>
<div id="out"></div>
<form id="pay" method="post" action="/echo?from=pay">
  <input type="hidden" name="csrf_token" value="tok-123">
  <button id="pay-btn" name="go" value="yes">Bayar</button>
</form>
</body></html>`

type seen struct {
	method, from, csrf, hx, query, form string
}

func TestAppJSInBrowser(t *testing.T) {
	path := chromium.Find(t)

	var mu sync.Mutex
	var requests []seen
	paid := make(chan struct{}, 1)
	mux := http.NewServeMux()
	mux.Handle(Prefix, Handler())
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:")
		fmt.Fprintf(w, testPage, Path(AppCSS), Path(HTMX), Path(AppJS))
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		s := seen{r.Method, r.URL.Query().Get("from"), r.Header.Get("X-CSRF-Token"), r.Header.Get("HX-Request"), r.URL.Query().Get("state"), r.PostForm.Get("go")}
		mu.Lock()
		requests = append(requests, s)
		mu.Unlock()
		if s.from == "pay" {
			select {
			case paid <- struct{}{}:
			default: // a second submission; the count below reports it
			}
		}
		w.Header().Set("Content-Security-Policy", "default-src 'self'")
		fmt.Fprintf(w, `<p id="echoed">%s</p>`, html.EscapeString(fmt.Sprintf("%+v", s)))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	bctx, cancelB := chromedp.NewContext(actx)
	defer cancelB()
	// The first call starts the browser and must carry no timeout.
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	ctx, cancel := context.WithTimeout(bctx, 60*time.Second)
	defer cancel()

	do := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	eval := func(step, expr string) any {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[any](expr))
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		return v
	}
	wait := func(step, expr string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(15*time.Second))); err != nil {
			t.Fatalf("%s: waiting for %s: %v", step, expr, err)
		}
	}
	click := func(sel string) chromedp.Action[chromedp.Void] { return chromedp.Click(chromedp.CSS(sel)) }

	// Injected by the browser itself, so the page's CSP does not apply: it records any
	// CSP violation and records any confirm() asked (there should be none).
	const probe = `window.__csp = []; window.__asked = []; window.__printed = 0;
document.addEventListener("securitypolicyviolation", e => window.__csp.push(e.violatedDirective + " " + e.blockedURI));
window.confirm = m => { window.__asked.push(m); return true; };
window.print = () => { window.__printed++; };`
	do("load",
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: probe})
			return err
		}),
		chromedp.Navigate(srv.URL+"/page"),
	)
	wait("load", `document.documentElement.classList.contains("js") && !!window.htmx`)

	// data-dismiss removes the alert.
	do("dismiss", click("#note button"))
	wait("dismiss", `document.getElementById("note") === null`)

	// An hx-post button sends once, with the CSRF header.
	do("hx post", click("#hx-delete"))
	wait("hx post", `!!document.querySelector("#out #echoed")`)

	// data-autosubmit: changing the select makes htmx fetch the filtered list.
	// SetValue fires input and change as a person's choice does.
	do("autosubmit", chromedp.SetValue(chromedp.CSS("#state"), "b"))
	wait("autosubmit", `(document.querySelector("#out #echoed") || {textContent: ""}).textContent.includes("query:b")`)

	// data-print calls window.print; .js-hide hides the filter's Apply button.
	do("print", click("#print"))
	if got := eval("printed", `window.__printed`); got != float64(1) {
		t.Errorf("window.print called %v times, want 1", got)
	}
	if got := eval("js-hide", `getComputedStyle(document.getElementById("apply")).display`); got != "none" {
		t.Errorf(".js-hide button has display %v with JavaScript on", got)
	}

	if got := eval("csp", `window.__csp.join("; ")`); got != "" {
		t.Errorf("CSP violations: %v", got)
	}

	// A plain POST form submits once with the button's value, and nothing on the page
	// asks through the browser's confirm() (actions ask with a page of their own).
	do("form submit", click("#pay-btn"))
	select {
	case <-paid:
	case <-ctx.Done():
		t.Fatal("the form was not submitted")
	}
	if got := eval("asked", `window.__asked.join("|")`); got != "" {
		t.Errorf("window.confirm asked %q; the portal asks with a page, never a pop-up", got)
	}

	mu.Lock()
	defer mu.Unlock()
	var hxPosts, pays, filters int
	for _, s := range requests {
		switch {
		case s.from == "hx-delete":
			hxPosts++
			if s.method != "POST" || s.csrf != "tok-123" || s.hx != "true" {
				t.Errorf("htmx request %+v: want POST with X-CSRF-Token tok-123 and HX-Request", s)
			}
		case s.from == "pay":
			pays++
			if s.method != "POST" || s.form != "yes" || s.hx != "" {
				t.Errorf("form submit %+v: want a plain POST carrying the button's value", s)
			}
		case s.query == "b":
			filters++
			if s.csrf != "tok-123" || s.hx != "true" {
				t.Errorf("autosubmit request %+v: want htmx GET with the CSRF header", s)
			}
		}
	}
	if hxPosts != 1 {
		t.Errorf("hx-post sent %d times, want 1", hxPosts)
	}
	if pays != 1 {
		t.Errorf("form posted %d times, want 1", pays)
	}
	if filters != 1 {
		t.Errorf("filter form sent %d times, want 1", filters)
	}
}
