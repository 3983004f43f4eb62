package sessions

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The session's API speaks HTTP/1.1, one request a connection, read and
// written here with net/textproto rather than net/http. net/http's request
// and response carry a TLS connection's state, and since clai's command line
// reflects on methods (its help templates), every method of every type they
// reach stays linked: x509's certificates and much of the crypto stack, a
// megabyte of a lean clai and half a megabyte of the pages a run touches
// (docs/performance.md#memory). What a client sends is bounded as net/http's
// Server bounds it: the header in size and time, the whole request in time,
// the body in size.

// request is what the API reads of a request.
type request struct {
	ctx    context.Context
	method string
	path   string
	header textproto.MIMEHeader
	// length is the body's length, as Content-Length says (0 without one);
	// body is the body, that long.
	length int64
	body   io.Reader
}

// errBadRequest is a request the server cannot read: 400.
var errBadRequest = errors.New("bad request")

// readRequest reads a request's line and header from r, and sets its body
// to the Content-Length bytes that follow. A body sent in chunks is refused:
// clai's clients, curl and every HTTP/1.1 library send a length with a body
// this small.
func readRequest(r *bufio.Reader) (*request, error) {
	tp := textproto.NewReader(r)
	line, err := tp.ReadLine()
	if err != nil {
		return nil, err
	}
	method, rest, ok1 := strings.Cut(line, " ")
	target, proto, ok2 := strings.Cut(rest, " ")
	if !ok1 || !ok2 || !validMethod(method) || (proto != "HTTP/1.1" && proto != "HTTP/1.0") {
		return nil, errBadRequest
	}
	u, err := url.ParseRequestURI(target)
	if err != nil {
		return nil, errBadRequest
	}
	header, err := tp.ReadMIMEHeader()
	if err != nil {
		return nil, err
	}
	req := &request{method: method, path: u.Path, header: header, body: strings.NewReader("")}
	if te := header.Values("Transfer-Encoding"); len(te) > 0 && !(len(te) == 1 && strings.EqualFold(te[0], "identity")) {
		return nil, errBadRequest
	}
	if cl := header.Values("Content-Length"); len(cl) > 0 {
		n, err := strconv.ParseInt(strings.TrimSpace(cl[0]), 10, 64)
		if err != nil || n < 0 || slices.ContainsFunc(cl[1:], func(v string) bool { return strings.TrimSpace(v) != strings.TrimSpace(cl[0]) }) {
			return nil, errBadRequest
		}
		req.length, req.body = n, io.LimitReader(r, n)
	}
	return req, nil
}

// validMethod reports whether m is an HTTP token.
func validMethod(m string) bool {
	if m == "" {
		return false
	}
	for i := 0; i < len(m); i++ {
		c := m[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// conns are the connections a Server serves, closed at once by its Close.
type conns struct {
	mu     sync.Mutex
	open   map[net.Conn]struct{}
	closed bool
}

// add counts c in, unless the server closed.
func (cs *conns) add(c net.Conn) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.closed {
		return false
	}
	if cs.open == nil {
		cs.open = map[net.Conn]struct{}{}
	}
	cs.open[c] = struct{}{}
	return true
}

func (cs *conns) remove(c net.Conn) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	delete(cs.open, c)
}

// closeAll closes every connection and takes no more.
func (cs *conns) closeAll() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.closed = true
	for c := range cs.open {
		_ = c.Close()
	}
	cs.open = nil
}

// serve takes the listener's connections until it closes.
func (s *Server) serve() {
	defer close(s.done)
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		if !s.conns.add(c) {
			_ = c.Close()
			return
		}
		go s.serveConn(c)
	}
}

