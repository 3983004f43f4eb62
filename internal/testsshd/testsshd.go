// Package testsshd runs a real OpenSSH sshd on loopback for a test, as a
// second machine that the ssh client reaches: a fresh host key and client
// key, public-key login of this user only, and Unix socket forwarding, so
// that a test can forward a socket over SSH as two machines would, cut the
// link (Stop) and bring it back (Restart).
package testsshd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
)

// MarkerEnv is set in the environment of sshd and of every session it
// starts, to the server's folder, so that Stop finds what the server
// started even where it left the process tree.
const MarkerEnv = "CLAI_TESTSSHD"

// startLimit bounds how long sshd may take to listen, and Stop to see
// what it killed gone.
const startLimit = 30 * time.Second

// logTail is how much of sshd's log a failed test shows.
const logTail = 8 << 10

// unquotable are the bytes that a quoted argument of sshd_config cannot
// hold.
const unquotable = "\"\\\n\r\x00"

// envName is the shape of a variable name that SetEnv may set.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Server is a running sshd of one test. Its methods are for the test's own
// goroutine, one at a time.
type Server struct {
	t          testing.TB
	sshd       string
	dir        string
	config     string
	clientKey  string
	hostPub    string
	knownHosts string
	logPath    string
	user       string
	env        []string
	port       int
	cmd        *exec.Cmd
	exited     chan struct{}
}

// Start runs sshd as this user on a free port of 127.0.0.1, with its keys,
// config and log in a folder of t.TempDir, and stops it and everything it
// started when the test ends. env holds NAME=value entries that every
// session on the server gets (sshd's SetEnv), PATH among them, which sshd
// otherwise sets itself: the second machine's environment. HOME is an empty
// folder of the server's unless env sets it, so that a session's shell
// reads no startup file of the user's own (bash reads ~/.bashrc for a
// command over SSH). A client may also send XDG_RUNTIME_DIR and CLAI_*
// variables (AcceptEnv), for one connection (ssh -o SetEnv=NAME=value).
//
// sshd and ssh are programs of the e2e tier (testprog.RequireProgram):
// without the tag e2e the test is skipped. Run as root, sshd needs its
// privilege separation folder /run/sshd, which Start makes if missing. A
// locked account (as nobody's) cannot log in: sshd runs without PAM.
func Start(t testing.TB, env ...string) *Server {
	t.Helper()
	sshd := testprog.RequireProgram(t, "sshd", "openssh-server")
	testprog.RequireProgram(t, "ssh", "openssh-client")
	keygen := testprog.RequireProgram(t, "ssh-keygen", "openssh-client")
	sshd, err := filepath.Abs(sshd) // sshd re-executes itself by this path
	if err != nil {
		t.Fatal(err)
	}
	u, err := user.Current()
	if err != nil {
		t.Fatalf("testsshd: who runs the test: %v", err)
	}
	if os.Geteuid() == 0 {
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Fatalf("testsshd: sshd's privilege separation folder: %v", err)
		}
	}
	dir := t.TempDir()
	if strings.ContainsAny(dir, unquotable+"%") {
		t.Fatalf("testsshd: the temporary folder %q holds a quote, backslash, line break, NUL or %%, which sshd_config cannot take", dir)
	}
	home := filepath.Join(dir, "home")
	env = withDefault(env, "HOME="+home)
	if err := checkEnv(env); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	s := &Server{
		t: t, sshd: sshd, dir: dir, user: u.Username, env: env,
		config:     filepath.Join(dir, "sshd_config"),
		clientKey:  filepath.Join(dir, "client_ed25519"),
		hostPub:    filepath.Join(dir, "host_ed25519.pub"),
		knownHosts: filepath.Join(dir, "known_hosts"),
		logPath:    filepath.Join(dir, "sshd.log"),
	}
	for _, key := range []string{s.clientKey, strings.TrimSuffix(s.hostPub, ".pub")} {
		if err := makeKey(t.Context(), keygen, key); err != nil {
			t.Fatal(err)
		}
	}
	if err := copyFile(s.clientKey+".pub", filepath.Join(dir, "authorized_keys")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			t.Logf("sshd's log, its last %d bytes at most:\n%s", logTail, s.logTail())
		}
	})
	s.startOnFreePort()
	return s
}

