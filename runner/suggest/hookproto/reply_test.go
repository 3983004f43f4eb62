package hookproto

import (
	"bufio"
	"strings"
	"testing"
)

func TestReadResponseReadsEachFraming(t *testing.T) {
	t.Parallel()
	body := `{"accepted":0,"dropped":2}`
	for name, raw := range map[string]string{
		"length":  "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 26\r\nRetry-After: 1\r\n\r\n" + body + "junk",
		"chunked": "HTTP/1.1 503 Service Unavailable\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"acc\r\n15;x=y\r\n" + body[5:] + "\r\n0\r\n\r\n",
		"close":   "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n" + body,
	} {
		status, got, err := readResponse(bufio.NewReader(strings.NewReader(raw)), maxReply)
		if err != nil || status != 503 || string(got) != body {
			t.Errorf("%s: %d %q %v", name, status, got, err)
		}
	}
	for _, raw := range []string{"SSH-2.0-x\r\n", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"} {
		if _, _, err := readResponse(bufio.NewReader(strings.NewReader(raw)), maxReply); err == nil {
			t.Errorf("%q read without an error", raw)
		}
	}
}

// TestReadResponseBoundsTheBody: a reply longer than the reader's bound is
// refused however it is framed, before it is held: a Content-Length of 9 EB
// allocates nothing.
func TestReadResponseBoundsTheBody(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 65)
	for name, raw := range map[string]string{
		"huge length": "HTTP/1.1 200 OK\r\nContent-Length: 9000000000000000000\r\n\r\n",
		"length":      "HTTP/1.1 200 OK\r\nContent-Length: 65\r\n\r\n" + long,
		"chunks":      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n" + long[:64] + "\r\n1\r\nx\r\n0\r\n\r\n",
		"close":       "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + long,
	} {
		if _, body, err := readResponse(bufio.NewReader(strings.NewReader(raw)), 64); err == nil {
			t.Errorf("%s: read %d bytes past a bound of 64", name, len(body))
		}
	}
}
