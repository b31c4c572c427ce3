// Package billing is the portal's client for the school billing service
// ("upstream"): students, bill components, searches, checkout, payments and
// the service's signed payment callback, as described in docs/upstream.md
// (the wire contract, version 2).
//
// The client owns the details every caller would otherwise repeat: the
// daily-changing Basic password and which date the service signs it with,
// per-attempt timeouts and an overall deadline per call, retries of
// idempotent calls, the response envelope, paging that survives a service
// capping its pages, and tolerant reading of the real service's records.
// Errors are *APIError values (or transport errors) that match the sentinels
// ErrNotFound, ErrUnauthorized, ErrValidation, ErrUnavailable and ErrTimeout
// with errors.Is, so the portal can pick a message by kind.
package billing

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Defaults applied by New when the Config leaves a field zero.
const (
	DefaultTimeout     = 15 * time.Second
	DefaultDeadline    = 45 * time.Second
	DefaultMaxAttempts = 4
	DefaultRetryBase   = 100 * time.Millisecond
	DefaultRetryMax    = 2 * time.Second
	DefaultZone        = "Asia/Jakarta"
)

// MaxLimit is the largest page of the component searches; All pages with it.
const MaxLimit = 1000

// MaxStudentLimit is the largest page of the student list; AllStudents pages with it.
const MaxStudentLimit = 1500

// Config holds what the client needs to reach one environment (test or production).
type Config struct {
	// BaseURL is the service address; user:password@ in it is accepted and
	// moved out of the URL so it never reaches an error text or a log.
	BaseURL string
	// Username is the user issued by the service operator.
	Username string
	// Password is the issued password; the client derives the daily one from it.
	Password string
	// Location is the service time zone that decides the daily password's date.
	Location *time.Location
	// Timeout bounds each attempt, reading the whole answer included.
	Timeout time.Duration
	// Deadline bounds one logical call, its retries and pauses included
	// (default 45s), so that no page waits for the sum of every attempt's
	// timeout. One page of an iterator is one call.
	Deadline time.Duration
	// MaxAttempts caps attempts of idempotent calls (GET, PUT, DELETE).
	MaxAttempts int
	// RetryBase is the first backoff step between retries (default 100ms).
	RetryBase time.Duration
	// RetryMax caps one backoff pause (default 2s).
	RetryMax time.Duration
	// HTTPClient replaces the default client (for a custom transport).
	HTTPClient *http.Client
	// Now is the portal's clock (clock.Clock.Func; a test's fixed moment); required. The
	// client reads no time of its own: this package is below internal/clock.
	Now func() time.Time
	// Logger receives one debug line per attempt; never credentials.
	Logger *slog.Logger
	// Observe, when set, is told of every call once it has ended (the portal's metrics:
	// internal/metrics counts calls, failures and retries by endpoint). It runs on the
	// caller's goroutine: it must be quick and must not block.
	Observe func(Call)
}

// Client calls the billing service; it is safe for concurrent use.
type Client struct {
	base        *url.URL
	username    string
	password    string
	loc         *time.Location
	timeout     time.Duration
	deadline    time.Duration
	maxAttempts int
	retryBase   time.Duration
	retryMax    time.Duration
	http        *http.Client
	now         func() time.Time
	log         *slog.Logger
	observe     func(Call)

	mu sync.Mutex
	// rule is the password date rule that worked on ruleDay (a day number in
	// the configured zone); other days start again from ruleOwn.
	rule    dateRule
	ruleDay int
	// zone is where zoneless timestamps are read: the configured zone until a
	// password date shows that the service counts days in another one.
	zone *time.Location
	// pageSize is the largest page the service was seen to answer, per path,
	// when it is below what was asked.
	pageSize map[string]int
}

// New checks cfg, fills in the defaults and returns a ready client.
func New(cfg Config) (*Client, error) {
	if strings.TrimSpace(cfg.BaseURL) == "" {
		return nil, errors.New("billing: config: BaseURL is empty")
	}
	u, err := url.Parse(strings.TrimSpace(cfg.BaseURL))
	if err != nil {
		// url.Error repeats the whole address, userinfo included: keep only the reason.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("billing: config: BaseURL is not a valid address: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("billing: config: BaseURL %q needs http:// or https:// and a host", u.Redacted())
	}
	username, password := cfg.Username, cfg.Password
	if u.User != nil {
		if username == "" {
			username = u.User.Username()
		}
		if p, ok := u.User.Password(); ok && password == "" {
			password = p
		}
		u.User = nil
	}
	if username == "" || password == "" {
		return nil, errors.New("billing: config: username and issued password are required")
	}
	if cfg.Now == nil {
		return nil, errors.New("billing: config: Now is required (the portal's clock)")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	u.RawQuery, u.Fragment = "", ""

	c := &Client{
		base:        u,
		username:    username,
		password:    password,
		loc:         cfg.Location,
		timeout:     cfg.Timeout,
		deadline:    cfg.Deadline,
		maxAttempts: cfg.MaxAttempts,
		retryBase:   cfg.RetryBase,
		retryMax:    cfg.RetryMax,
		http:        cfg.HTTPClient,
		now:         cfg.Now,
		log:         cfg.Logger,
		observe:     cfg.Observe,
	}
	if c.loc == nil {
		c.loc = defaultZone()
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.deadline <= 0 {
		c.deadline = DefaultDeadline
	}
	c.zone = c.loc
	c.pageSize = map[string]int{}
	if c.maxAttempts <= 0 {
		c.maxAttempts = DefaultMaxAttempts
	}
	if c.retryBase <= 0 {
		c.retryBase = DefaultRetryBase
	}
	if c.retryMax <= 0 {
		c.retryMax = DefaultRetryMax
	}
	if c.retryMax < c.retryBase {
		c.retryMax = c.retryBase
	}
	if c.http == nil {
		c.http = &http.Client{Transport: http.DefaultTransport}
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	return c, nil
}

// defaultZone is Asia/Jakarta; a host without the zone database still gets
// the right offset, since Jakarta has kept UTC+7 without DST since 1964.
func defaultZone() *time.Location {
	if loc, err := time.LoadLocation(DefaultZone); err == nil {
		return loc
	}
	return time.FixedZone("WIB", 7*60*60)
}

// DailyPassword is the password the service accepts on day's calendar date
// (day.Format("20060102") as given: pass day in the service zone).
func DailyPassword(issued string, day time.Time) string {
	inner := sha256.Sum256([]byte(issued))
	outer := sha256.Sum256([]byte(hex.EncodeToString(inner[:]) + day.Format("20060102")))
	return hex.EncodeToString(outer[:])
}
