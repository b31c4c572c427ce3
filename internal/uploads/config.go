package uploads

import (
	"path/filepath"
	"time"

	"github.com/sekolah/portal/internal/billing"
	"github.com/sekolah/portal/internal/clock"
	"github.com/sekolah/portal/internal/config"
)

// ConfigFrom makes the runner's configuration from the portal's: the upload settings, the
// account codes, the upstream timeout as the time a call without an answer is given to
// land, and the data directory's old upload folder to move sheets from; and the portal's
// clock.
func ConfigFrom(c config.Config, clk clock.Clock) Config {
	return Config{
		Clock:       clk,
		Calendar:    clk,
		LegacyDir:   filepath.Join(c.DataDir, "uploads"),
		MaxBytes:    c.UploadMaxBytes,
		ChunkSize:   c.UploadChunkSize,
		Concurrency: c.UploadConcurrency,
		Accounts:    c.AccountCodes,
		Settle:      c.UpstreamTimeout,
		WaitFor:     c.UploadWait,
	}
}

// Config is how the runner reads, keeps and sends uploads.
type Config struct {
	// Clock is the portal's clock (internal/app sets it; required): the jobs' times, their
	// leases and waits, the age of files.
	Clock clock.Clock
	// Calendar is where the school's today is read, for the school year a due day is
	// expected in (default Clock). It is the portal's clock too; tests whose job runners
	// keep the real time (leases must lapse) give the portal's fixed one here.
	Calendar clock.Clock
	// LegacyDir is where uploaded sheets were kept on disk before they were kept in the
	// database (<data dir>/uploads). Start moves any found there into the database and
	// removes them; nothing is written there any more.
	LegacyDir string
	// MaxBytes is the largest file accepted.
	MaxBytes int64
	// ChunkSize is the rows per batch call (default 200, at most 1000).
	ChunkSize int
	// Concurrency is the chunks in flight at once (default 3).
	Concurrency int
	// Accounts are the account codes the service knows.
	Accounts []string
	// Limits bound the reading of one file (default DefaultLimits(MaxBytes)).
	Limits Limits
	// MaxIssues is how many of a sheet's problems are kept (default MaxIssuesKept).
	MaxIssues int
	// LookupConcurrency bounds parallel NIS checks and searches (default 8).
	LookupConcurrency int
	// RetryBase and RetryMax shape the backoff between attempts of a chunk (defaults 500ms, 15s).
	RetryBase time.Duration
	RetryMax  time.Duration
	// MaxAttempts caps a chunk's sends and reconciliations in one run (default 10) when
	// the service answers with an error; a chunk still unsent after that is left for a
	// retry. A service that does not answer at all is waited for instead (WaitFor).
	MaxAttempts int
	// WaitFor is how long a committed job waits for a service that stopped answering
	// before it ends partial, its unsent rows left for Retry (default 12 hours); it tries
	// again by itself meanwhile, and goes on as soon as the service answers.
	WaitFor time.Duration
	// WaitMax caps the pause between two tries while a job waits (default 5 minutes).
	WaitMax time.Duration
	// Settle is how long after a call ended without an answer (or left, when the process
	// died during it) the service is given before its components are searched (default
	// 15s, the client's timeout): a request still on its way must land before we look.
	Settle time.Duration
	// Retention is how long files of finished or abandoned uploads are kept (default 14 days).
	Retention time.Duration
	// LeaseTTL is how long a job's lease lasts unless renewed (default 60s): several
	// portal instances may share the database, and one whose instance died is taken up
	// by another once its lease lapses.
	LeaseTTL time.Duration
	// LeaseRenew is how often a running job's lease is renewed, and how often a job
	// leased by another instance is looked at again (default 10s, below LeaseTTL).
	LeaseRenew time.Duration
}

func (c *Config) defaults() {
	if c.Calendar.IsZero() {
		c.Calendar = c.Clock
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = 20 << 20
	}
	if c.ChunkSize <= 0 {
		c.ChunkSize = 200
	}
	c.ChunkSize = min(c.ChunkSize, billing.MaxLimit)
	if c.Concurrency <= 0 {
		c.Concurrency = 3
	}
	if c.Limits == (Limits{}) {
		c.Limits = DefaultLimits(c.MaxBytes)
	}
	if c.MaxIssues <= 0 {
		c.MaxIssues = MaxIssuesKept
	}
	if c.LookupConcurrency <= 0 {
		c.LookupConcurrency = 8
	}
	// RetryBase, RetryMax, MaxAttempts, WaitMax and Settle left zero take the job
	// engine's defaults (internal/jobs); an upload waits for the service WaitFor at most.
	if c.WaitFor <= 0 {
		c.WaitFor = 12 * time.Hour
	}
	if c.Retention <= 0 {
		c.Retention = 14 * 24 * time.Hour
	}
	if c.LeaseTTL <= 0 {
		c.LeaseTTL = time.Minute
	}
	if c.LeaseRenew <= 0 || c.LeaseRenew >= c.LeaseTTL {
		c.LeaseRenew = max(min(10*time.Second, c.LeaseTTL/3), time.Nanosecond) // a ticker needs > 0
	}
}

// Config returns the runner's settings after defaults.
func (r *Runner) Config() Config { return r.cfg }
