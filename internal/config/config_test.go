package config

import (
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadDefaults(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if c.Addr != "127.0.0.1:8080" || c.DatabaseURL != "sqlite:data/portal.db" || !c.Sandbox() ||
		c.UpstreamEnv != EnvSandbox || c.Location.String() != "Asia/Jakarta" {
		t.Fatalf("unexpected defaults: %+v", c)
	}
	if strings.Join(c.AccountCodes, ",") != "SPP,BCA,MANDIRI" {
		t.Fatalf("account codes = %v", c.AccountCodes)
	}
	if c.UpstreamTimeout != 15*time.Second || c.UpstreamDeadline != 45*time.Second {
		t.Fatalf("upstream timeout %v, deadline %v", c.UpstreamTimeout, c.UpstreamDeadline)
	}
	if c, err := Load(env(map[string]string{"PORTAL_UPSTREAM_DEADLINE": "2m"})); err != nil || c.UpstreamDeadline != 2*time.Minute {
		t.Fatalf("PORTAL_UPSTREAM_DEADLINE=2m: %v, %v", c.UpstreamDeadline, err)
	}
}

func TestLoadNamesTheBadVariable(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"addr", map[string]string{"PORTAL_ADDR": "8080"}, "PORTAL_ADDR"},
		{"tz", map[string]string{"PORTAL_TZ": "Mars/Olympus"}, "PORTAL_TZ"},
		{"env without url", map[string]string{"PORTAL_UPSTREAM_ENV": "production"}, "PORTAL_UPSTREAM_ENV"},
		{"url without env", map[string]string{"PORTAL_UPSTREAM_URL": "https://billing.example", "PORTAL_UPSTREAM_USERNAME": "u", "PORTAL_UPSTREAM_PASSWORD": "p"}, "PORTAL_UPSTREAM_ENV"},
		{"bad env", map[string]string{"PORTAL_UPSTREAM_URL": "https://billing.example", "PORTAL_UPSTREAM_ENV": "staging", "PORTAL_UPSTREAM_USERNAME": "u", "PORTAL_UPSTREAM_PASSWORD": "p"}, "PORTAL_UPSTREAM_ENV"},
		{"no username", map[string]string{"PORTAL_UPSTREAM_URL": "https://billing.example", "PORTAL_UPSTREAM_ENV": "test", "PORTAL_UPSTREAM_PASSWORD": "p"}, "PORTAL_UPSTREAM_USERNAME"},
		{"credentials in url", map[string]string{"PORTAL_UPSTREAM_URL": "https://u:p@billing.example", "PORTAL_UPSTREAM_ENV": "test", "PORTAL_UPSTREAM_USERNAME": "u", "PORTAL_UPSTREAM_PASSWORD": "p"}, "PORTAL_UPSTREAM_URL"},
		{"relative url", map[string]string{"PORTAL_UPSTREAM_URL": "billing", "PORTAL_UPSTREAM_ENV": "test", "PORTAL_UPSTREAM_USERNAME": "u", "PORTAL_UPSTREAM_PASSWORD": "p"}, "PORTAL_UPSTREAM_URL"},
		{"timeout", map[string]string{"PORTAL_UPSTREAM_TIMEOUT": "soon"}, "PORTAL_UPSTREAM_TIMEOUT"},
		{"deadline", map[string]string{"PORTAL_UPSTREAM_DEADLINE": "-1s"}, "PORTAL_UPSTREAM_DEADLINE"},
		{"deadline shorter than an attempt", map[string]string{"PORTAL_UPSTREAM_DEADLINE": "10s"}, "PORTAL_UPSTREAM_DEADLINE: 10s is shorter than one attempt"},
		{"short session key", map[string]string{"PORTAL_SESSION_KEY": "abc"}, "PORTAL_SESSION_KEY"},
		{"secure cookies", map[string]string{"PORTAL_SECURE_COOKIES": "yes please"}, "PORTAL_SECURE_COOKIES"},
		{"ledger sync interval", map[string]string{"PORTAL_LEDGER_SYNC_EVERY": "every minute"}, "PORTAL_LEDGER_SYNC_EVERY"},
		{"reconcile hour", map[string]string{"PORTAL_LEDGER_RECONCILE_HOUR": "2am"}, "PORTAL_LEDGER_RECONCILE_HOUR"},
		{"bank payments", map[string]string{"PORTAL_DEMO_BANK_PAYMENTS": "often"}, "PORTAL_DEMO_BANK_PAYMENTS"},
		{"live updates", map[string]string{"PORTAL_LIVE_EVERY": "100ms"}, "PORTAL_LIVE_EVERY"},
		{"trusted proxies", map[string]string{"PORTAL_TRUSTED_PROXIES": "10.0.0.0/8, proxy.internal"}, "PORTAL_TRUSTED_PROXIES"},
		{"trusted proxies bad cidr", map[string]string{"PORTAL_TRUSTED_PROXIES": "10.0.0.0/33"}, "PORTAL_TRUSTED_PROXIES"},
		{"old proxy switch", map[string]string{"PORTAL_TRUST_PROXY": "true"}, "PORTAL_TRUSTED_PROXIES"},
		{"upload wait", map[string]string{"PORTAL_UPLOAD_WAIT": "forever"}, "PORTAL_UPLOAD_WAIT"},
		{"upload wait too short", map[string]string{"PORTAL_UPLOAD_WAIT": "30s"}, "PORTAL_UPLOAD_WAIT"},
		{"old proxy switch off", map[string]string{"PORTAL_TRUST_PROXY": "false"}, "PORTAL_TRUST_PROXY"},
		{"whatsapp without token", map[string]string{"PORTAL_WHATSAPP_PHONE_ID": "1065", "PORTAL_WHATSAPP_APP_SECRET": "s3cret-app"}, "PORTAL_WHATSAPP_TOKEN"},
		{"whatsapp without phone id", map[string]string{"PORTAL_WHATSAPP_TOKEN": "EAAG-secret-token", "PORTAL_WHATSAPP_APP_SECRET": "s3cret-app"}, "PORTAL_WHATSAPP_PHONE_ID"},
		{"whatsapp phone number as id", map[string]string{"PORTAL_WHATSAPP_TOKEN": "EAAG-secret-token", "PORTAL_WHATSAPP_PHONE_ID": "+62 812", "PORTAL_WHATSAPP_APP_SECRET": "s3cret-app"}, "PORTAL_WHATSAPP_PHONE_ID"},
		{"whatsapp without secret", map[string]string{"PORTAL_WHATSAPP_TOKEN": "EAAG-secret-token", "PORTAL_WHATSAPP_PHONE_ID": "1065"}, "PORTAL_WHATSAPP_APP_SECRET"},
		{"whatsapp bearer typed in", map[string]string{"PORTAL_WHATSAPP_TOKEN": "Bearer EAAG-secret-token", "PORTAL_WHATSAPP_PHONE_ID": "1065", "PORTAL_WHATSAPP_APP_SECRET": "s3cret-app"}, "PORTAL_WHATSAPP_TOKEN"},
		{"whatsapp url", map[string]string{"PORTAL_WHATSAPP_URL": "graph.facebook.com"}, "PORTAL_WHATSAPP_URL"},
		{"smtp scheme", map[string]string{"PORTAL_SMTP_URL": "https://user:s3cret-pass@mail.example", "PORTAL_MAIL_FROM": "a@b.id"}, "PORTAL_SMTP_URL"},
		{"smtp port", map[string]string{"PORTAL_SMTP_URL": "smtp://user:s3cret-pass@mail.example:99999", "PORTAL_MAIL_FROM": "a@b.id"}, "PORTAL_SMTP_URL"},
		{"smtp without from", map[string]string{"PORTAL_SMTP_URL": "smtp://user:s3cret-pass@mail.example"}, "PORTAL_MAIL_FROM"},
		{"mail from", map[string]string{"PORTAL_MAIL_FROM": "keuangan at sekolah"}, "PORTAL_MAIL_FROM"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(env(tt.env))
			var cerr *Error
			if !errors.As(err, &cerr) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one naming %s", err, tt.want)
			}
			if strings.Contains(err.Error(), tt.env["PORTAL_UPSTREAM_PASSWORD"]+"@") && tt.env["PORTAL_UPSTREAM_PASSWORD"] != "" {
				t.Fatalf("error leaks a credential: %v", err)
			}
			for _, secret := range []string{"EAAG-secret-token", "s3cret-app", "s3cret-pass"} {
				if strings.Contains(err.Error(), secret) {
					t.Fatalf("error leaks a secret: %v", err)
				}
			}
		})
	}
}

