// Command loadtest signs in to a running portal and requests one page (by default the
// dashboard, served from the reports cache) over many connections for a while, then
// prints the latency percentiles. It talks to loopback addresses only.
//
//	PORTAL_LOADTEST_PASSWORD=... go run ./cmd/loadtest -url http://127.0.0.1:8080 -user admin -c 50 -d 30s
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

func main() {
	base := flag.String("url", "http://127.0.0.1:8080", "portal address (loopback only)")
	user := flag.String("user", "admin", "staff username; the password comes from PORTAL_LOADTEST_PASSWORD")
	path := flag.String("path", "/", "page to request")
	conns := flag.Int("c", 50, "concurrent connections")
	dur := flag.Duration("d", 30*time.Second, "how long to run")
	flag.Parse()
	if err := run(*base, *user, os.Getenv("PORTAL_LOADTEST_PASSWORD"), *path, *conns, *dur); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

var csrfRE = regexp.MustCompile(`name="csrf-token" content="([^"]+)"`)

func run(base, user, password, path string, conns int, dur time.Duration) error {
	u, err := url.Parse(base)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(u.Hostname()); u.Hostname() != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return errors.New("only loopback addresses are allowed")
	}
	if password == "" {
		return errors.New("set PORTAL_LOADTEST_PASSWORD")
	}
	jar, _ := cookiejar.New(nil)
	client := &http.Client{
		Jar:           jar,
		Timeout:       30 * time.Second,
		Transport:     &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	if err := signIn(client, base, user, password); err != nil {
		return err
	}
	// Warm the cache: the first view computes the figures.
	start := time.Now()
	if status, err := get(client, base+path); err != nil || status != http.StatusOK {
		return fmt.Errorf("first GET %s: %d %v", path, status, err)
	}
	fmt.Printf("first (uncached) GET %s: %v\n", path, time.Since(start).Round(time.Millisecond))

	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var mu sync.Mutex
	var all []time.Duration
	errs := 0
	var wg sync.WaitGroup
	began := time.Now()
	for range conns {
		wg.Go(func() {
			var mine []time.Duration
			bad := 0
			for ctx.Err() == nil {
				t := time.Now()
				status, err := get(client, base+path)
				if ctx.Err() != nil {
					break
				}
				if err != nil || status != http.StatusOK {
					bad++
					continue
				}
				mine = append(mine, time.Since(t))
			}
			mu.Lock()
			all = append(all, mine...)
			errs += bad
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(began)
	if len(all) == 0 {
		return fmt.Errorf("no successful requests (%d errors)", errs)
	}
	slices.Sort(all)
	pct := func(p float64) time.Duration { return all[min(len(all)-1, int(float64(len(all))*p))] }
	fmt.Printf("GET %s, %d connections, %v: %d requests (%.0f/s), %d errors\n", path, conns, dur, len(all), float64(len(all))/elapsed.Seconds(), errs)
	fmt.Printf("p50 %v  p90 %v  p99 %v  max %v\n", pct(0.50).Round(10*time.Microsecond), pct(0.90).Round(10*time.Microsecond),
		pct(0.99).Round(10*time.Microsecond), all[len(all)-1].Round(10*time.Microsecond))
	return nil
}

func get(c *http.Client, u string) (int, error) {
	res, err := c.Get(u)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	_, err = io.Copy(io.Discard, res.Body)
	return res.StatusCode, err
}

// signIn fetches the sign-in form for its CSRF token and posts the credentials.
func signIn(c *http.Client, base, user, password string) error {
	res, err := c.Get(base + "/login")
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := csrfRE.FindSubmatch(body)
	if m == nil {
		return errors.New("no CSRF token on the sign-in page")
	}
	form := url.Values{"username": {user}, "password": {password}, "csrf_token": {string(m[1])}}
	req, err := http.NewRequest(http.MethodPost, base+"/login", strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	res, err = c.Do(req)
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		return fmt.Errorf("sign-in answered %d", res.StatusCode)
	}
	return nil
}
