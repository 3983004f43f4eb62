package hookproto

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// The connect timeout of Send: DefaultConnectTimeout unless the environment
// variable TimeoutEnv sets it, in milliseconds, within MinConnectTimeout and
// MaxConnectTimeout.
const (
	TimeoutEnv            = "CLAI_HOOK_TIMEOUT_MS"
	DefaultConnectTimeout = 15 * time.Millisecond
	MinConnectTimeout     = 10 * time.Millisecond
	MaxConnectTimeout     = 20 * time.Millisecond
)

// WriteTimeout bounds the writing of a request: a daemon that does not read
// it by then is busy, and the events are dropped.
const WriteTimeout = 20 * time.Millisecond

// IngestPath is the daemon's HTTP path for events.
const IngestPath = "/ingest"

// ConnectTimeout is the connect timeout that the value of TimeoutEnv sets:
// milliseconds, clamped to MinConnectTimeout–MaxConnectTimeout;
// DefaultConnectTimeout when empty or not a whole number.
func ConnectTimeout(env string) time.Duration {
	ms, err := strconv.Atoi(env)
	if err != nil {
		return DefaultConnectTimeout
	}
	return min(max(time.Duration(ms)*time.Millisecond, MinConnectTimeout), MaxConnectTimeout)
}

// ErrNothingToSend is Send's error when no event could be written: each was
// longer than MaxLine.
var ErrNothingToSend = errors.New("no event to send")

// Send posts events to the daemon as one request, POST /ingest over HTTP/1.1
// with one JSON line an event, and closes the connection without reading the
// reply: the hooks never wait for the daemon. It gives up (and the events are
// lost) when the daemon cannot be reached within connectTimeout or does not
// take the request within WriteTimeout. An event longer than MaxLine is left
// out; the error then says so, though the others were sent.
func Send(t Transport, connectTimeout time.Duration, events ...Event) error {
	body, skipped := encode(events)
	if len(body) == 0 {
		return fmt.Errorf("%w: %w", ErrNothingToSend, skipped)
	}
	request := ingestRequest(body)
	conn, err := t.Dial(connectTimeout)
	if err != nil {
		return fmt.Errorf("daemon at %s: %w", t, err)
	}
	defer conn.Close()
	if err := conn.SetWriteDeadline(time.Now().Add(WriteTimeout)); err != nil {
		return fmt.Errorf("daemon at %s: %w", t, err)
	}
	if _, err := conn.Write(request); err != nil {
		return fmt.Errorf("daemon at %s: %w", t, err)
	}
	return skipped
}

// encode is events as NDJSON, and the error of those left out.
func encode(events []Event) ([]byte, error) {
	var body []byte
	var skipped []error
	for _, e := range events {
		var err error
		if body, err = AppendLine(body, e); err != nil {
			skipped = append(skipped, err)
		}
	}
	return body, errors.Join(skipped...)
}

// ingestRequest is the whole HTTP request that carries body, to be written at
// once.
func ingestRequest(body []byte) []byte {
	return postRequest(IngestPath, "application/x-ndjson", body)
}

// postRequest is the whole HTTP/1.1 request that posts body, of
// contentType, to path and closes its connection, to be written at once.
func postRequest(path, contentType string, body []byte) []byte {
	head := "POST " + path + " HTTP/1.1\r\nHost: clai\r\nContent-Type: " + contentType + "\r\n" +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\nConnection: close\r\n\r\n"
	return append([]byte(head), body...)
}