func TestLoadRealUpstream(t *testing.T) {
	c, err := Load(env(map[string]string{
		"PORTAL_UPSTREAM_URL": "https://billing.example/api", "PORTAL_UPSTREAM_ENV": "Production",
		"PORTAL_UPSTREAM_USERNAME": "school", "PORTAL_UPSTREAM_PASSWORD": "issued",
		"PORTAL_ACCOUNT_CODES": " SPP , BNI ,", "PORTAL_TZ": "Asia/Makassar",
	}))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if c.Sandbox() || c.UpstreamEnv != EnvProduction || strings.Join(c.AccountCodes, ",") != "SPP,BNI" || c.Location.String() != "Asia/Makassar" {
		t.Fatalf("unexpected: %+v", c)
	}
}

func TestLoadUploads(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.UploadMaxBytes != 20<<20 || c.UploadChunkSize != 200 || c.UploadConcurrency != 3 {
		t.Fatalf("upload defaults: %d bytes, chunk %d, concurrency %d", c.UploadMaxBytes, c.UploadChunkSize, c.UploadConcurrency)
	}
	for in, want := range map[string]int64{"5MB": 5 << 20, "512k": 512 << 10, "1048576": 1 << 20, "2 mb": 2 << 20} {
		c, err := Load(env(map[string]string{"PORTAL_UPLOAD_MAX_BYTES": in}))
		if err != nil || c.UploadMaxBytes != want {
			t.Errorf("PORTAL_UPLOAD_MAX_BYTES=%q: %d, %v; want %d", in, c.UploadMaxBytes, err, want)
		}
	}
	if c.UploadWait != 12*time.Hour {
		t.Fatalf("upload wait default %v", c.UploadWait)
	}
	c, err = Load(env(map[string]string{"PORTAL_UPLOAD_CHUNK_SIZE": "1000", "PORTAL_UPLOAD_CONCURRENCY": "8", "PORTAL_UPLOAD_WAIT": "36h"}))
	if err != nil || c.UploadChunkSize != 1000 || c.UploadConcurrency != 8 || c.UploadWait != 36*time.Hour {
		t.Fatalf("chunk %d, concurrency %d, wait %v, %v", c.UploadChunkSize, c.UploadConcurrency, c.UploadWait, err)
	}
	for name, bad := range map[string]map[string]string{
		"PORTAL_UPLOAD_MAX_BYTES":   {"PORTAL_UPLOAD_MAX_BYTES": "lots"},
		"PORTAL_UPLOAD_CHUNK_SIZE":  {"PORTAL_UPLOAD_CHUNK_SIZE": "5000"},
		"PORTAL_UPLOAD_CONCURRENCY": {"PORTAL_UPLOAD_CONCURRENCY": "0"},
	} {
		_, err := Load(env(bad))
		var cerr *Error
		if !errors.As(err, &cerr) || !strings.Contains(err.Error(), name) {
			t.Errorf("%v: err = %v, want one naming %s", bad, err, name)
		}
	}
	if _, err := Load(env(map[string]string{"PORTAL_UPLOAD_MAX_BYTES": "1GB"})); err == nil {
		t.Error("1GB upload limit accepted")
	}
}

