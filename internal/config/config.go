// Package config reads the portal's configuration from the environment into a typed struct,
// validated once at start-up.
package config

import (
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Upstream environments the portal can be connected to.
const (
	EnvSandbox    = "sandbox"
	EnvTest       = "test"
	EnvProduction = "production"
)

// Config is the whole configuration of one portal process.
type Config struct {
	Addr string
	// MetricsAddr is where /metrics is served, in Prometheus' text format, on a listener of
	// its own (PORTAL_METRICS_ADDR, host:port); empty: no metrics are served.
	MetricsAddr string
	DatabaseURL string
	DataDir     string

	UpstreamURL      string
	UpstreamUsername string
	UpstreamPassword string
	UpstreamEnv      string
	UpstreamTimeout  time.Duration
	// UpstreamDeadline bounds one logical call to the service, its retries
	// included (PORTAL_UPSTREAM_DEADLINE, default 45s).
	UpstreamDeadline time.Duration
	AccountCodes     []string

	Location      *time.Location
	AdminPassword string
	SessionKey    string
	SessionIdle   time.Duration
	// SecureCookies forces the Secure cookie flag; otherwise it follows the request scheme.
	SecureCookies bool
	// PublicURL is the address people reach the portal at (PORTAL_PUBLIC_URL), an absolute
	// http(s) URL without a trailing slash; the settings page builds the public
	// registration form's link from it, never from a request's Host header. Empty: unknown.
	PublicURL string
	// TrustedProxies are the reverse proxies in front of the portal (PORTAL_TRUSTED_PROXIES):
	// X-Forwarded-For and X-Forwarded-Proto are believed only from them. Empty: from nobody.
	TrustedProxies []netip.Prefix

	// UploadMaxBytes is the largest spreadsheet accepted (PORTAL_UPLOAD_MAX_BYTES, default 20 MB).
	UploadMaxBytes int64
	// UploadChunkSize is the rows sent per batch call of an upload job (PORTAL_UPLOAD_CHUNK_SIZE, default 200).
	UploadChunkSize int
	// UploadConcurrency is the batch calls an upload job has in flight at once (PORTAL_UPLOAD_CONCURRENCY, default 3).
	UploadConcurrency int
	// UploadWait is how long a committed upload waits for a payment service that stopped
	// answering, trying again by itself, before it ends partly sent (PORTAL_UPLOAD_WAIT,
	// default 12h).
	UploadWait time.Duration

	// LedgerSyncEvery is how often the ledger's incremental sync runs (PORTAL_LEDGER_SYNC_EVERY,
	// default 1m).
	LedgerSyncEvery time.Duration
	// LedgerReconcileHour is the hour (0–23, in the school's zone) after which the nightly
	// full reconcile runs; -1 turns it off (PORTAL_LEDGER_RECONCILE_HOUR, default 2, "off").
	LedgerReconcileHour int
	// LiveEvery is how often an open dashboard or bills page asks whether its figures
	// changed (PORTAL_LIVE_EVERY, default 10s): a cheap question, answered with the new
	// figures only when they did.
	LiveEvery time.Duration
	// BankPayments is how often, about, a parent pays at a bank in the embedded sandbox's
	// demo school, each payment sent to the portal's callback (PORTAL_DEMO_BANK_PAYMENTS,
	// default 30s; "off" or 0 for none). Only with the embedded sandbox.
	BankPayments time.Duration

	// WhatsApp is the WhatsApp Business Cloud API the portal sends parents' messages
	// through (PORTAL_WHATSAPP_*); its zero value is none configured.
	WhatsApp WhatsApp
	// SMTP is the mail server the portal sends e-mail through (PORTAL_SMTP_URL,
	// PORTAL_MAIL_FROM); its zero value is none configured.
	SMTP SMTP
}

// DefaultWhatsAppURL is the Cloud API's address (Graph API v26.0, current since July 2026).
const DefaultWhatsAppURL = "https://graph.facebook.com/v26.0"

// WhatsApp is the Cloud API's configuration. The token and the app secret are never
// logged or shown.
type WhatsApp struct {
	// URL is the API's base, without a trailing slash (PORTAL_WHATSAPP_URL).
	URL string
	// Token is the bearer token of the app's system user (PORTAL_WHATSAPP_TOKEN).
	Token string
	// PhoneID is the business phone number's id the messages are sent from
	// (PORTAL_WHATSAPP_PHONE_ID).
	PhoneID string
	// AppSecret keys the webhook's X-Hub-Signature-256 (PORTAL_WHATSAPP_APP_SECRET).
	AppSecret string
	// VerifyToken answers the webhook's subscription handshake
	// (PORTAL_WHATSAPP_VERIFY_TOKEN); empty: one derived from the app secret, shown to
	// admins on Settings → Messages.
	VerifyToken string
}

// Configured reports whether a real Cloud API account is configured.
func (w WhatsApp) Configured() bool { return w.Token != "" }

// SMTP is the mail server's configuration. Its password is never logged or shown.
type SMTP struct {
	// Host and Port are the server's address; Port defaults to 587 (smtp) or 465 (smtps).
	Host, Port string
	// Username and Password authenticate (AUTH PLAIN), when given.
	Username, Password string
	// Implicit is smtps://: TLS from the first byte; otherwise STARTTLS when offered.
	Implicit bool
	// From is the sender (PORTAL_MAIL_FROM), e.g. "SMP Nusantara <keuangan@smp.sch.id>".
	From string
}

// Configured reports whether a real mail server is configured.
func (s SMTP) Configured() bool { return s.Host != "" }

// Address is host:port.
func (s SMTP) Address() string { return net.JoinHostPort(s.Host, s.Port) }

// MessageSandboxes reports which of the embedded message sandboxes the portal starts:
// with the embedded payment sandbox, each channel not configured gets one, so the demo
// sends (and shows) its messages out of the box.
func (c Config) MessageSandboxes() (whatsApp, mail bool) {
	if !c.Sandbox() {
		return false, false
	}
	return !c.WhatsApp.Configured(), !c.SMTP.Configured()
}

// Sandbox reports whether the portal runs against its embedded sandbox.
func (c Config) Sandbox() bool { return c.UpstreamURL == "" }

// Error names the variable that is wrong and why.
type Error struct {
	Var    string
	Reason string
}

func (e *Error) Error() string { return fmt.Sprintf("config: %s: %s", e.Var, e.Reason) }

// Load reads the configuration through getenv (os.Getenv in production, a map in tests).
func Load(getenv func(string) string) (Config, error) {
	get := func(key, def string) string {
		if v := strings.TrimSpace(getenv(key)); v != "" {
			return v
		}
		return def
	}
	var errs []error
	var err error
	c := Config{
		Addr:             get("PORTAL_ADDR", "127.0.0.1:8080"),
		DataDir:          get("PORTAL_DATA_DIR", "data"),
		UpstreamURL:      get("PORTAL_UPSTREAM_URL", ""),
		UpstreamUsername: get("PORTAL_UPSTREAM_USERNAME", ""),
		UpstreamPassword: getenv("PORTAL_UPSTREAM_PASSWORD"),
		UpstreamEnv:      strings.ToLower(get("PORTAL_UPSTREAM_ENV", "")),
		AdminPassword:    getenv("PORTAL_ADMIN_PASSWORD"),
		SessionKey:       get("PORTAL_SESSION_KEY", ""),
	}
	c.DatabaseURL = get("PORTAL_DATABASE_URL", "sqlite:"+strings.TrimSuffix(c.DataDir, "/")+"/portal.db")

	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		errs = append(errs, &Error{"PORTAL_ADDR", "want host:port, e.g. 127.0.0.1:8080"})
	}
	if c.MetricsAddr, err = metricsAddr(get("PORTAL_METRICS_ADDR", ""), c.Addr); err != nil {
		errs = append(errs, &Error{"PORTAL_METRICS_ADDR", err.Error()})
	}
	if tz := get("PORTAL_TZ", "Asia/Jakarta"); tz != "" {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			errs = append(errs, &Error{"PORTAL_TZ", fmt.Sprintf("unknown time zone %q", tz)})
		}
		c.Location = loc
	}
	if c.UpstreamURL == "" {
		if c.UpstreamEnv != "" && c.UpstreamEnv != EnvSandbox {
			errs = append(errs, &Error{"PORTAL_UPSTREAM_ENV", "is set but PORTAL_UPSTREAM_URL is empty (the embedded sandbox is used when the URL is empty)"})
		}
		c.UpstreamEnv = EnvSandbox
	} else {
		u, err := url.Parse(c.UpstreamURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			errs = append(errs, &Error{"PORTAL_UPSTREAM_URL", "want an absolute http(s) URL"})
		} else if u.User != nil {
			errs = append(errs, &Error{"PORTAL_UPSTREAM_URL", "must not contain credentials; use PORTAL_UPSTREAM_USERNAME and PORTAL_UPSTREAM_PASSWORD"})
		}
		switch c.UpstreamEnv {
		case EnvTest, EnvProduction:
		case "":
			errs = append(errs, &Error{"PORTAL_UPSTREAM_ENV", "required with PORTAL_UPSTREAM_URL: test or production"})
		default:
			errs = append(errs, &Error{"PORTAL_UPSTREAM_ENV", fmt.Sprintf("%q is not test or production", c.UpstreamEnv)})
		}
		if c.UpstreamUsername == "" {
			errs = append(errs, &Error{"PORTAL_UPSTREAM_USERNAME", "required with PORTAL_UPSTREAM_URL"})
		}
		if c.UpstreamPassword == "" {
			errs = append(errs, &Error{"PORTAL_UPSTREAM_PASSWORD", "required with PORTAL_UPSTREAM_URL"})
		}
	}

	if c.UpstreamTimeout, err = duration(get("PORTAL_UPSTREAM_TIMEOUT", "15s")); err != nil {
		errs = append(errs, &Error{"PORTAL_UPSTREAM_TIMEOUT", err.Error()})
	}
	if c.UpstreamDeadline, err = duration(get("PORTAL_UPSTREAM_DEADLINE", "45s")); err != nil {
		errs = append(errs, &Error{"PORTAL_UPSTREAM_DEADLINE", err.Error()})
	} else if c.UpstreamTimeout > 0 && c.UpstreamDeadline < c.UpstreamTimeout {
		errs = append(errs, &Error{"PORTAL_UPSTREAM_DEADLINE", fmt.Sprintf("%s is shorter than one attempt (PORTAL_UPSTREAM_TIMEOUT %s)", c.UpstreamDeadline, c.UpstreamTimeout)})
	}
	if c.SessionIdle, err = duration(get("PORTAL_SESSION_IDLE", "8h")); err != nil {
		errs = append(errs, &Error{"PORTAL_SESSION_IDLE", err.Error()})
	}
	errs = append(errs, c.loadLedger(get)...)
	for _, code := range strings.Split(get("PORTAL_ACCOUNT_CODES", "SPP,BCA,MANDIRI"), ",") {
		if code = strings.TrimSpace(code); code != "" {
			c.AccountCodes = append(c.AccountCodes, code)
		}
	}
	if len(c.AccountCodes) == 0 {
		errs = append(errs, &Error{"PORTAL_ACCOUNT_CODES", "needs at least one account code"})
	}
	if c.SessionKey != "" && len(c.SessionKey) < 32 {
		errs = append(errs, &Error{"PORTAL_SESSION_KEY", "must be at least 32 characters"})
	}
	if c.SecureCookies, err = boolean(get("PORTAL_SECURE_COOKIES", "false")); err != nil {
		errs = append(errs, &Error{"PORTAL_SECURE_COOKIES", err.Error()})
	}
	if get("PORTAL_TRUST_PROXY", "") != "" {
		// The old switch trusted any client's headers; refusing to start says what replaced it.
		errs = append(errs, &Error{"PORTAL_TRUST_PROXY", "is no longer read: remove it and set PORTAL_TRUSTED_PROXIES " +
			"to the addresses of the reverse proxies in front of the portal (comma-separated addresses or CIDRs, e.g. 127.0.0.1 or 10.0.0.0/8)"})
	}
	if c.PublicURL, err = publicURL(get("PORTAL_PUBLIC_URL", "")); err != nil {
		errs = append(errs, &Error{"PORTAL_PUBLIC_URL", err.Error()})
	}
	if c.TrustedProxies, err = prefixes(get("PORTAL_TRUSTED_PROXIES", "")); err != nil {
		errs = append(errs, &Error{"PORTAL_TRUSTED_PROXIES", err.Error()})
	}
	errs = append(errs, c.loadUploads(get)...)
	errs = append(errs, c.loadMessages(get, getenv)...)
	return c, errors.Join(errs...)
}

