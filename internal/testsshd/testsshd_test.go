package testsshd_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/peer"
	"github.com/clai-sh/clai/internal/testsshd"
)

// limit bounds every wait of these tests, so that a fault fails them
// instead of hanging them.
const limit = 30 * time.Second

// echoServer listens on the Unix socket path and echoes each connection
// back; it sends what peer.Check says of each connection's peer on the
// channel it returns.
func echoServer(t *testing.T, path string) <-chan error {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	peers := make(chan error, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			select {
			case peers <- peer.Check(c, os.Getuid()):
			default:
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	return peers
}

// ssh runs the ssh client with the server's options, then args; it is
// killed when the test ends. The channel it returns is closed when ssh
// ends.
func ssh(t *testing.T, s *testsshd.Server, stdout io.Writer, args ...string) <-chan struct{} {
	t.Helper()
	var stderr strings.Builder
	cmd := exec.Command("ssh", append(s.SSHArgs(), args...)...)
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("ssh %s: %v\n%s", strings.Join(args, " "), cmd.ProcessState, stderr.String())
		}
	})
	return exited
}

// forward runs ssh -N with the forward spec (-L or -R, and its argument).
func forward(t *testing.T, s *testsshd.Server, spec ...string) <-chan struct{} {
	t.Helper()
	args := append([]string{"-N", "-o", "ExitOnForwardFailure=yes", "-o", "StreamLocalBindUnlink=yes"}, spec...)
	return ssh(t, s, io.Discard, append(args, s.Target())...)
}

// dial connects to the Unix socket path once something serves it, looking
// again every few milliseconds while ssh runs, for limit at most.
func dial(t *testing.T, path string, sshExited <-chan struct{}) net.Conn {
	t.Helper()
	deadline := time.Now().Add(limit)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		c, err := net.Dial("unix", path)
		if err == nil {
			return c
		}
		select {
		case <-sshExited:
			t.Fatalf("ssh ended before %s was served: %v", path, err)
		case <-tick.C:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not served within %v: %v", path, limit, err)
		}
	}
}

// roundTrip sends a line through c and checks that it comes back.
func roundTrip(t *testing.T, c net.Conn, line string) {
	t.Helper()
	if err := c.SetDeadline(time.Now().Add(limit)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(c, line+"\n"); err != nil {
		t.Fatalf("write through the forward: %v", err)
	}
	got, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatalf("read through the forward: %v", err)
	}
	if got != line+"\n" {
		t.Fatalf("the forward echoed %q, want %q", got, line+"\n")
	}
}

// wait waits for ch to close, for limit at most.
func wait(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(limit):
		t.Fatalf("%s not within %v", what, limit)
	}
}

// A local forward (ssh -L) of a Unix socket reaches the socket on the
// server's side, whose peer is this user; Stop drops it as a cut link
// would, and after Restart a new forward works again.
func TestForwardLocalSocket(t *testing.T) {
	t.Parallel()
	s := testsshd.Start(t)
	dir := t.TempDir()
	remote, local := filepath.Join(dir, "remote.sock"), filepath.Join(dir, "local.sock")
	peers := echoServer(t, remote)

	exited := forward(t, s, "-L", local+":"+remote)
	c := dial(t, local, exited)
	defer c.Close()
	roundTrip(t, c, "hello over ssh")
	if err := <-peers; err != nil {
		t.Errorf("the forwarded connection's peer: %v", err)
	}

	s.Stop()
	if err := c.SetReadDeadline(time.Now().Add(limit)); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("after Stop the forwarded connection still stands: read %d bytes, %v", n, err)
	}
	wait(t, exited, "ssh ending after Stop")

	s.Restart()
	exited = forward(t, s, "-L", local+":"+remote)
	c2 := dial(t, local, exited)
	defer c2.Close()
	roundTrip(t, c2, "hello again")
	if err := <-peers; err != nil {
		t.Errorf("the forwarded connection's peer after Restart: %v", err)
	}
}

// A remote forward (ssh -R) binds a socket on the server's side in place
// of a stale one (StreamLocalBindUnlink), and reaches the client's socket.
func TestForwardRemoteSocket(t *testing.T) {
	t.Parallel()
	s := testsshd.Start(t)
	dir := t.TempDir()
	remote, local := filepath.Join(dir, "remote.sock"), filepath.Join(dir, "local.sock")
	echoServer(t, local)
	stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: remote, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	stale.SetUnlinkOnClose(false)
	stale.Close()

	exited := forward(t, s, "-R", remote+":"+local)
	c := dial(t, remote, exited)
	defer c.Close()
	roundTrip(t, c, "hello from the far side")
}

// Every session gets the environment Start was given, PATH among them, the
// variables a client sends that AcceptEnv lets through, and an empty HOME
// of its own.
func TestSessionEnvironment(t *testing.T) {
	t.Parallel()
	runtime := t.TempDir()
	bin := t.TempDir()
	s := testsshd.Start(t, "XDG_RUNTIME_DIR="+runtime, "PATH="+bin+":/usr/bin:/bin")
	var out strings.Builder
	exited := ssh(t, s, &out, "-o", "SetEnv=CLAI_FROM_CLIENT=sent", s.Target(),
		`printf '%s|%s|%s|%s' "$XDG_RUNTIME_DIR" "$PATH" "$CLAI_FROM_CLIENT" "$(ls -A "$HOME")"`)
	wait(t, exited, "the remote command ending")
	got := strings.Split(out.String(), "|")
	if len(got) != 4 {
		t.Fatalf("the remote command printed %q", out.String())
	}
	if got[0] != runtime {
		t.Errorf("XDG_RUNTIME_DIR = %q, want %q", got[0], runtime)
	}
	if !strings.HasPrefix(got[1], bin+":") {
		t.Errorf("PATH = %q, want it to start with %s", got[1], bin)
	}
	if got[2] != "sent" {
		t.Errorf("CLAI_FROM_CLIENT = %q, want the client's", got[2])
	}
	if got[3] != "" {
		t.Errorf("HOME holds %q, want a folder of the server's own, empty", got[3])
	}
}
