package sessions

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// The session's API speaks HTTP/1.1, one request a connection, which it
// reads with net/http's request reader and answers with a writer of its
// own: net/http's Server would link its TLS stack (it looks for a TLS
// connection under every one), and with it a fifth of a lean clai's code
// and the pages every run touches (docs/performance.md#memory). What a
// client sends is bounded as net/http's Server bounds it: the header in
// size and time, the whole request in time.

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
	req, err := http.ReadRequest(br)
	if err != nil {
		status := http.StatusBadRequest
		if header.left == 0 {
			status = http.StatusRequestHeaderFieldsTooLarge
		}
		var ne net.Error
		if !errors.As(err, &ne) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			_ = c.SetWriteDeadline(time.Now().Add(lim.write))
			_, _ = fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", status, http.StatusText(status))
		}
		return
	}
	header.left = -1
	_ = c.SetReadDeadline(time.Now().Add(lim.read))
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	req = req.WithContext(ctx)
	req.RemoteAddr = "local"
	w := &replyWriter{conn: c, bw: bufio.NewWriter(c), header: http.Header{}, head: req.Method == http.MethodHead}
	if req.Header.Get("Expect") == "100-continue" {
		_, _ = io.WriteString(w.bw, "HTTP/1.1 100 Continue\r\n\r\n")
		_ = w.bw.Flush()
	}
	if req.ContentLength == 0 && len(req.TransferEncoding) == 0 {
		// Nothing more is read: what the client sends from now on is
		// nothing but its going away, which ends the request's context
		// (an event stream's end).
		go func() {
			_, _ = io.Copy(io.Discard, br)
			cancel()
		}()
	}
	s.served().ServeHTTP(w, req)
	_ = w.FlushError()
}

// replyWriter writes one reply on its connection, which closes after it: a
// reply with no Content-Length ends where the connection does.
type replyWriter struct {
	conn   net.Conn
	bw     *bufio.Writer
	header http.Header
	wrote  bool
	// head is the reply to a HEAD request: its header only.
	head bool
}

// Header is the reply's header, until it is written.
func (w *replyWriter) Header() http.Header { return w.header }

// WriteHeader writes the status line and the header, once.
func (w *replyWriter) WriteHeader(status int) {
	if w.wrote {
		return
	}
	w.wrote = true
	w.header.Del("Connection")
	w.header.Del("Transfer-Encoding")
	_, _ = io.WriteString(w.bw, "HTTP/1.1 "+strconv.Itoa(status)+" "+http.StatusText(status)+"\r\n")
	_ = w.header.Write(w.bw)
	_, _ = io.WriteString(w.bw, "Connection: close\r\n\r\n")
}

// Write writes the body, after the header (200 when none was written).
func (w *replyWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	if w.head {
		return len(p), nil
	}
	return w.bw.Write(p)
}

// FlushError sends what is written; http.ResponseController calls it.
func (w *replyWriter) FlushError() error {
	w.WriteHeader(http.StatusOK)
	return w.bw.Flush()
}

// SetWriteDeadline bounds the writes from now on; http.ResponseController
// calls it.
func (w *replyWriter) SetWriteDeadline(t time.Time) error { return w.conn.SetWriteDeadline(t) }

// SetReadDeadline bounds the reads from now on; http.ResponseController
// calls it.
func (w *replyWriter) SetReadDeadline(t time.Time) error { return w.conn.SetReadDeadline(t) }
