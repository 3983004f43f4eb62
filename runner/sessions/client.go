package sessions

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/textproto"
	"os"
	"strconv"
	"strings"

	"github.com/clai-sh/clai/internal/glyph"
	"github.com/clai-sh/clai/internal/peer"
	"github.com/clai-sh/clai/runner/ask"
)

// maxReply is the largest reply the client reads; maxEventLine the longest
// line of an event stream.
const (
	maxReply     = 4 << 20
	maxEventLine = 4 << 20
)

// Client reaches one session's API on its socket. It talks only to a
// server of this user.
type Client struct {
	socket string
}

// NewClient returns a client of the session whose socket is at path.
func NewClient(path string) *Client { return &Client{socket: path} }

// response is a reply as the client reads it: its status, and its body,
// whose Close closes the connection.
type response struct {
	// status is the status code; statusLine the code and its reason
	// ("404 Not Found").
	status     int
	statusLine string
	body       io.ReadCloser
}

// do sends a request on a connection of its own, closed with the reply's
// body: an idle connection would hold one of the few the session serves at
// once. It speaks HTTP/1.1 as the server does (see wire.go), with
// net/textproto. The reply's header is bounded by maxHeaderBytes; ctx
// ending closes the connection.
func (c *Client) do(ctx context.Context, method, path string, body []byte) (*response, error) {
	conn, err := peer.Dial(ctx, c.socket)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	fail := func(err error) (*response, error) {
		stop()
		_ = conn.Close()
		return nil, ctxErr(ctx, err)
	}
	req := method + " " + path + " HTTP/1.1\r\nHost: clai\r\nUser-Agent: clai\r\nConnection: close\r\n"
	if body != nil {
		req += "Content-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n"
	}
	if _, err := conn.Write(append([]byte(req+"\r\n"), body...)); err != nil {
		return fail(err)
	}
	header := &headerBound{r: conn, left: maxHeaderBytes + headerSlack}
	br := bufio.NewReaderSize(header, headerSlack)
	resp, err := readResponse(br)
	if err != nil {
		return fail(err)
	}
	header.left = -1
	resp.body = &connBody{Reader: resp.body, conn: conn, stop: stop}
	return resp, nil
}

// readResponse reads a reply's status line and header from r, past any 1xx
// reply, and sets its body: as long as its Content-Length says, else up to
// the connection's end.
func readResponse(r *bufio.Reader) (*response, error) {
	tp := textproto.NewReader(r)
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return nil, err
		}
		proto, status, ok := strings.Cut(line, " ")
		code, _, _ := strings.Cut(status, " ")
		n, err := strconv.Atoi(code)
		if !ok || !strings.HasPrefix(proto, "HTTP/1.") || err != nil || len(code) != 3 {
			return nil, fmt.Errorf("malformed reply %q", glyph.OneLine(line, 80))
		}
		header, err := tp.ReadMIMEHeader()
		if err != nil {
			return nil, err
		}
		if n >= 100 && n < 200 {
			continue
		}
		resp := &response{status: n, statusLine: status, body: io.NopCloser(r)}
		if cl := header.Get("Content-Length"); cl != "" {
			length, err := strconv.ParseInt(strings.TrimSpace(cl), 10, 64)
			if err != nil || length < 0 {
				return nil, fmt.Errorf("malformed reply: Content-Length %q", glyph.OneLine(cl, 40))
			}
			resp.body = io.NopCloser(io.LimitReader(r, length))
		}
		return resp, nil
	}
}

// headerSlack is the read-ahead of the reply's reader: what of the body it
// may hold when the header is read.
const headerSlack = 4 << 10

// headerBound reads r, at most left bytes while left is not negative: the
// reply's header and what the reader reads ahead of it.
type headerBound struct {
	r    io.Reader
	left int
}

func (h *headerBound) Read(p []byte) (int, error) {
	if h.left < 0 {
		return h.r.Read(p)
	}
	if h.left == 0 {
		return 0, fmt.Errorf("the reply's header is longer than %d bytes", maxHeaderBytes)
	}
	if len(p) > h.left {
		p = p[:h.left]
	}
	n, err := h.r.Read(p)
	h.left -= n
	return n, err
}

// connBody is a reply's body whose Close closes its connection.
type connBody struct {
	io.Reader
	conn net.Conn
	stop func() bool
}

func (b *connBody) Close() error {
	b.stop()
	return b.conn.Close()
}

// ctxErr is err, or the context's error when ctx ended (and so closed the
// connection under it).
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// Session returns the session as it stands.
func (c *Client) Session(ctx context.Context) (ask.Session, error) {
	var s ask.Session
	return s, c.get(ctx, "/v1/session", &s)
}

// Screen returns what the program shows now.
func (c *Client) Screen(ctx context.Context) (ask.Screen, error) {
	var s ask.Screen
	return s, c.get(ctx, "/v1/screen", &s)
}

