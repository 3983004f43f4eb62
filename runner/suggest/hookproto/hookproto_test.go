package hookproto

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLineRoundTrip(t *testing.T) {
	t.Parallel()
	in := []Event{
		{Type: TypeCommand, Session: "s1", Shell: "bash", PID: 42, TSMillis: 1700000000000, Cwd: "/home/ü",
			Cmd: "echo \"it's\" | grep -v '\"x\"'\nls <a> & b", Exit: 0, DurationMS: 12},
		{Type: TypeCommand, Session: "s1", Shell: "zsh", PID: 42, Cwd: "/", Cmd: "false", Exit: 1, DurationMS: UnknownDuration},
		{Type: TypeSessionStart, Session: "l-1-ab", Shell: "fish", PID: 7, TSMillis: 5, Cwd: "/tmp"},
	}
	var buf []byte
	for _, e := range in {
		var err error
		if buf, err = AppendLine(buf, e); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.SplitAfter(string(buf), "\n")
	if len(lines) != len(in)+1 || lines[len(in)] != "" {
		t.Fatalf("want %d lines, got %q", len(in), buf)
	}
	if strings.Contains(lines[0], `\u003c`) {
		t.Errorf("HTML escaping in %s", lines[0])
	}
	if strings.Contains(lines[2], "exit") || strings.Contains(lines[2], "duration_ms") || strings.Contains(lines[2], `"cmd"`) {
		t.Errorf("a session_start carries a command's fields: %s", lines[2])
	}
	if !strings.Contains(lines[1], `"exit":1`) || !strings.Contains(lines[1], `"duration_ms":-1`) {
		t.Errorf("want exit and duration_ms in %s", lines[1])
	}
	for i, line := range lines[:len(in)] {
		got, err := ParseLine([]byte(line))
		if err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		want := in[i]
		want.V = Version
		if want.Type != TypeCommand {
			want.DurationMS = UnknownDuration
		}
		if got != want {
			t.Errorf("line %d: got %+v, want %+v", i, got, want)
		}
	}
}

func TestLossyUTF8(t *testing.T) {
	t.Parallel()
	line, err := AppendLine(nil, Event{Type: TypeCommand, Cmd: "echo \xff\xfe ok \xc3", Cwd: "/a\x80b", Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := ParseLine(line)
	if err != nil {
		t.Fatal(err)
	}
	if e.Cmd != "echo \uFFFD ok \uFFFD" || e.Cwd != "/a\uFFFDb" {
		t.Fatalf("got cmd %q cwd %q", e.Cmd, e.Cwd)
	}
}

func TestParseLine(t *testing.T) {
	t.Parallel()
	e, err := ParseLine([]byte(`{"v":1,"type":"command","session":"s","cmd":"ls","exit":2,"future":{"x":[1]}}` + "\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if e.Cmd != "ls" || e.Exit != 2 || e.DurationMS != UnknownDuration {
		t.Fatalf("got %+v", e)
	}
	for _, c := range []struct {
		line string
		want error
		says string
	}{
		{`{"v":2,"type":"command"}`, ErrNewer, "version 2"},
		{`{"v":1,"type":"nap"}`, nil, `unknown type "nap"`},
		{`{"v":1}`, nil, "no type"},
		{`{"type":"command"}`, nil, "version 0"},
		{`{"v":1,"type":"command"`, nil, "unexpected end"},
		{`{"v":1,"type":"command","cmd":"` + strings.Repeat("x", MaxLine) + `"}`, ErrTooLong, "longer than"},
	} {
		_, err := ParseLine([]byte(c.line))
		if err == nil || (c.want != nil && !errors.Is(err, c.want)) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("ParseLine(%.40s…) = %v, want an error saying %q", c.line, err, c.says)
		}
	}
}

func TestAppendLineTooLong(t *testing.T) {
	t.Parallel()
	buf := []byte("kept\n")
	got, err := AppendLine(buf, Event{Type: TypeCommand, Cmd: strings.Repeat("y", MaxLine)})
	if !errors.Is(err, ErrTooLong) || string(got) != "kept\n" {
		t.Fatalf("AppendLine = %q, %v; want the buffer unchanged and ErrTooLong", got, err)
	}
	// Just below the bound, it fits.
	e := Event{Type: TypeCommand, Cmd: "y"}
	line, err := AppendLine(nil, e)
	if err != nil {
		t.Fatal(err)
	}
	e.Cmd = strings.Repeat("y", MaxLine-(len(line)-1)+1)
	if line, err = AppendLine(nil, e); err != nil || len(line)-1 != MaxLine {
		t.Fatalf("a line of exactly MaxLine bytes: %d bytes, %v", len(line)-1, err)
	}
}

func TestConnectTimeout(t *testing.T) {
	t.Parallel()
	for env, want := range map[string]time.Duration{
		"": DefaultConnectTimeout, "x": DefaultConnectTimeout, "12": 12 * time.Millisecond,
		"1": MinConnectTimeout, "-5": MinConnectTimeout, "500": MaxConnectTimeout, "20": 20 * time.Millisecond,
	} {
		if got := ConnectTimeout(env); got != want {
			t.Errorf("ConnectTimeout(%q) = %v, want %v", env, got, want)
		}
	}
}

func TestPipePath(t *testing.T) {
	t.Parallel()
	for user, want := range map[string]string{
		"alice":          `\\.\pipe\clai-daemon-alice`,
		`CORP\Bob Smith`: `\\.\pipe\clai-daemon-corp_5cbob_20smith`,
		"a_b":            `\\.\pipe\clai-daemon-a_5fb`,
		"ünï":            `\\.\pipe\clai-daemon-_c3_bcn_c3_af`,
	} {
		if got := PipePath(user); got != want {
			t.Errorf("PipePath(%q) = %q, want %q", user, got, want)
		}
	}
	// Two names that differ stay apart once escaped.
	if PipePath("a_5fb") == PipePath("a_b") {
		t.Error("an escaped name collides with another")
	}
	p := NamedPipe{Path: PipePath("alice")}
	if _, err := p.Dial(time.Millisecond); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("NamedPipe.Dial = %v, want ErrUnsupported", err)
	}
	if _, err := p.Listen(); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("NamedPipe.Listen = %v, want ErrUnsupported", err)
	}
	var _ Transport = p
}

func TestSocketPath(t *testing.T) {
	t.Setenv(SocketEnv, "/some/where.sock")
	if got := SocketPath(); got != "/some/where.sock" {
		t.Errorf("SocketPath() = %q", got)
	}
	tr, err := DefaultTransport()
	if err != nil || tr.String() != "/some/where.sock" {
		t.Errorf("DefaultTransport() = %v, %v", tr, err)
	}
	dir := t.TempDir()
	t.Setenv(SocketEnv, "")
	t.Setenv("XDG_RUNTIME_DIR", dir)
	if got, want := SocketPath(), filepath.Join(dir, "clai", SocketName); got != want {
		t.Errorf("SocketPath() = %q, want %q", got, want)
	}
	// The runtime folder is missing: nothing is made, and there is no transport.
	if _, err := DefaultTransport(); err == nil {
		t.Error("DefaultTransport() without a runtime folder: no error")
	}
	if err := os.Mkdir(filepath.Join(dir, "clai"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := DefaultTransport(); err == nil || !strings.Contains(err.Error(), "want 0700") {
		t.Errorf("DefaultTransport() with an open runtime folder = %v, want a refusal", err)
	}
	if err := os.Chmod(filepath.Join(dir, "clai"), 0o700); err != nil {
		t.Fatal(err)
	}
	if tr, err := DefaultTransport(); err != nil || tr.String() != SocketPath() {
		t.Errorf("DefaultTransport() = %v, %v", tr, err)
	}
}

// ingestServer is a real HTTP server on a Unix socket in a temporary folder
// that hands each line posted to /ingest to lines.
func ingestServer(t *testing.T) (UnixSocket, <-chan string) {
	t.Helper()
	sock := UnixSocket{Path: filepath.Join(t.TempDir(), "d.sock")}
	ln, err := sock.Listen()
	if err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != IngestPath || r.Header.Get("Content-Type") != "application/x-ndjson" {
			t.Errorf("request %s %s %q", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		}
		sc := bufio.NewScanner(r.Body)
		sc.Buffer(nil, MaxLine+1)
		for sc.Scan() {
			lines <- sc.Text()
		}
		if err := sc.Err(); err != nil {
			t.Errorf("reading the body: %v", err)
		}
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return sock, lines
}

func TestSend(t *testing.T) {
	t.Parallel()
	sock, lines := ingestServer(t)
	events := []Event{
		{Type: TypeSessionStart, Session: "s", Shell: "bash", PID: 1},
		{Type: TypeCommand, Session: "s", Shell: "bash", PID: 1, Cmd: "huge " + strings.Repeat("z", MaxLine)},
		{Type: TypeCommand, Session: "s", Shell: "bash", PID: 1, Cmd: strings.Repeat("q", 100<<10), Exit: 3, DurationMS: 4},
	}
	err := Send(sock, DefaultConnectTimeout, events...)
	if !errors.Is(err, ErrTooLong) {
		t.Fatalf("Send = %v, want the too-long event named", err)
	}
	for _, want := range []Event{events[0], events[2]} {
		select {
		case line := <-lines:
			got, err := ParseLine([]byte(line))
			if err != nil {
				t.Fatal(err)
			}
			if got.Type != want.Type || got.Cmd != want.Cmd || got.Exit != want.Exit {
				t.Fatalf("got %.80v, want %.80v", got, want)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the server got nothing")
		}
	}
}

func TestSendNothing(t *testing.T) {
	t.Parallel()
	err := Send(UnixSocket{Path: "/nonexistent"}, DefaultConnectTimeout, Event{Type: TypeCommand, Cmd: strings.Repeat("y", MaxLine)})
	if !errors.Is(err, ErrNothingToSend) || !errors.Is(err, ErrTooLong) {
		t.Fatalf("Send = %v, want nothing to send", err)
	}
}

func TestSendDaemonAway(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := Send(UnixSocket{Path: filepath.Join(dir, "none.sock")}, DefaultConnectTimeout, Event{Type: TypeSessionStart}); err == nil {
		t.Fatal("Send to no socket: no error")
	}
	// A socket nobody listens on any more: refused at once.
	ln, err := net.Listen("unix", filepath.Join(dir, "gone.sock"))
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	_ = ln.Close()
	if err := Send(UnixSocket{Path: filepath.Join(dir, "gone.sock")}, DefaultConnectTimeout, Event{Type: TypeSessionStart}); err == nil {
		t.Fatal("Send to a stale socket: no error")
	}
}

// TestSendDaemonBusy: a daemon that takes the connection but reads nothing
// makes Send give up once the socket's buffer is full, not wait for it.
func TestSendDaemonBusy(t *testing.T) {
	t.Parallel()
	sock := UnixSocket{Path: filepath.Join(t.TempDir(), "busy.sock")}
	ln, err := sock.Listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	held := make(chan net.Conn, 10)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held <- c // never read
		}
	}()
	t.Cleanup(func() {
		for len(held) > 0 {
			_ = (<-held).Close()
		}
	})
	// Several events near MaxLine: far more than a socket's buffer.
	var events []Event
	for range 16 {
		events = append(events, Event{Type: TypeCommand, Cmd: strings.Repeat("b", MaxLine-200)})
	}
	done := make(chan error, 1)
	go func() { done <- Send(sock, DefaultConnectTimeout, events...) }()
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("Send to a busy daemon = %v, want a deadline exceeded", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Send waited for a busy daemon")
	}
}

func TestSessionFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := time.Now()
	if _, ok := ReadSessionFile(dir, 7, now); ok {
		t.Fatal("a session id without a file")
	}
	if err := WriteSessionFile(dir, 7, "d-abc.1_2"); err != nil {
		t.Fatal(err)
	}
	if id, ok := ReadSessionFile(dir, 7, time.Now()); !ok || id != "d-abc.1_2" {
		t.Fatalf("ReadSessionFile = %q, %v", id, ok)
	}
	fi, err := os.Stat(filepath.Join(dir, SessionsFolder))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("sessions folder: %v, %v", fi.Mode(), err)
	}
	// A file of an earlier shell with the same process id is not taken.
	old := now.Add(-2 * SessionFresh)
	if err := os.Chtimes(SessionFile(dir, 7), old, old); err != nil {
		t.Fatal(err)
	}
	if id, ok := ReadSessionFile(dir, 7, now); ok {
		t.Fatalf("a stale session file gave %q", id)
	}
	// Nor one that holds something else than an id.
	if err := os.WriteFile(SessionFile(dir, 8), []byte("rm -rf /\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if id, ok := ReadSessionFile(dir, 8, time.Now()); ok {
		t.Fatalf("an invalid session file gave %q", id)
	}
	if err := WriteSessionFile(dir, 9, "a b"); err == nil {
		t.Fatal("WriteSessionFile took an id with a space")
	}
}

func TestLocalSessionID(t *testing.T) {
	t.Parallel()
	a, b := LocalSessionID(12), LocalSessionID(12)
	if a == b || !strings.HasPrefix(a, "l-12-") || len(a) != len("l-12-")+16 || !validSessionID([]byte(a)) {
		t.Fatalf("LocalSessionID: %q, %q", a, b)
	}
}