// loadLedger reads the ledger's sync settings and the demo's bank payments.
func (c *Config) loadLedger(get func(key, def string) string) []error {
	var errs []error
	var err error
	if c.LedgerSyncEvery, err = duration(get("PORTAL_LEDGER_SYNC_EVERY", "1m")); err != nil {
		errs = append(errs, &Error{"PORTAL_LEDGER_SYNC_EVERY", err.Error()})
	} else if c.LedgerSyncEvery < 5*time.Second {
		errs = append(errs, &Error{"PORTAL_LEDGER_SYNC_EVERY", "want at least 5s (each sync asks the payment service three times)"})
	}
	if c.LiveEvery, err = duration(get("PORTAL_LIVE_EVERY", "10s")); err != nil {
		errs = append(errs, &Error{"PORTAL_LIVE_EVERY", err.Error()})
	} else if c.LiveEvery < time.Second {
		errs = append(errs, &Error{"PORTAL_LIVE_EVERY", "want at least 1s"})
	}
	switch h := strings.ToLower(get("PORTAL_LEDGER_RECONCILE_HOUR", "2")); h {
	case "off", "-1":
		c.LedgerReconcileHour = -1
	default:
		if c.LedgerReconcileHour, err = strconv.Atoi(h); err != nil || c.LedgerReconcileHour < 0 || c.LedgerReconcileHour > 23 {
			errs = append(errs, &Error{"PORTAL_LEDGER_RECONCILE_HOUR", "want an hour from 0 to 23 (in PORTAL_TZ), or off"})
		}
	}
	switch v := strings.ToLower(get("PORTAL_DEMO_BANK_PAYMENTS", "")); {
	case v == "off" || v == "0":
	case v == "" && c.Sandbox():
		c.BankPayments = 30 * time.Second
	case v == "":
	case !c.Sandbox():
		errs = append(errs, &Error{"PORTAL_DEMO_BANK_PAYMENTS", "only works with the embedded sandbox (PORTAL_UPSTREAM_URL empty): a real service's payments come from real banks"})
	default:
		if c.BankPayments, err = duration(v); err != nil {
			errs = append(errs, &Error{"PORTAL_DEMO_BANK_PAYMENTS", err.Error() + `, or "off"`})
		}
	}
	return errs
}