// serveConn reads one request from c, serves it and closes c.
func (s *Server) serveConn(c net.Conn) {
	defer s.conns.remove(c)
	defer c.Close()
	lim := s.lim
	_ = c.SetReadDeadline(time.Now().Add(lim.readHeader))
	header := &headerBound{r: c, left: maxHeaderBytes + headerSlack}
	br := bufio.NewReaderSize(header, headerSlack)
	req, err := readRequest(br)
	if err != nil {
		status := statusBadRequest
		if header.left == 0 {
			status = statusHeaderTooLarge
		}
		var ne net.Error
		if !errors.As(err, &ne) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			_ = c.SetWriteDeadline(time.Now().Add(lim.write))
			_, _ = fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", status, statusText(status))
		}
		return
	}
	header.left = -1
	_ = c.SetReadDeadline(time.Now().Add(lim.read))
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	req.ctx = ctx
	w := &replyWriter{conn: c, bw: bufio.NewWriter(c), header: textproto.MIMEHeader{}, head: req.method == "HEAD"}
	if req.length > 0 && strings.EqualFold(req.header.Get("Expect"), "100-continue") {
		_, _ = io.WriteString(w.bw, "HTTP/1.1 100 Continue\r\n\r\n")
		_ = w.bw.Flush()
	}
	if req.length == 0 {
		// Nothing more is read: what the client sends from now on is
		// nothing but its going away, which ends the request's context
		// (an event stream's end).
		go func() {
			_, _ = io.Copy(io.Discard, br)
			cancel()
		}()
	}
	s.api.serve(w, req)
	_ = w.flush()
}

// The statuses the API replies with.
const (
	statusOK                  = 200
	statusBadRequest          = 400
	statusNotFound            = 404
	statusMethodNotAllowed    = 405
	statusConflict            = 409
	statusHeaderTooLarge      = 431
	statusInternalServerError = 500
	statusServiceUnavailable  = 503
)

// statusText is the reason phrase of an API status.
func statusText(status int) string {
	switch status {
	case statusOK:
		return "OK"
	case statusBadRequest:
		return "Bad Request"
	case statusNotFound:
		return "Not Found"
	case statusMethodNotAllowed:
		return "Method Not Allowed"
	case statusConflict:
		return "Conflict"
	case statusHeaderTooLarge:
		return "Request Header Fields Too Large"
	case statusServiceUnavailable:
		return "Service Unavailable"
	}
	return "Internal Server Error"
}

// deadliner bounds the reads and writes of a reply's connection.
type deadliner interface {
	SetReadDeadline(t time.Time) error
	SetWriteDeadline(t time.Time) error
}

// replyWriter writes one reply on its connection, which closes after it: a
// reply with no Content-Length ends where the connection does.
type replyWriter struct {
	conn   deadliner
	bw     *bufio.Writer
	header textproto.MIMEHeader
	wrote  bool
	// head is the reply to a HEAD request: its header only.
	head bool
}

// writeHeader writes the status line and the header, once.
func (w *replyWriter) writeHeader(status int) {
	if w.wrote {
		return
	}
	w.wrote = true
	w.header.Del("Connection")
	w.header.Del("Transfer-Encoding")
	_, _ = io.WriteString(w.bw, "HTTP/1.1 "+strconv.Itoa(status)+" "+statusText(status)+"\r\n")
	keys := make([]string, 0, len(w.header))
	for k := range w.header {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range w.header[k] {
			// A value never breaks the header's lines.
			v = strings.Map(func(r rune) rune {
				if r == '\r' || r == '\n' {
					return ' '
				}
				return r
			}, v)
			_, _ = io.WriteString(w.bw, k+": "+strings.TrimSpace(v)+"\r\n")
		}
	}
	_, _ = io.WriteString(w.bw, "Connection: close\r\n\r\n")
}

// Write writes the body, after the header (200 when none was written).
func (w *replyWriter) Write(p []byte) (int, error) {
	w.writeHeader(statusOK)
	if w.head {
		return len(p), nil
	}
	return w.bw.Write(p)
}

// flush sends what is written.
func (w *replyWriter) flush() error {
	w.writeHeader(statusOK)
	return w.bw.Flush()
}

// setWriteDeadline bounds the writes from now on.
func (w *replyWriter) setWriteDeadline(t time.Time) error { return w.conn.SetWriteDeadline(t) }

// setReadDeadline bounds the reads from now on.
func (w *replyWriter) setReadDeadline(t time.Time) error { return w.conn.SetReadDeadline(t) }
