package billing

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"time"
)

// maxBody bounds what one answer may make us read; a full page of 1,000
// records is well under a megabyte.
const maxBody = 64 << 20

// idempotent calls may be sent again after a failure without changing the outcome.
func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// retryableStatus are the answers worth waiting for: the service or a proxy
// in front of it failed, the request's content was not at fault.
func retryableStatus(code int) bool {
	switch code {
	case 500, 502, 503, 504:
		return true
	}
	return false
}

// envelope is every answer's wrapper.
type envelope struct {
	Status     text            `json:"status"`
	StatusCode number          `json:"status_code"`
	StatusDesc text            `json:"status_desc"`
	Data       json.RawMessage `json:"data"`
}

// errDeadline is the cause of a call's own deadline (Config.Deadline).
var errDeadline = errors.New("billing: call deadline")

// call sends one request (retrying as the method allows, within the call's
// deadline), checks the envelope and decodes its data into out (when out is
// not nil). endpoint is the client's method making it (what Config.Observe is
// told); path is already escaped; query may be nil.
func (c *Client) call(ctx context.Context, endpoint, method, path string, query url.Values, in, out any) (err error) {
	status, sent := 0, 0 // the last answer's status and the requests sent, for Observe
	if c.observe != nil {
		start := c.now()
		defer func() {
			c.observe(Call{Endpoint: endpoint, Status: status, Err: err, Attempts: sent, Duration: c.now().Sub(start)})
		}()
	}
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return fmt.Errorf("billing: %s %s: encoding request: %w", method, path, err)
		}
	}
	target := c.base.String() + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	parent := ctx
	ctx, cancel := context.WithTimeoutCause(ctx, c.deadline, errDeadline)
	defer cancel()

	attempts := 1
	if idempotent(method) {
		attempts = c.maxAttempts
	}
	now := c.now()
	signings := c.signings(now)
	si := 0            // the password date being tried
	uncertain := false // an earlier attempt failed in a way that may have applied it
	for attempt := 1; ; attempt++ {
		sent++
		start := c.now()
		code, raw, serverNow, err := c.attempt(parent, ctx, method, target, path, body, signings[si].day)
		status = code
		c.logAttempt(ctx, method, path, query, status, c.now().Sub(start), sent, err)
		if err != nil {
			if c.overDeadline(parent, ctx) {
				return c.deadlineError(method, path, sent)
			}
			if ctx.Err() != nil || attempt >= attempts {
				return err
			}
			uncertain = true
			if err := c.pause(parent, ctx, method, path, attempt, sent); err != nil {
				return err
			}
			continue
		}
		if status == http.StatusUnauthorized && si+1 < len(signings) {
			// The service may count its date in another zone (or its clock
			// may be past, or not yet at, midnight). A 401 applied nothing,
			// so trying the next date is safe for a POST too.
			si++
			attempt--
			continue
		}
		if status != http.StatusUnauthorized && status < 500 {
			// The credentials passed (a 5xx may come from a gateway that never
			// checked them, so it proves nothing).
			c.accepted(ctx, now, serverNow, signings[si], si > 0)
		}
		if method == http.MethodDelete && status == http.StatusNotFound && uncertain {
			// An earlier attempt most likely removed it; the caller's goal holds.
			return nil
		}
		err = c.decode(method, path, status, raw, out)
		var apiErr *APIError
		if errors.As(err, &apiErr) && retryableStatus(apiErr.StatusCode) && attempt < attempts {
			uncertain = true
			if err := c.pause(parent, ctx, method, path, attempt, sent); err != nil {
				return err
			}
			continue
		}
		return err
	}
}

// overDeadline reports that the call's own deadline, not the caller's
// context, ended it.
func (c *Client) overDeadline(parent, ctx context.Context) bool {
	return parent.Err() == nil && errors.Is(context.Cause(ctx), errDeadline)
}

func (c *Client) deadlineError(method, path string, sent int) error {
	return &transportError{method: method, path: path, timeout: c.deadline, attempts: sent, deadline: true,
		err: context.DeadlineExceeded}
}

// attempt sends the request once, under its own timeout (and the call's
// deadline), and reads the whole answer.
// serverNow is the service's clock from the answer's Date header, which
// every HTTP server sends (zero when absent or unreadable).
func (c *Client) attempt(parent, ctx context.Context, method, target, path string, body []byte, day time.Time) (status int, raw []byte, serverNow time.Time, err error) {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(actx, method, target, rd)
	if err != nil {
		return 0, nil, time.Time{}, fmt.Errorf("billing: %s %s: building request: %w", method, path, stripURL(err))
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.SetBasicAuth(c.username, DailyPassword(c.password, day))
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, time.Time{}, c.transportFailure(parent, actx, method, path, err)
	}
	defer resp.Body.Close()
	raw, err = io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return 0, nil, time.Time{}, c.transportFailure(parent, actx, method, path, err)
	}
	serverNow, _ = http.ParseTime(resp.Header.Get("Date"))
	return resp.StatusCode, raw, serverNow, nil
}

// transportFailure tells the caller's cancellation from our own timeout
// from a broken connection.
func (c *Client) transportFailure(parent, actx context.Context, method, path string, err error) error {
	if parent.Err() != nil {
		return fmt.Errorf("billing: %s %s: %w", method, path, context.Cause(parent))
	}
	err = stripURL(err)
	var ne net.Error
	if errors.Is(actx.Err(), context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) ||
		errors.As(err, &ne) && ne.Timeout() {
		limit := c.timeout
		if t := c.http.Timeout; t > 0 && t < limit {
			limit = t // a custom HTTPClient cut it first
		}
		return &transportError{method: method, path: path, timeout: limit, err: err}
	}
	return &transportError{method: method, path: path, err: err}
}