// Answer posts a. A refused answer is a *ask.Refusal; so is one that cannot
// reach a run that has ended (code ask.RefusedEnded).
func (c *Client) Answer(ctx context.Context, a ask.Answer) (ask.Sent, error) {
	var sent ask.Sent
	body, err := json.Marshal(a)
	if err != nil {
		return sent, err
	}
	resp, err := c.do(ctx, "POST", "/v1/answer", body)
	if err != nil {
		if c.gone() {
			// The run removes its socket before it stops serving: the
			// answer never reached it.
			return sent, &ask.Refusal{Code: ask.RefusedEnded, Reason: "the run has ended"}
		}
		return sent, c.wrap(err)
	}
	defer resp.body.Close()
	if resp.status == statusConflict {
		refusal := new(ask.Refusal)
		if err := decodeReply(resp.body, refusal); err != nil {
			return sent, c.wrap(err)
		}
		return sent, refusal
	}
	return sent, c.reply(resp, &sent)
}

// gone reports whether the session's socket is gone: its run ended.
func (c *Client) gone() bool {
	_, err := os.Lstat(c.socket)
	return errors.Is(err, fs.ErrNotExist)
}

// Events calls fn with each update of the session until fn returns false,
// ctx ends or the stream ends (at the end of the run: nil).
func (c *Client) Events(ctx context.Context, fn func(ask.Update) bool) error {
	st, err := c.Subscribe(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	for {
		u, err := st.Next()
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case err != nil && ctx.Err() != nil:
			return nil
		case err != nil:
			return err
		}
		if !fn(u) {
			return nil
		}
	}
}

// Stream is a session's open event stream (see Subscribe).
type Stream struct {
	c    *Client
	body io.ReadCloser
	sc   *bufio.Scanner
}

// Subscribe opens the session's event stream. The session watches for the
// stream before it answers, so once Subscribe returns the stream gets every
// update from then on (but for those a stream that falls behind loses, as
// any watcher does) until ctx ends or the run ends. The Stream must be
// closed.
func (c *Client) Subscribe(ctx context.Context) (*Stream, error) {
	resp, err := c.do(ctx, "GET", "/v1/events", nil)
	if err != nil {
		return nil, c.wrap(err)
	}
	if resp.status != statusOK {
		defer resp.body.Close()
		return nil, c.reply(resp, nil)
	}
	sc := bufio.NewScanner(resp.body)
	sc.Buffer(make([]byte, 0, 64<<10), maxEventLine)
	return &Stream{c: c, body: resp.body, sc: sc}, nil
}

// Next returns the next update; io.EOF once the stream ended with the run.
// Once the stream's ctx ended, its error is the read's.
func (s *Stream) Next() (ask.Update, error) {
	for s.sc.Scan() {
		data, ok := strings.CutPrefix(s.sc.Text(), "data: ")
		if !ok {
			continue
		}
		var u ask.Update
		if err := json.Unmarshal([]byte(data), &u); err != nil {
			return ask.Update{}, s.c.wrap(fmt.Errorf("event: %w", err))
		}
		return u, nil
	}
	if err := s.sc.Err(); err != nil {
		return ask.Update{}, s.c.wrap(err)
	}
	return ask.Update{}, io.EOF
}

// Close closes the stream.
func (s *Stream) Close() error { return s.body.Close() }

// Gone reports whether the session's socket is gone: its run ended.
func (c *Client) Gone() bool { return c.gone() }

// get reads the JSON at path into v.
func (c *Client) get(ctx context.Context, path string, v any) error {
	resp, err := c.do(ctx, "GET", path, nil)
	if err != nil {
		return c.wrap(err)
	}
	defer resp.body.Close()
	return c.reply(resp, v)
}

// reply reads a 200 reply into v, or turns another into an error.
func (c *Client) reply(resp *response, v any) error {
	if resp.status != statusOK {
		var e apiError
		if err := decodeReply(resp.body, &e); err != nil || e.Error == "" {
			e.Error = resp.statusLine
		}
		return c.wrap(errors.New(e.Error))
	}
	if v == nil {
		return nil
	}
	if err := decodeReply(resp.body, v); err != nil {
		return c.wrap(err)
	}
	return nil
}

// decodeReply reads one JSON value of at most maxReply bytes.
func decodeReply(body io.Reader, v any) error {
	b, err := io.ReadAll(io.LimitReader(body, maxReply+1))
	if err != nil {
		return err
	}
	if len(b) > maxReply {
		return fmt.Errorf("the reply is longer than %d bytes", maxReply)
	}
	return json.Unmarshal(b, v)
}

func (c *Client) wrap(err error) error {
	return fmt.Errorf("session %s: %w", c.socket, err)
}