// withDefault returns env with def added, unless env sets its variable.
func withDefault(env []string, def string) []string {
	name, _, _ := strings.Cut(def, "=")
	for _, e := range env {
		if strings.HasPrefix(e, name+"=") {
			return env
		}
	}
	return append([]string{def}, env...)
}

// checkEnv checks that each entry is NAME=value with a value SetEnv takes
// as it is, quoted.
func checkEnv(env []string) error {
	for _, e := range env {
		name, value, ok := strings.Cut(e, "=")
		if !ok || !envName.MatchString(name) {
			return fmt.Errorf("testsshd: environment entry %q is not NAME=value", e)
		}
		if strings.ContainsAny(value, unquotable) {
			return fmt.Errorf("testsshd: the value of %s holds a quote, backslash, line break or NUL, which sshd_config cannot quote", name)
		}
	}
	return nil
}

// makeKey makes a new ed25519 key pair without a passphrase at path and
// path.pub.
func makeKey(ctx context.Context, keygen, path string) error {
	ctx, cancel := context.WithTimeout(ctx, startLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, keygen, "-q", "-t", "ed25519", "-N", "", "-C", "testsshd", "-f", path)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("testsshd: ssh-keygen %s: %w\n%s", filepath.Base(path), err, out)
	}
	return nil
}

// copyFile copies the small file from to a new file to, readable by its
// owner only.
func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return fmt.Errorf("testsshd: %w", err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		return fmt.Errorf("testsshd: %w", err)
	}
	return nil
}

// startOnFreePort starts sshd on a port that was free a moment before,
// and on another one if someone took it meanwhile.
func (s *Server) startOnFreePort() {
	s.t.Helper()
	const tries = 5
	for i := 1; ; i++ {
		port, err := freePort()
		if err != nil {
			s.t.Fatal(err)
		}
		s.port = port
		err = s.start()
		if err == nil {
			return
		}
		if i == tries || !strings.Contains(s.logTail(), "Address already in use") {
			s.t.Fatalf("testsshd: %v\nsshd's log:\n%s", err, s.logTail())
		}
	}
}

// freePort returns a port of 127.0.0.1 that nothing listens on.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("testsshd: a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// start writes the config and known_hosts for s.port, runs sshd and waits
// until it greets a connection on its port.
func (s *Server) start() error {
	if err := os.WriteFile(s.config, []byte(s.configText()), 0o600); err != nil {
		return fmt.Errorf("sshd_config: %w", err)
	}
	hostPub, err := os.ReadFile(s.hostPub)
	if err != nil {
		return fmt.Errorf("host key: %w", err)
	}
	entry := fmt.Sprintf("[127.0.0.1]:%d %s", s.port, hostPub)
	if err := os.WriteFile(s.knownHosts, []byte(entry), 0o600); err != nil {
		return fmt.Errorf("known_hosts: %w", err)
	}
	log, err := os.OpenFile(s.logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("sshd's log: %w", err)
	}
	defer log.Close()
	cmd := exec.Command(s.sshd, "-D", "-e", "-f", s.config)
	cmd.Env = append(os.Environ(), MarkerEnv+"="+s.dir)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start sshd: %w", err)
	}
	s.cmd, s.exited = cmd, make(chan struct{})
	go func(exited chan struct{}) {
		_ = cmd.Wait()
		close(exited)
	}(s.exited)
	if err := s.waitListening(); err != nil {
		s.Stop()
		return err
	}
	return nil
}

// configText is the sshd_config of s: public-key login of this user only,
// on 127.0.0.1 at s.port, with Unix socket forwarding.
func (s *Server) configText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ListenAddress 127.0.0.1:%d\n", s.port)
	fmt.Fprintf(&b, "HostKey \"%s\"\n", strings.TrimSuffix(s.hostPub, ".pub"))
	fmt.Fprintf(&b, "PidFile \"%s\"\n", filepath.Join(s.dir, "sshd.pid"))
	fmt.Fprintf(&b, "AuthorizedKeysFile \"%s\"\n", filepath.Join(s.dir, "authorized_keys"))
	fmt.Fprintf(&b, "AllowUsers %s\n", s.user)
	b.WriteString(`PermitRootLogin prohibit-password
AuthenticationMethods publickey
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
HostbasedAuthentication no
UsePAM no
StrictModes no
AllowStreamLocalForwarding yes
StreamLocalBindUnlink yes
AllowTcpForwarding yes
X11Forwarding no
PermitUserRC no
PermitUserEnvironment no
PrintMotd no
PrintLastLog no
UseDNS no
LogLevel VERBOSE
AcceptEnv XDG_RUNTIME_DIR CLAI_*
`)
	fmt.Fprintf(&b, "SetEnv \"%s=%s\"", MarkerEnv, s.dir)
	for _, e := range s.env {
		fmt.Fprintf(&b, " \"%s\"", e)
	}
	b.WriteString("\n")
	return b.String()
}