// loadUploads reads the upload settings.
func (c *Config) loadUploads(get func(key, def string) string) []error {
	var errs []error
	var err error
	if c.UploadMaxBytes, err = byteSize(get("PORTAL_UPLOAD_MAX_BYTES", "20MB")); err != nil || c.UploadMaxBytes < 1<<10 || c.UploadMaxBytes > 512<<20 {
		errs = append(errs, &Error{"PORTAL_UPLOAD_MAX_BYTES", "want a size from 1KB to 512MB, such as 20MB or 20971520"})
	}
	if c.UploadChunkSize, err = strconv.Atoi(get("PORTAL_UPLOAD_CHUNK_SIZE", "200")); err != nil || c.UploadChunkSize < 1 || c.UploadChunkSize > 1000 {
		errs = append(errs, &Error{"PORTAL_UPLOAD_CHUNK_SIZE", "want a whole number from 1 to 1000 (the billing service takes at most 1000 per batch)"})
	}
	if c.UploadConcurrency, err = strconv.Atoi(get("PORTAL_UPLOAD_CONCURRENCY", "3")); err != nil || c.UploadConcurrency < 1 || c.UploadConcurrency > 16 {
		errs = append(errs, &Error{"PORTAL_UPLOAD_CONCURRENCY", "want a whole number from 1 to 16"})
	}
	if c.UploadWait, err = duration(get("PORTAL_UPLOAD_WAIT", "12h")); err != nil || c.UploadWait < time.Minute {
		errs = append(errs, &Error{"PORTAL_UPLOAD_WAIT", "want a duration of at least 1m, such as 12h or 90m"})
	}
	return errs
}