func TestLoadLedger(t *testing.T) {
	tests := []struct {
		env   map[string]string
		every time.Duration
		hour  int
		bank  time.Duration
	}{
		{map[string]string{}, time.Minute, 2, 30 * time.Second},
		{map[string]string{"PORTAL_LEDGER_SYNC_EVERY": "5m", "PORTAL_LEDGER_RECONCILE_HOUR": "23", "PORTAL_DEMO_BANK_PAYMENTS": "20s"}, 5 * time.Minute, 23, 20 * time.Second},
		{map[string]string{"PORTAL_LEDGER_RECONCILE_HOUR": "off", "PORTAL_DEMO_BANK_PAYMENTS": "off"}, time.Minute, -1, 0},
		{map[string]string{"PORTAL_LEDGER_RECONCILE_HOUR": "0", "PORTAL_DEMO_BANK_PAYMENTS": "0"}, time.Minute, 0, 0},
		// A real service: no demo payments unless asked, and asking is an error (below).
		{map[string]string{"PORTAL_UPSTREAM_URL": "https://client.example", "PORTAL_UPSTREAM_ENV": "test",
			"PORTAL_UPSTREAM_USERNAME": "10014", "PORTAL_UPSTREAM_PASSWORD": "x"}, time.Minute, 2, 0},
	}
	for _, tt := range tests {
		c, err := Load(env(tt.env))
		if err != nil || c.LedgerSyncEvery != tt.every || c.LedgerReconcileHour != tt.hour || c.BankPayments != tt.bank {
			t.Errorf("%v: every %v, hour %d, bank %v, %v; want %v %d %v", tt.env, c.LedgerSyncEvery, c.LedgerReconcileHour, c.BankPayments, err,
				tt.every, tt.hour, tt.bank)
		}
	}
	for name, bad := range map[string]map[string]string{
		"PORTAL_LEDGER_SYNC_EVERY":     {"PORTAL_LEDGER_SYNC_EVERY": "1s"},
		"PORTAL_LEDGER_RECONCILE_HOUR": {"PORTAL_LEDGER_RECONCILE_HOUR": "24"},
		"PORTAL_DEMO_BANK_PAYMENTS": {"PORTAL_DEMO_BANK_PAYMENTS": "20s", "PORTAL_UPSTREAM_URL": "https://client.example",
			"PORTAL_UPSTREAM_ENV": "test", "PORTAL_UPSTREAM_USERNAME": "10014", "PORTAL_UPSTREAM_PASSWORD": "x"},
	} {
		_, err := Load(env(bad))
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%v: err = %v, want one naming %s", bad, err, name)
		}
	}
}

