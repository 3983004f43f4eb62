package sessions

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/ask"
)

// countingListener counts the connections the server took from it.
type countingListener struct {
	net.Listener
	accepted atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.accepted.Add(1)
	}
	return c, err
}

// serveTemp serves desk within lim on a socket of the test.
func serveTemp(t *testing.T, desk *fakeDesk, lim limits) (string, *countingListener) {
	t.Helper()
	socket := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	cl := &countingListener{Listener: ln}
	srv := serveAs(cl, desk, nil, os.Getuid(), lim)
	t.Cleanup(func() { _ = srv.Close() })
	return socket, cl
}

// TestSlowBodyIsCutOff: a client that sends half an answer and stalls is cut
// off after the read timeout, and nothing is answered.
func TestSlowBodyIsCutOff(t *testing.T) {
	t.Parallel()
	lim := serveLimits()
	lim.read = 100 * time.Millisecond
	desk := newFakeDesk("x")
	socket, _ := serveTemp(t, desk, lim)
	conn, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A deadline far beyond the read timeout only catches a server that
	// waits forever.
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	fmt.Fprint(conn, "POST /v1/answer HTTP/1.1\r\nHost: clai\r\nContent-Length: 100\r\n\r\n{\"question\":\"q1\",")
	reply, err := io.ReadAll(conn)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the server still waits for the body")
	}
	if strings.HasPrefix(string(reply), "HTTP/1.1 200") {
		t.Fatalf("a stalled body was answered: %q", reply)
	}
	if got := desk.answered(); len(got) != 0 {
		t.Fatalf("the desk got %+v", got)
	}
}

// TestConnectionsAreCapped: connections beyond the cap wait in the listen
// queue, and the session answers again once those holding it go.
func TestConnectionsAreCapped(t *testing.T) {
	t.Parallel()
	lim := serveLimits()
	lim.conns = 4
	desk := newFakeDesk("x")
	socket, cl := serveTemp(t, desk, lim)
	var idle []net.Conn
	for range 100 {
		c, err := net.Dial("unix", socket)
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
	}
	waitFor(t, func() bool { return cl.accepted.Load() >= int64(lim.conns) })
	for range 200 {
		time.Sleep(time.Millisecond)
		if n := cl.accepted.Load(); n > int64(lim.conns) {
			t.Fatalf("%d connections taken at once, want at most %d", n, lim.conns)
		}
	}
	for _, c := range idle {
		_ = c.Close()
	}
	if _, err := NewClient(socket).Session(t.Context()); err != nil {
		t.Fatalf("after the idle connections went: %v", err)
	}
}

// TestHelperDials is not a test: run by TestOtherUserIsRefused as another
// user, it asks the socket it is given for the session and prints the reply
// or "closed".
func TestHelperDials(t *testing.T) {
	socket := os.Getenv("CLAI_SESSIONS_HELPER_SOCKET")
	if socket == "" {
		t.Skip("a helper process of TestOtherUserIsRefused")
	}
	conn, err := net.Dial("unix", socket)
	if err != nil {
		fmt.Println("dial:", err)
		return
	}
	defer conn.Close()
	fmt.Fprint(conn, "GET /v1/session HTTP/1.1\r\nHost: clai\r\nConnection: close\r\n\r\n")
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		fmt.Println("closed")
		return
	}
	fmt.Print(line)
}

// TestOtherUserIsRefused: a process of another user that reaches the socket
// (here through a folder and a socket anyone may enter) is refused by the
// peer's uid; this user's own process is served.
func TestOtherUserIsRefused(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("only root can start a process of another user")
	}
	open, err := os.MkdirTemp("", "clai-peer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(open) })
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	// The test binary, where another user may run it.
	bin := filepath.Join(open, "helper")
	testprog.Place(t, os.Args[0], bin)
	socket := filepath.Join(open, "s.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(socket, 0o777); err != nil {
		t.Fatal(err)
	}
	desk := newFakeDesk("x")
	refused := make(chan error, 1)
	srv := Serve(ln, desk, func(err error) { refused <- err })
	t.Cleanup(func() { _ = srv.Close() })

	dial := func(cred *syscall.Credential) string {
		cmd := exec.Command(bin, "-test.run=^TestHelperDials$")
		cmd.Env = append(os.Environ(), "CLAI_SESSIONS_HELPER_SOCKET="+socket)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("helper: %v\n%s", err, out)
		}
		return strings.SplitN(string(out), "\n", 2)[0]
	}
	if got := dial(&syscall.Credential{Uid: 65534, Gid: 65534}); got != "closed" {
		t.Fatalf("uid 65534 got %q, want the connection closed", got)
	}
	if err := receive(t, refused); !strings.Contains(err.Error(), "uid 65534 is refused") {
		t.Fatalf("refused with %v", err)
	}
	if got := dial(nil); !strings.HasPrefix(got, "HTTP/1.1 200") {
		t.Fatalf("this user got %q, want 200", got)
	}
}