// loadMessages reads the WhatsApp Cloud API's and the mail server's settings. A value of
// a secret never appears in an error.
func (c *Config) loadMessages(get func(key, def string) string, getenv func(string) string) []error {
	var errs []error
	w := WhatsApp{
		URL: strings.TrimRight(get("PORTAL_WHATSAPP_URL", DefaultWhatsAppURL), "/"), Token: strings.TrimSpace(getenv("PORTAL_WHATSAPP_TOKEN")),
		PhoneID: get("PORTAL_WHATSAPP_PHONE_ID", ""), AppSecret: strings.TrimSpace(getenv("PORTAL_WHATSAPP_APP_SECRET")),
		VerifyToken: strings.TrimSpace(getenv("PORTAL_WHATSAPP_VERIFY_TOKEN")),
	}
	if u, err := url.Parse(w.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.RawQuery != "" {
		errs = append(errs, &Error{"PORTAL_WHATSAPP_URL", "want the Cloud API's absolute http(s) address with its version, e.g. " + DefaultWhatsAppURL})
	}
	switch {
	case w.Token == "" && (w.PhoneID != "" || w.AppSecret != "" || w.VerifyToken != ""):
		errs = append(errs, &Error{"PORTAL_WHATSAPP_TOKEN", "required with PORTAL_WHATSAPP_PHONE_ID, PORTAL_WHATSAPP_APP_SECRET and PORTAL_WHATSAPP_VERIFY_TOKEN"})
	case w.Token != "":
		if w.PhoneID == "" {
			errs = append(errs, &Error{"PORTAL_WHATSAPP_PHONE_ID", "required with PORTAL_WHATSAPP_TOKEN: the id of the business phone number (WhatsApp Manager → API setup)"})
		} else if strings.Trim(w.PhoneID, "0123456789") != "" {
			errs = append(errs, &Error{"PORTAL_WHATSAPP_PHONE_ID", "want the phone number's id, digits only (not the phone number itself)"})
		}
		if w.AppSecret == "" {
			errs = append(errs, &Error{"PORTAL_WHATSAPP_APP_SECRET", "required with PORTAL_WHATSAPP_TOKEN: the app secret checks the webhook's signatures"})
		}
		if strings.ContainsAny(w.Token, " \t\r\n") {
			errs = append(errs, &Error{"PORTAL_WHATSAPP_TOKEN", "must be one word (the token without \"Bearer\")"})
		}
	}
	c.WhatsApp = w

	if raw := get("PORTAL_SMTP_URL", ""); raw != "" {
		s, err := smtpURL(raw)
		if err != nil {
			errs = append(errs, &Error{"PORTAL_SMTP_URL", err.Error()})
		}
		c.SMTP = s
	}
	from := get("PORTAL_MAIL_FROM", "")
	switch {
	case from == "" && c.SMTP.Configured():
		errs = append(errs, &Error{"PORTAL_MAIL_FROM", "required with PORTAL_SMTP_URL: the sender, e.g. Keuangan SMP Nusantara <keuangan@smp.sch.id>"})
	case from != "":
		a, err := mail.ParseAddress(from)
		if err != nil {
			errs = append(errs, &Error{"PORTAL_MAIL_FROM", "want an e-mail address, optionally with a name: Keuangan SMP Nusantara <keuangan@smp.sch.id>"})
		} else {
			c.SMTP.From = a.String()
		}
	}
	return errs
}

// smtpURL reads smtp://user:pass@host:port (STARTTLS when offered) or smtps:// (TLS from
// the start). The error never repeats the URL: it may hold a password.
func smtpURL(raw string) (SMTP, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return SMTP{}, fmt.Errorf("want smtp://user:password@host:port (STARTTLS when the server offers it) or smtps://user:password@host:465")
	}
	s := SMTP{Host: u.Hostname(), Port: u.Port(), Implicit: u.Scheme == "smtps"}
	if s.Port == "" {
		s.Port = "587"
		if s.Implicit {
			s.Port = "465"
		}
	}
	if n, err := strconv.Atoi(s.Port); err != nil || n < 1 || n > 65535 {
		return SMTP{}, fmt.Errorf("the port is not a number from 1 to 65535")
	}
	if u.User != nil {
		s.Username = u.User.Username()
		s.Password, _ = u.User.Password()
	}
	return s, nil
}

