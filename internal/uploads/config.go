package uploads

import (
	"path/filepath"

	"github.com/sekolah/portal/internal/config"
)

// ConfigFrom makes the runner's configuration from the portal's: files under the data
// directory, the upload settings, the account codes, and the upstream timeout as the time
// a call without an answer is given to land.
func ConfigFrom(c config.Config) Config {
	return Config{
		Dir:         filepath.Join(c.DataDir, "uploads"),
		MaxBytes:    c.UploadMaxBytes,
		ChunkSize:   c.UploadChunkSize,
		Concurrency: c.UploadConcurrency,
		Accounts:    c.AccountCodes,
		Settle:      c.UpstreamTimeout,
	}
}
