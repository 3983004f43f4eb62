package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/clai-sh/clai/internal/peer"
	"github.com/clai-sh/clai/runner/suggest/hookproto"
)

// ErrNotRunning is the error of a client whose daemon does not answer: no
// socket, or nobody serving it.
var ErrNotRunning = hookproto.ErrNotRunning

// Client talks to the daemon on its socket.
type Client struct {
	socket string
	http   *http.Client
}

// clientTimeout bounds a whole request of a client.
const clientTimeout = 10 * time.Second

// NewClient returns a client of the daemon whose socket is at socket. It
// talks only to a daemon of this user.
func NewClient(socket string) *Client {
	dial := func(ctx context.Context, _, _ string) (net.Conn, error) {
		c, err := peer.Dial(ctx, socket)
		if hookproto.NotServed(err) {
			return nil, ErrNotRunning
		}
		if err != nil {
			return nil, fmt.Errorf("daemon: %w", err)
		}
		return c, nil
	}
	return &Client{socket: socket, http: &http.Client{
		Timeout:   clientTimeout,
		Transport: &http.Transport{DialContext: dial, DisableKeepAlives: true},
	}}
}

// Suggest asks the daemon for the next commands of a shell, as the small
// client does (hookproto.Suggest).
func (c *Client) Suggest(ctx context.Context, req SuggestRequest) (SuggestReply, error) {
	return hookproto.Suggest(ctx, hookproto.UnixSocket{Path: c.socket}, req)
}

// Health asks the daemon how it is.
func (c *Client) Health(ctx context.Context) (Health, error) {
	var h Health
	err := c.do(ctx, http.MethodGet, "/healthz", "", nil, &h)
	return h, err
}

// Ingest sends events as NDJSON lines and returns what the daemon took: an
// event it dropped is an error (see IngestCounts).
func (c *Client) Ingest(ctx context.Context, ndjson []byte) (accepted, skipped int, err error) {
	r, err := c.IngestCounts(ctx, ndjson)
	if err == nil && r.Dropped > 0 {
		err = fmt.Errorf("daemon POST /ingest: %d events dropped: %s", r.Dropped, r.Error)
	}
	return r.Accepted, r.Skipped, err
}

// Forget asks the daemon to forget the commands req matches; it waits up to
// five minutes, the time a vacuum of a large database may take.
func (c *Client) Forget(ctx context.Context, req ForgetRequest) (ForgetReply, error) {
	var reply ForgetReply
	body, err := json.Marshal(req)
	if err != nil {
		return reply, err
	}
	slow := *c
	hc := *c.http
	hc.Timeout = forgetTimeout
	slow.http = &hc
	err = slow.do(ctx, http.MethodPost, "/forget", "application/json", bytes.NewReader(body), &reply)
	return reply, err
}

// IngestCounts sends events as NDJSON lines and returns the daemon's
// counts: those it committed, dropped (to send again) and skipped. A reply
// of 429 or 503 (nothing taken) is the reply and an error.
func (c *Client) IngestCounts(ctx context.Context, ndjson []byte) (IngestReply, error) {
	var r IngestReply
	err := c.do(ctx, http.MethodPost, "/ingest", "application/x-ndjson", bytes.NewReader(ndjson), &r)
	return r, err
}

// Get reads a GET path of the daemon's (a /debug/ one) into v.
func (c *Client) Get(ctx context.Context, path string, v any) error {
	return c.do(ctx, http.MethodGet, path, "", nil, v)
}

func (c *Client) do(ctx context.Context, method, path, ctype string, body io.Reader, v any) error {
	req, err := http.NewRequestWithContext(ctx, method, "http://clai-daemon"+path, body)
	if err != nil {
		return err
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if errors.Is(err, ErrNotRunning) {
			return fmt.Errorf("%w (no one serves %s)", ErrNotRunning, c.socket)
		}
		return fmt.Errorf("daemon %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("daemon %s %s: %w", method, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		err := fmt.Errorf("daemon %s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(data))
		if retry := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable; retry {
			// The body still says what was taken.
			_ = json.Unmarshal(data, v)
		}
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("daemon %s %s: %w", method, path, err)
	}
	return nil
}