// stripURL drops the address url.Error puts in front of the reason: it is
// already in our message, and an address is where credentials would leak.
func stripURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// decode turns an answer into out or into an *APIError.
func (c *Client) decode(method, path string, status int, raw []byte, out any) error {
	if decodeSuccess(status, raw, out) {
		return nil
	}
	return c.decodeEnvelope(method, path, status, raw, out)
}

// decodeSuccess reads the common answer, a 2xx envelope whose status_code is a success,
// in one pass over the body: the envelope and its data together, into a fresh value that
// replaces *out only then. Anything else it leaves to decodeEnvelope (reporting false,
// *out untouched), which reads the envelope first and the data after: two passes, each
// of them two (encoding/json checks the whole input before decoding it), which was a
// third of the CPU of reading a page of a thousand components.
func decodeSuccess(status int, raw []byte, out any) bool {
	if status < 200 || status >= 300 || out == nil {
		return false
	}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return false
	}
	dst := reflect.ValueOf(out)
	if dst.Kind() != reflect.Pointer || dst.IsNil() {
		return false
	}
	fresh := reflect.New(dst.Type().Elem())
	env := struct {
		Status     text   `json:"status"`
		StatusCode number `json:"status_code"`
		StatusDesc text   `json:"status_desc"`
		Data       any    `json:"data"`
	}{Data: fresh.Interface()}
	if json.Unmarshal(trimmed, &env) != nil || env.StatusCode >= 400 {
		return false
	}
	if env.Data != nil { // "data": null leaves out as it was, as decodeEnvelope does
		dst.Elem().Set(fresh.Elem())
	}
	return true
}

// decodeEnvelope is decode's long way: the envelope, then its data or its failure.
func (c *Client) decodeEnvelope(method, path string, status int, raw []byte, out any) error {
	trimmed := bytes.TrimSpace(raw)
	var env envelope
	isEnvelope := len(trimmed) > 0 && trimmed[0] == '{' && json.Unmarshal(trimmed, &env) == nil
	ok := status >= 200 && status < 300
	if ok && isEnvelope && env.StatusCode >= 400 {
		// Some gateways answer 200 and put the failure in the envelope.
		status, ok = int(env.StatusCode), false
	}
	if !ok {
		e := &APIError{StatusCode: status, Method: method, Path: path, Status: http.StatusText(status)}
		if isEnvelope {
			if env.Status != "" {
				e.Status = string(env.Status)
			}
			e.StatusDesc = string(env.StatusDesc)
			e.Items = itemErrors(env.Data)
		}
		return e
	}
	if out == nil || len(trimmed) == 0 {
		// The provider documents only the status of some answers: an empty
		// body is a success without data, not a failure.
		return nil
	}
	data := json.RawMessage(trimmed)
	if isEnvelope {
		data = env.Data
	} else if trimmed[0] != '[' {
		return fmt.Errorf("billing: %s %s: reading response: %d answer is not a JSON envelope", method, path, status)
	}
	if len(data) == 0 || string(data) == "null" {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("billing: %s %s: reading response: %w", method, path, err)
	}
	return nil
}

// itemErrors reads the per-item reasons of a rejected batch, when present.
func itemErrors(data json.RawMessage) []ItemError {
	if len(data) == 0 || data[0] != '[' {
		return nil
	}
	var wire []struct {
		Index   number `json:"index"`
		Field   text   `json:"field"`
		Message text   `json:"message"`
	}
	if json.Unmarshal(data, &wire) != nil {
		return nil
	}
	items := make([]ItemError, 0, len(wire))
	for _, w := range wire {
		items = append(items, ItemError{Index: int(w.Index), Field: string(w.Field), Message: string(w.Message)})
	}
	return items
}

// pause waits before the next attempt: capped exponential backoff with full
// jitter, so many clients failing together do not retry together.
func (c *Client) pause(parent, ctx context.Context, method, path string, attempt, sent int) error {
	step := c.retryMax
	if attempt-1 < 30 {
		if d := c.retryBase << (attempt - 1); d > 0 && d < step {
			step = d
		}
	}
	t := time.NewTimer(rand.N(step) + 1)
	defer t.Stop()
	select {
	case <-ctx.Done():
		if c.overDeadline(parent, ctx) {
			return c.deadlineError(method, path, sent)
		}
		return fmt.Errorf("billing: %s %s: %w", method, path, context.Cause(parent))
	case <-t.C:
		return nil
	}
}

// logAttempt logs one attempt at debug level: the page asked for but no
// other query value (names and references are personal data), never a credential.
func (c *Client) logAttempt(ctx context.Context, method, path string, query url.Values, status int, d time.Duration, attempt int, err error) {
	if !c.log.Enabled(ctx, slog.LevelDebug) {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", method),
		slog.String("path", path),
		slog.Int("status", status),
		slog.Duration("duration", d),
		slog.Int("attempt", attempt),
	}
	for _, k := range []string{"offset", "limit"} {
		if v := query.Get(k); v != "" {
			attrs = append(attrs, slog.String(k, v))
		}
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	c.log.LogAttrs(ctx, slog.LevelDebug, "billing call", attrs...)
}