// slowDesk is a fakeDesk whose Answer waits until release is closed.
type slowDesk struct {
	*fakeDesk
	taken   chan struct{}
	release chan struct{}
}

func (d *slowDesk) Answer(ctx context.Context, a ask.Answer) (ask.Sent, error) {
	close(d.taken)
	<-d.release
	return d.fakeDesk.Answer(ctx, a)
}

// TestCloseWaitsOnlyForReplies: at the end of the run, a client still
// sending its request, an idle connection and an event stream hold nothing
// up, however long the grace; an answer being typed gets its reply.
func TestCloseWaitsOnlyForReplies(t *testing.T) {
	t.Parallel()
	lim := serveLimits()
	lim.grace, lim.read, lim.readHeader = time.Hour, time.Hour, time.Hour
	desk := &slowDesk{fakeDesk: newFakeDesk("x"), taken: make(chan struct{}), release: make(chan struct{})}
	socket := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	srv := serveAs(ln, desk, nil, os.Getuid(), lim)

	slow, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	fmt.Fprint(slow, "POST /v1/answer HTTP/1.1\r\nHost: clai\r\nContent-Length: 100\r\n\r\n{")
	idle, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	c := NewClient(socket)
	streamEnded := make(chan error, 1)
	go func() { streamEnded <- c.Events(t.Context(), func(ask.Update) bool { return true }) }()
	waitFor(t, func() bool { return desk.watching() == 1 })

	answered := make(chan error, 1)
	go func() {
		_, err := c.Answer(t.Context(), ask.Answer{Question: "q1", Text: text("y")})
		answered <- err
	}()
	<-desk.taken
	closed := make(chan error, 1)
	go func() { closed <- srv.Close() }()
	receive(t, streamEnded)
	close(desk.release)
	if err := receive(t, answered); err != nil {
		t.Fatalf("the answer under way got %v, want its reply", err)
	}
	if err := receive(t, closed); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := os.Stat(socket); err == nil {
		t.Fatal("the socket is still there after Close")
	}
}

// TestClientsHoldNoConnection: a client's request takes one of the few
// connections a session serves at once only until its reply, so many
// clients one after the other are all served.
func TestClientsHoldNoConnection(t *testing.T) {
	t.Parallel()
	lim := serveLimits()
	lim.conns = 2
	socket, _ := serveTemp(t, newFakeDesk("x"), lim)
	// A deadline far beyond a reply only catches a client left waiting.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var clients []*Client
	for i := range 3 * lim.conns {
		c := NewClient(socket)
		clients = append(clients, c) // kept, so their connections would stay
		if _, err := c.Session(ctx); err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
	}
	runtime.KeepAlive(clients)
}

// TestEndReachesTheStreamAsItStops: the run's end, published just before
// the server stops, reaches a stream that watches: what the desk has queued
// is sent before the stream ends, every time.
func TestEndReachesTheStreamAsItStops(t *testing.T) {
	t.Parallel()
	for i := range 30 {
		desk := newFakeDesk("ending")
		socket := filepath.Join(t.TempDir(), "s.sock")
		ln, err := net.Listen("unix", socket)
		if err != nil {
			t.Fatal(err)
		}
		srv := serveAs(ln, desk, nil, os.Getuid(), serveLimits())
		got := make(chan ask.Update, 4)
		streamEnded := make(chan error, 1)
		go func() {
			streamEnded <- NewClient(socket).Events(t.Context(), func(u ask.Update) bool { got <- u; return true })
		}()
		waitFor(t, func() bool { return desk.watching() == 1 })
		desk.mu.Lock()
		desk.publish(ask.Update{Kind: ask.UpdateEnd, State: "done", Outcome: "done"})
		desk.mu.Unlock()
		if err := srv.Close(); err != nil {
			t.Fatal(err)
		}
		receive(t, streamEnded)
		select {
		case u := <-got:
			if u.Kind != ask.UpdateEnd {
				t.Fatalf("run %d: the stream got %+v, want the end", i, u)
			}
		default:
			t.Fatalf("run %d: the end published before the server stopped never reached the stream", i)
		}
	}
}