// metricsAddr reads where the metrics are served: empty or "off" for nowhere, else a
// host:port with a port of its own (not PORTAL_ADDR's, on which the pages are served).
func metricsAddr(s, pagesAddr string) (string, error) {
	if s == "" || strings.EqualFold(s, "off") {
		return "", nil
	}
	const want = "want host:port for the metrics' own listener, e.g. 127.0.0.1:9090 (empty: off)"
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return "", errors.New(want)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("%q has no port from 1 to 65535: %s", s, want)
	}
	if strings.ContainsAny(host, " /?#@") {
		return "", fmt.Errorf("%q is not a host: %s", host, want)
	}
	if ph, pp, err := net.SplitHostPort(pagesAddr); err == nil && pp == port && (ph == host || ph == "" || host == "" ||
		ph == "0.0.0.0" || host == "0.0.0.0" || ph == "::" || host == "::") {
		return "", fmt.Errorf("%s is where the pages are served (PORTAL_ADDR %s): the metrics need a port of their own", s, pagesAddr)
	}
	return s, nil
}

// byteSize reads a size in bytes, optionally with a KB, MB or GB suffix (powers of 1024).
func byteSize(s string) (int64, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > (1<<40)/mult {
		return 0, fmt.Errorf("not a size: %q", s)
	}
	return n * mult, nil
}

