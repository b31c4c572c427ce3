package billing

import "time"

// Call is what the client tells Config.Observe of one call once it has ended (the
// portal's metrics count them: internal/metrics). It names the call by the client's
// method, never by its URL (which carries a NIS or an id), and says how it ended.
type Call struct {
	// Endpoint is the client's method that made the call ("Search", "CreateComponents";
	// "All", "AllForStudent" and "AllStudents" for each page of those iterators).
	Endpoint string
	// Status is the HTTP status of the last answer (0: no answer came: a timeout, a broken
	// connection, the caller gone).
	Status int
	// Err is how the call failed (nil: it did what it was asked): an *APIError, or an
	// error that matches ErrTimeout, ErrUnavailable or the caller's cancellation.
	Err error
	// Attempts is how many requests the call sent: more than one when it was tried again
	// (an idempotent call after a failure, or another date of the daily password).
	Attempts int
	// Duration is the whole call on the client's clock, its retries and pauses included.
	Duration time.Duration
}