func TestLoadTrustedProxies(t *testing.T) {
	tests := []struct {
		env  string
		want []netip.Prefix
	}{
		{"", nil},
		{"127.0.0.1", []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}},
		{" 10.1.2.3/8 , ::1, 2001:db8::/32,", []netip.Prefix{
			netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128"), netip.MustParsePrefix("2001:db8::/32"),
		}},
		// An IPv4 network written in its IPv6-mapped form matches IPv4 peers.
		{"::ffff:192.168.0.0/112", []netip.Prefix{netip.MustParsePrefix("192.168.0.0/16")}},
	}
	for _, tt := range tests {
		c, err := Load(env(map[string]string{"PORTAL_TRUSTED_PROXIES": tt.env}))
		if err != nil || !slices.Equal(c.TrustedProxies, tt.want) {
			t.Errorf("PORTAL_TRUSTED_PROXIES=%q: %v, %v; want %v", tt.env, c.TrustedProxies, err, tt.want)
		}
	}
	// The old switch names its replacement, so an upgrade does not silently trust nobody.
	_, err := Load(env(map[string]string{"PORTAL_TRUST_PROXY": "true"}))
	if err == nil || !strings.Contains(err.Error(), "PORTAL_TRUST_PROXY") || !strings.Contains(err.Error(), "set PORTAL_TRUSTED_PROXIES") {
		t.Errorf("PORTAL_TRUST_PROXY=true: err = %v", err)
	}
	// A bad entry is quoted, so the operator sees which one.
	_, err = Load(env(map[string]string{"PORTAL_TRUSTED_PROXIES": "10.0.0.1,10.0.0.300"}))
	if err == nil || !strings.Contains(err.Error(), `"10.0.0.300"`) {
		t.Errorf("bad entry: err = %v", err)
	}
}

func TestLoadPublicURL(t *testing.T) {
	if c, err := Load(env(nil)); err != nil || c.PublicURL != "" {
		t.Fatalf("default: %q, %v", c.PublicURL, err)
	}
	for in, want := range map[string]string{
		"https://portal.sekolah.sch.id":          "https://portal.sekolah.sch.id",
		"https://portal.sekolah.sch.id/":         "https://portal.sekolah.sch.id",
		"http://10.0.0.5:8080/keuangan/":         "http://10.0.0.5:8080/keuangan",
		"  https://Portal.Sekolah.sch.id/portal": "https://Portal.Sekolah.sch.id/portal",
	} {
		c, err := Load(env(map[string]string{"PORTAL_PUBLIC_URL": in}))
		if err != nil || c.PublicURL != want {
			t.Errorf("PORTAL_PUBLIC_URL=%q: %q, %v; want %q", in, c.PublicURL, err, want)
		}
	}
	for _, bad := range []string{"portal.sekolah.sch.id", "/register", "ftp://portal.sekolah.sch.id", "https://",
		"https://user:pass@portal.sekolah.sch.id", "https://portal.sekolah.sch.id/?x=1", "https://portal.sekolah.sch.id/#top",
		"javascript:alert(1)"} {
		_, err := Load(env(map[string]string{"PORTAL_PUBLIC_URL": bad}))
		var ce *Error
		if !errors.As(err, &ce) || ce.Var != "PORTAL_PUBLIC_URL" {
			t.Errorf("PORTAL_PUBLIC_URL=%q: %v, want an error naming the variable", bad, err)
		}
	}
}