// prefixes reads a comma-separated list of IP addresses and CIDRs; an address is a
// network of one. IPv4 networks written IPv6-mapped are stored as IPv4, which is how
// peers are compared.
func prefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		var p netip.Prefix
		if strings.Contains(entry, "/") {
			var err error
			if p, err = netip.ParsePrefix(entry); err != nil {
				return nil, fmt.Errorf("%q is not an IP address or CIDR (want e.g. 127.0.0.1 or 10.0.0.0/8)", entry)
			}
		} else {
			a, err := netip.ParseAddr(entry)
			if err != nil {
				return nil, fmt.Errorf("%q is not an IP address or CIDR (want e.g. 127.0.0.1 or 10.0.0.0/8)", entry)
			}
			a = a.WithZone("")
			p = netip.PrefixFrom(a, a.BitLen())
		}
		if a := p.Addr(); a.Is4In6() {
			if p.Bits() < 96 {
				return nil, fmt.Errorf("%q mixes IPv4 and IPv6 (write the IPv4 network, e.g. 192.168.0.0/16)", entry)
			}
			p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// publicURL reads the portal's own address: an absolute http(s) URL with a host, maybe a
// path (a portal behind a prefix), no credentials, query or fragment; the trailing slash
// is dropped so paths can be appended.
func publicURL(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	u, err := url.Parse(s)
	switch {
	case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
		return "", fmt.Errorf("want the absolute http(s) address people open the portal at, e.g. https://portal.sekolah.sch.id")
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "#"):
		return "", fmt.Errorf("want only the address, without credentials, ?query or #fragment, e.g. https://portal.sekolah.sch.id")
	}
	return strings.TrimRight(s, "/"), nil
}

func duration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("want a positive duration such as 15s or 8h, got %q", s)
	}
	return d, nil
}

func boolean(s string) (bool, error) {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, fmt.Errorf("want true or false, got %q", s)
	}
	return b, nil
}
