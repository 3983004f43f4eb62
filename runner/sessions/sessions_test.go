package sessions

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/ask"
)

// openTemp opens a registry in a fresh folder of the test.
func openTemp(t *testing.T) *Registry {
	t.Helper()
	r, err := Open(filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// register registers desk and closes the entry when the test ends.
func register(t *testing.T, r *Registry, desk ask.Desk) *Entry {
	t.Helper()
	e, err := r.Register(desk, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

func text(s string) *string { return &s }

func TestAPIServesTheDesk(t *testing.T) {
	t.Parallel()
	r := openTemp(t)
	desk := newFakeDesk("deploy")
	e := register(t, r, desk)
	c := NewClient(e.Socket())
	ctx := t.Context()

	s, err := c.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "deploy" || s.Question == nil || s.Question.Text != "Continue? [y/n]" {
		t.Fatalf("session = %+v", s)
	}
	screen, err := c.Screen(ctx)
	if err != nil || screen.Text != "Continue? [y/n]" || screen.Hash != "h1" {
		t.Fatalf("screen = %+v, %v", screen, err)
	}

	events := make(chan ask.Update, 4)
	streamDone := make(chan error, 1)
	go func() {
		streamDone <- c.Events(ctx, func(u ask.Update) bool { events <- u; return true })
	}()
	waitFor(t, func() bool { return desk.watching() == 1 })

	sent, err := c.Answer(ctx, ask.Answer{Question: "q1", Text: text("y"), By: "ana", Channel: ask.ChannelCLI})
	if err != nil || sent != (ask.Sent{Question: "q1", Sent: "y⏎"}) {
		t.Fatalf("first answer: %+v, %v", sent, err)
	}
	_, err = c.Answer(ctx, ask.Answer{Question: "q1", Text: text("n")})
	var refusal *ask.Refusal
	if !errors.As(err, &refusal) || refusal.Code != ask.RefusedClosed {
		t.Fatalf("second answer: %v, want a refusal %q", err, ask.RefusedClosed)
	}
	if got := desk.answered(); len(got) != 1 || *got[0].Text != "y" || got[0].By != "ana" {
		t.Fatalf("the desk got %+v, want the first answer only", got)
	}

	if u := <-events; u.Kind != ask.UpdateClosed || u.Question == nil || u.Question.Closed.Sent != "y⏎" {
		t.Fatalf("event = %+v, want the question closed", u)
	}
	desk.end()
	if u := <-events; u.Kind != ask.UpdateEnd {
		t.Fatalf("event = %+v, want the end", u)
	}
	if err := <-streamDone; err != nil {
		t.Fatalf("the stream ended with %v, want nil at the end of the run", err)
	}
}

func TestAnswerDefaultsChannelAndPerson(t *testing.T) {
	t.Parallel()
	desk := newFakeDesk("x")
	e := register(t, openTemp(t), desk)
	if _, err := NewClient(e.Socket()).Answer(t.Context(), ask.Answer{Question: "q1", Text: text("")}); err != nil {
		t.Fatal(err)
	}
	a := desk.answered()[0]
	if a.Channel != ask.ChannelCLI || a.By == "" {
		t.Fatalf("answer = %+v, want channel cli and this user", a)
	}
}

// rawRequest sends req on a new connection to socket and returns the
// status line of the reply.
func rawRequest(t *testing.T, socket, req string) string {
	t.Helper()
	conn, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		t.Fatalf("no reply: %v", err)
	}
	return strings.TrimSpace(line)
}

// TestRepliesAreHTTP11: a reply is an HTTP/1.1 reply a client of its own
// reads whole: its length, no body to HEAD, the connection closed after it,
// and 100 Continue to a client that waits for it before its body.
func TestRepliesAreHTTP11(t *testing.T) {
	t.Parallel()
	e := register(t, openTemp(t), newFakeDesk("x"))
	exchange := func(req string) string {
		conn, err := net.Dial("unix", e.Socket())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
		if _, err := conn.Write([]byte(req)); err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(conn)
		if err != nil {
			t.Fatalf("the reply did not end with its connection: %v", err)
		}
		return string(b)
	}
	get := exchange("GET /v1/session HTTP/1.1\r\nHost: clai\r\n\r\n")
	header, body, ok := strings.Cut(get, "\r\n\r\n")
	if !ok || !strings.HasPrefix(header, "HTTP/1.1 200 OK\r\n") || !strings.Contains(header, "\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n") ||
		!strings.Contains(header, "\r\nConnection: close") || !strings.Contains(body, `"name":"x"`) {
		t.Errorf("GET: %q", get)
	}
	head := exchange("HEAD /v1/session HTTP/1.1\r\nHost: clai\r\n\r\n")
	if !strings.HasPrefix(head, "HTTP/1.1 200 OK\r\n") || !strings.HasSuffix(head, "\r\n\r\n") {
		t.Errorf("HEAD: %q, want a header and no body", head)
	}
	body = `{"question":"q1","text":"y"}`
	conn, err := net.Dial("unix", e.Socket())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	fmt.Fprintf(conn, "POST /v1/answer HTTP/1.1\r\nHost: clai\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n", len(body))
	br := bufio.NewReader(conn)
	if line, err := br.ReadString('\n'); err != nil || line != "HTTP/1.1 100 Continue\r\n" {
		t.Fatalf("before the body: %q, %v; want 100 Continue", line, err)
	}
	if _, err := br.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(conn, body)
	if line, err := br.ReadString('\n'); err != nil || line != "HTTP/1.1 200 OK\r\n" {
		t.Fatalf("after the body: %q, %v", line, err)
	}
}

func TestBadRequestsAreRefused(t *testing.T) {
	t.Parallel()
	desk := newFakeDesk("x")
	e := register(t, openTemp(t), desk)
	post := func(body string) string {
		return "POST /v1/answer HTTP/1.1\r\nHost: clai\r\nContent-Type: application/json\r\nContent-Length: " +
			strconv.Itoa(len(body)) + "\r\nConnection: close\r\n\r\n" + body
	}
	tests := []struct{ name, req, want string }{
		{"no JSON", post("y"), "HTTP/1.1 400 Bad Request"},
		{"unknown field", post(`{"question":"q1","text":"y","sudo":true}`), "HTTP/1.1 400 Bad Request"},
		{"two answers", post(`{"question":"q1","text":"y"}{"question":"q1","text":"n"}`), "HTTP/1.1 400 Bad Request"},
		{"no question", post(`{"text":"y"}`), "HTTP/1.1 400 Bad Request"},
		{"too long", post(`{"question":"q1","text":"` + strings.Repeat("y", maxAnswerBody) + `"}`), "HTTP/1.1 400 Bad Request"},
		{"wrong method", "DELETE /v1/session HTTP/1.1\r\nHost: clai\r\nConnection: close\r\n\r\n", "HTTP/1.1 405 Method Not Allowed"},
		{"unknown path", "GET /v1/passwd HTTP/1.1\r\nHost: clai\r\nConnection: close\r\n\r\n", "HTTP/1.1 404 Not Found"},
		{"huge header", "GET /v1/session HTTP/1.1\r\nHost: clai\r\nX-Big: " + strings.Repeat("a", 64<<10) + "\r\n\r\n", "HTTP/1.1 431 Request Header Fields Too Large"},
		{"no request line", "GET\r\nHost: clai\r\n\r\n", "HTTP/1.1 400 Bad Request"},
		{"another protocol", "GET /v1/session HTTP/2.0\r\nHost: clai\r\n\r\n", "HTTP/1.1 400 Bad Request"},
		{"a method that is no token", "G(T /v1/session HTTP/1.1\r\nHost: clai\r\n\r\n", "HTTP/1.1 400 Bad Request"},
		{"chunked body", "POST /v1/answer HTTP/1.1\r\nHost: clai\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", "HTTP/1.1 400 Bad Request"},
		{"two lengths", "POST /v1/answer HTTP/1.1\r\nHost: clai\r\nContent-Length: 2\r\nContent-Length: 30\r\n\r\n{}", "HTTP/1.1 400 Bad Request"},
		{"a negative length", "POST /v1/answer HTTP/1.1\r\nHost: clai\r\nContent-Length: -1\r\n\r\n", "HTTP/1.1 400 Bad Request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := rawRequest(t, e.Socket(), tt.req); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if got := desk.answered(); len(got) != 0 {
		t.Fatalf("the desk got %+v from bad requests", got)
	}
}

// TestAnotherUidIsRefused: a server that lets in only another uid closes
// this process's connections before reading a byte, and says so.
func TestAnotherUidIsRefused(t *testing.T) {
	t.Parallel()
	desk := newFakeDesk("x")
	socket := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	refused := make(chan error, 1)
	srv := serveAs(ln, desk, func(err error) { refused <- err }, os.Getuid()+1, serveLimits())
	t.Cleanup(func() { _ = srv.Close() })

	conn, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"question":"q1","text":"y"}`
	_, _ = fmt.Fprintf(conn, "POST /v1/answer HTTP/1.1\r\nHost: clai\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	if line, err := bufio.NewReader(conn).ReadString('\n'); err == nil {
		t.Fatalf("another uid got a reply: %q", line)
	}
	if err := receive(t, refused); !strings.Contains(err.Error(), "is refused") {
		t.Fatalf("refused with %v", err)
	}
	if got := desk.answered(); len(got) != 0 {
		t.Fatalf("another uid answered: %+v", got)
	}
}

// TestClientOfAGoneSession: the session or stream of a session that is gone is an error.
func TestClientOfAGoneSession(t *testing.T) {
	t.Parallel()
	c := NewClient(filepath.Join(t.TempDir(), "gone.sock"))
	if _, err := c.Session(t.Context()); err == nil {
		t.Fatal("no error from a socket nobody serves")
	}
	if err := c.Events(t.Context(), func(ask.Update) bool { return true }); err == nil {
		t.Fatal("no error from a stream nobody serves")
	}
}

// TestAnswerAfterTheEnd: an answer to a run that ended, whose socket is
// gone, is refused as ended, as one the run refuses itself.
func TestAnswerAfterTheEnd(t *testing.T) {
	t.Parallel()
	e := register(t, openTemp(t), newFakeDesk("x"))
	c := NewClient(e.Socket())
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := c.Answer(t.Context(), ask.Answer{Question: "q1", Text: text("y")})
	var refusal *ask.Refusal
	if !errors.As(err, &refusal) || refusal.Code != ask.RefusedEnded {
		t.Fatalf("got %v, want a refusal %q", err, ask.RefusedEnded)
	}
}

// TestAnswerWhileStopping: an answer that comes once the server stops is
// refused as ended.
func TestAnswerWhileStopping(t *testing.T) {
	t.Parallel()
	desk := newFakeDesk("x")
	a := newAPI(desk, serveLimits())
	a.stop(0)
	var out bytes.Buffer
	w := &replyWriter{conn: noDeadlines{}, bw: bufio.NewWriter(&out), header: textproto.MIMEHeader{}}
	a.serve(w, &request{ctx: t.Context(), method: "POST", path: "/v1/answer", body: strings.NewReader(`{"question":"q1","text":"y"}`)})
	_ = w.flush()
	if got := out.String(); !strings.HasPrefix(got, "HTTP/1.1 409 Conflict\r\n") || !strings.Contains(got, `"code":"ended"`) {
		t.Fatalf("got %q, want 409 ended", got)
	}
	if got := desk.answered(); len(got) != 0 {
		t.Fatalf("the desk got %+v", got)
	}
}

// noDeadlines is a connection whose deadlines are never reached.
type noDeadlines struct{}

func (noDeadlines) SetReadDeadline(time.Time) error  { return nil }
func (noDeadlines) SetWriteDeadline(time.Time) error { return nil }

// TestClientReadsRepliesAsHTTP11: the client reads a reply by its length,
// or up to the connection's end without one, past a 100 Continue; it
// refuses a reply that is no HTTP and one whose header is past its bound.
func TestClientReadsRepliesAsHTTP11(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, reply string
		want        string // the session's name, or the error's part
	}{
		{"with a length", "HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\n{\"name\":\"a\"}trailing garbage", "a"},
		{"to the end", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{\"name\":\"b\"}", "b"},
		{"after 100 Continue", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n{\"name\":\"c\"}", "c"},
		{"an error", "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 29\r\n\r\n{\"error\":\"the run has ended\"}", "the run has ended"},
		{"an error of no JSON", "HTTP/1.1 404 Not Found\r\n\r\n404 page not found\n", "404 Not Found"},
		{"no HTTP", "SSH-2.0-OpenSSH\r\n\r\n", "malformed reply"},
		{"a bad length", "HTTP/1.1 200 OK\r\nContent-Length: many\r\n\r\n{}", "malformed reply"},
		{"a huge header", "HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("a", 64<<10) + "\r\n\r\n{}", "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			socket := filepath.Join(t.TempDir(), "s.sock")
			ln, err := net.Listen("unix", socket)
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			go func() {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				defer c.Close()
				_, _ = bufio.NewReader(c).ReadString('\n')
				_, _ = io.WriteString(c, tt.reply)
			}()
			s, err := NewClient(socket).Session(t.Context())
			switch {
			case err != nil && !strings.Contains(err.Error(), tt.want):
				t.Fatalf("got %v, want %q", err, tt.want)
			case err == nil && s.Name != tt.want:
				t.Fatalf("got the session %+v, want %q", s, tt.want)
			}
		})
	}
}