func TestLoadMessages(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.WhatsApp.URL != DefaultWhatsAppURL || c.WhatsApp.Configured() || c.SMTP.Configured() {
		t.Fatalf("defaults: %+v %+v", c.WhatsApp, c.SMTP)
	}
	if wa, mail := c.MessageSandboxes(); !wa || !mail {
		t.Fatalf("the embedded sandbox without messages configured starts both message sandboxes: %v %v", wa, mail)
	}
	c, err = Load(env(map[string]string{
		"PORTAL_WHATSAPP_URL": "https://graph.facebook.com/v26.0/", "PORTAL_WHATSAPP_TOKEN": "tok", "PORTAL_WHATSAPP_PHONE_ID": "106540352242922",
		"PORTAL_WHATSAPP_APP_SECRET": "sec", "PORTAL_SMTP_URL": "smtps://keu%40smp.sch.id:p%40ss@mail.smp.sch.id",
		"PORTAL_MAIL_FROM": "Keuangan SMP <keuangan@smp.sch.id>",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if w := c.WhatsApp; w.URL != "https://graph.facebook.com/v26.0" || w.Token != "tok" || w.PhoneID != "106540352242922" || w.AppSecret != "sec" || !w.Configured() {
		t.Fatalf("whatsapp %+v", w)
	}
	if s := c.SMTP; s.Address() != "mail.smp.sch.id:465" || !s.Implicit || s.Username != "keu@smp.sch.id" || s.Password != "p@ss" ||
		s.From != `"Keuangan SMP" <keuangan@smp.sch.id>` {
		t.Fatalf("smtp %+v", s)
	}
	if wa, mail := c.MessageSandboxes(); wa || mail {
		t.Fatalf("configured channels get no sandbox: %v %v", wa, mail)
	}
	c, err = Load(env(map[string]string{"PORTAL_SMTP_URL": "smtp://mail.local", "PORTAL_MAIL_FROM": "a@b.id"}))
	if err != nil || c.SMTP.Address() != "mail.local:587" || c.SMTP.Implicit || c.SMTP.Username != "" {
		t.Fatalf("smtp:// defaults to 587 with STARTTLS: %+v %v", c.SMTP, err)
	}
	if wa, mail := c.MessageSandboxes(); !wa || mail {
		t.Fatalf("only WhatsApp gets a sandbox: %v %v", wa, mail)
	}
}

// PORTAL_METRICS_ADDR: off unless set; a host:port of its own, never the pages' address.
func TestLoadMetricsAddr(t *testing.T) {
	if c, err := Load(env(nil)); err != nil || c.MetricsAddr != "" {
		t.Fatalf("default: %q %v; want off", c.MetricsAddr, err)
	}
	for _, ok := range []struct{ in, want string }{
		{"127.0.0.1:9090", "127.0.0.1:9090"}, {":9090", ":9090"}, {"[::1]:9090", "[::1]:9090"},
		{"metrics.internal:9100", "metrics.internal:9100"}, {"off", ""}, {"OFF", ""}, {"  ", ""},
	} {
		c, err := Load(env(map[string]string{"PORTAL_METRICS_ADDR": ok.in}))
		if err != nil || c.MetricsAddr != ok.want {
			t.Errorf("PORTAL_METRICS_ADDR=%q: %q %v; want %q", ok.in, c.MetricsAddr, err, ok.want)
		}
	}
	for _, bad := range []struct{ in, addr string }{
		{"9090", ""}, {"localhost", ""}, {"127.0.0.1:", ""}, {"127.0.0.1:metrics", ""}, {"127.0.0.1:70000", ""},
		{"127.0.0.1:0", ""}, {"http://127.0.0.1:9090", ""}, {"127.0.0.1:8080", ""}, {":8080", ""},
		{"0.0.0.0:8081", ":8081"}, {"127.0.0.1:8081", "0.0.0.0:8081"},
	} {
		e := map[string]string{"PORTAL_METRICS_ADDR": bad.in}
		if bad.addr != "" {
			e["PORTAL_ADDR"] = bad.addr
		}
		_, err := Load(env(e))
		var ce *Error
		if !errors.As(err, &ce) || ce.Var != "PORTAL_METRICS_ADDR" || !strings.Contains(err.Error(), "PORTAL_METRICS_ADDR") {
			t.Errorf("PORTAL_METRICS_ADDR=%q (PORTAL_ADDR %q): %v; want refused, naming the variable", bad.in, bad.addr, err)
		}
	}
}
