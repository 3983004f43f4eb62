package hookproto

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// IngestReply is what the daemon answers to POST /ingest. Accepted events
// are committed to its database; dropped ones are not, and may be sent
// again; skipped lines are not taken for what they hold (too long,
// unreadable, of a newer version, or commands not learnt from).
type IngestReply struct {
	Accepted int `json:"accepted"`
	Dropped  int `json:"dropped"`
	Skipped  int `json:"skipped"`
	// Error says why events were dropped.
	Error string `json:"error,omitempty"`
}

// DefaultReplyWait bounds how long SendWait waits for the daemon's reply:
// the daemon waits 5 s at most for room before it answers.
const DefaultReplyWait = 10 * time.Second

// maxReply bounds the reply SendWait reads.
const maxReply = 64 << 10

// ErrDropped is SendWait's error when the daemon dropped events: they may be
// sent again.
var ErrDropped = errors.New("the daemon dropped events")

// SendWait posts events as Send does, then waits for the daemon's reply
// until wait has passed, and returns it. Events the daemon dropped are
// ErrDropped (with the reply); a reply that is not one of POST /ingest's is
// an error too.
func SendWait(t Transport, connectTimeout, wait time.Duration, events ...Event) (IngestReply, error) {
	body, skipped := encode(events)
	if len(body) == 0 {
		return IngestReply{}, fmt.Errorf("%w: %w", ErrNothingToSend, skipped)
	}
	conn, err := t.Dial(connectTimeout)
	if err != nil {
		return IngestReply{}, fmt.Errorf("daemon at %s: %w", t, err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(wait)); err != nil {
		return IngestReply{}, fmt.Errorf("daemon at %s: %w", t, err)
	}
	if _, err := conn.Write(ingestRequest(body)); err != nil {
		return IngestReply{}, fmt.Errorf("daemon at %s: %w", t, err)
	}
	status, data, err := readResponse(bufio.NewReader(io.LimitReader(conn, maxReply)), maxReply)
	if err != nil {
		return IngestReply{}, fmt.Errorf("daemon at %s: reply: %w", t, err)
	}
	var r IngestReply
	if jerr := json.Unmarshal(data, &r); jerr != nil {
		return r, fmt.Errorf("daemon at %s: %d: %s", t, status, bytes.TrimSpace(data))
	}
	if r.Dropped > 0 {
		return r, fmt.Errorf("%w: %d of %d (%s)", ErrDropped, r.Dropped, len(events), r.Error)
	}
	if status != 200 {
		return r, fmt.Errorf("daemon at %s: %d: %s", t, status, bytes.TrimSpace(data))
	}
	return r, skipped
}

// readResponse reads an HTTP/1.1 response to a request that closes its
// connection: its status code and its body (by its Content-Length, in
// chunks, or up to the end), of max bytes at most.
func readResponse(br *bufio.Reader, max int) (status int, body []byte, err error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return 0, nil, err
	}
	proto, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
	code, _, _ := strings.Cut(rest, " ")
	if status, err = strconv.Atoi(code); err != nil || !strings.HasPrefix(proto, "HTTP/1.") {
		return 0, nil, fmt.Errorf("not an HTTP response: %q", line)
	}
	length, chunked := -1, false
	for {
		h, err := br.ReadString('\n')
		if err != nil {
			return status, nil, err
		}
		h = strings.TrimSpace(h)
		if h == "" {
			break
		}
		name, value, _ := strings.Cut(h, ":")
		value = strings.TrimSpace(value)
		switch strings.ToLower(name) {
		case "content-length":
			if length, err = strconv.Atoi(value); err != nil || length < 0 {
				return status, nil, fmt.Errorf("content-length %q", value)
			}
			if length > max {
				return status, nil, fmt.Errorf("content-length %d: longer than %d bytes", length, max)
			}
		case "transfer-encoding":
			chunked = strings.EqualFold(value, "chunked")
		}
	}
	switch {
	case chunked:
		body, err = readChunks(br, max)
	case length >= 0:
		body = make([]byte, length)
		_, err = io.ReadFull(br, body)
	default:
		body, err = io.ReadAll(br)
		if err == nil && len(body) > max {
			err = fmt.Errorf("the body is longer than %d bytes", max)
		}
	}
	return status, body, err
}

// readChunks reads a chunked body of max bytes at most.
func readChunks(br *bufio.Reader, max int) ([]byte, error) {
	var body []byte
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return body, err
		}
		size, _, _ := strings.Cut(strings.TrimSpace(line), ";")
		n, err := strconv.ParseInt(size, 16, 32)
		if err != nil || n < 0 || int64(len(body))+n > int64(max) {
			return body, fmt.Errorf("chunk size %q", size)
		}
		if n == 0 {
			return body, nil
		}
		chunk := make([]byte, n+2)
		if _, err := io.ReadFull(br, chunk); err != nil {
			return body, err
		}
		body = append(body, chunk[:n]...)
	}
}