// waitListening waits until sshd greets a connection to its port with the
// SSH banner, or ends, or startLimit passes.
func (s *Server) waitListening() error {
	deadline := time.Now().Add(startLimit)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		err := s.greets(deadline)
		if err == nil {
			return nil
		}
		select {
		case <-s.exited:
			return fmt.Errorf("sshd ended before it listened on port %d: %v", s.port, s.cmd.ProcessState)
		case <-tick.C:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sshd did not listen on port %d within %v: %w", s.port, startLimit, err)
		}
	}
}

// greets connects to the port and reads the server's banner.
func (s *Server) greets(deadline time.Time) error {
	c, err := net.DialTimeout("tcp", s.addr(), time.Until(deadline))
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.SetReadDeadline(deadline); err != nil {
		return err
	}
	banner := make([]byte, len("SSH-2.0-"))
	if _, err := io.ReadFull(c, banner); err != nil {
		return fmt.Errorf("no banner: %w", err)
	}
	if !bytes.HasPrefix(banner, []byte("SSH-")) {
		return fmt.Errorf("port %d greets with %q, not SSH", s.port, banner)
	}
	return nil
}

func (s *Server) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// SSHArgs returns the options of ssh that reach the server without asking
// anything: no user config, the client key only, its host key pinned.
// Append the command line's own options, the Target and the command.
func (s *Server) SSHArgs() []string {
	return []string{
		"-F", "/dev/null",
		"-p", strconv.Itoa(s.port),
		"-i", s.clientKey,
		"-o", "IdentitiesOnly=yes",
		"-o", "IdentityAgent=none",
		"-o", "BatchMode=yes",
		"-o", "StrictHostKeyChecking=yes",
		"-o", "UserKnownHostsFile=" + s.knownHosts,
		"-o", "GlobalKnownHostsFile=/dev/null",
		"-o", "UpdateHostKeys=no",
		"-o", "ConnectTimeout=30",
		"-o", "LogLevel=ERROR",
	}
}

// Target is the ssh destination of the server: this user at 127.0.0.1.
func (s *Server) Target() string { return s.user + "@127.0.0.1" }

// Port is the port the server listens on, the same after Restart.
func (s *Server) Port() int { return s.port }

// Stop kills sshd and every process it started: the sshd of each
// connection and the sessions' programs, which sshd puts in sessions of
// their own, and whatever carries MarkerEnv. Established connections and
// their forwards drop, as when a link is cut. It returns once they are
// gone; stopping a stopped server does nothing.
func (s *Server) Stop() {
	s.t.Helper()
	if s.cmd == nil {
		return
	}
	root := s.cmd.Process.Pid
	select {
	case <-s.exited: // waited for: its pid may be another's now
		root = 0
	default:
	}
	pids := freeze(root, MarkerEnv+"="+s.dir)
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	if root > 1 {
		_ = syscall.Kill(-root, syscall.SIGKILL)
	}
	<-s.exited
	s.cmd = nil
	if err := waitGone(pids, startLimit); err != nil {
		s.t.Errorf("testsshd: %v", err)
	}
}

// Restart starts sshd again, on the same port with the same keys, after
// stopping it if it runs.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	if err := s.start(); err != nil {
		s.t.Fatalf("testsshd: restart: %v\nsshd's log:\n%s", err, s.logTail())
	}
}

// logTail returns the last logTail bytes of sshd's log.
func (s *Server) logTail() string {
	f, err := os.Open(s.logPath)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err.Error()
	}
	off := max(fi.Size()-logTail, 0)
	b := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(b, off); err != nil && !errors.Is(err, io.EOF) {
		return err.Error()
	}
	if off > 0 {
		return fmt.Sprintf("[%d bytes before left out]\n%s", off, b)
	}
	return string(b)
}
