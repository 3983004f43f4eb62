//go:build linux

// The disk-full test limits the size of the files a daemon may write
// (RLIMIT_FSIZE), whose limits are typed as Linux types them.

package daemon_test

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/suggest/daemon"
	"github.com/clai-sh/clai/runner/suggest/hookproto"
	"github.com/clai-sh/clai/runner/suggest/store"
)

// The environment of a daemon the tests run as a process of its own: its
// socket and database, and the most bytes it may write to a file.
const (
	helperSocket = "CLAI_TEST_DAEMON_SOCKET"
	helperDB     = "CLAI_TEST_DAEMON_DB"
	helperFSize  = "CLAI_TEST_DAEMON_FSIZE"
)

func TestMain(m *testing.M) {
	if os.Getenv(helperSocket) != "" {
		os.Exit(helperDaemon())
	}
	os.Exit(m.Run())
}

// helperDaemon runs a daemon whose files cannot grow past the size
// helperFSize says, as on a full disk: a write past it fails with EFBIG
// (SIGXFSZ is ignored). SIGUSR1 lifts the limit; SIGTERM stops the daemon.
func helperDaemon() int {
	signal.Ignore(syscall.SIGXFSZ)
	fsize, err := strconv.ParseUint(os.Getenv(helperFSize), 10, 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 2
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 2
	}
	full := syscall.Rlimit{Cur: fsize, Max: lim.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &full); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 2
	}
	room := make(chan os.Signal, 1)
	signal.Notify(room, syscall.SIGUSR1)
	go func() {
		<-room
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return
		}
		fmt.Fprintln(os.Stderr, "helper: room again")
	}()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	err = daemon.Run(ctx, daemon.Config{
		Socket: os.Getenv(helperSocket), Database: os.Getenv(helperDB),
		Understander: &understander{tasks: map[string][]store.Task{}}, Ranker: &recorder{},
		SpoolEvery: 20 * time.Millisecond, Log: os.Stderr,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	return 0
}

// process is a daemon run as a process by a test, and its log.
type process struct {
	cmd *exec.Cmd
	log logLines
}

// startProcess runs this test binary as a daemon of socket and db whose
// files may not grow past fsize bytes, once it serves.
func startProcess(t *testing.T, socket, db string, fsize int64) *process {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperSocket+"="+socket, helperDB+"="+db, helperFSize+"="+strconv.FormatInt(fsize, 10))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, log: make(logLines, 10000)}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.log <- sc.Text()
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	p.log.waitFor(t, "serving on")
	return p
}

func TestAFullDiskLosesNoCommandOnceThereIsRoomAgain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	socket, db := filepath.Join(dir, "rt", "daemon.sock"), filepath.Join(dir, "state", "suggest.db")
	// The database is made while there is room.
	st, err := store.Open(t.Context(), db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	// Room for SQLite's shared-memory file (32 KiB) and a few pages of its
	// write-ahead log: no batch of commands fits.
	p := startProcess(t, socket, db, 32<<10)
	client := daemon.NewClient(socket)
	now := time.Now()
	var want []string
	for s := range 3 {
		session := fmt.Sprintf("d-%02d", s)
		path, err := hookproto.SpoolFile(filepath.Dir(socket), session)
		if err != nil {
			t.Fatal(err)
		}
		var data []byte
		for i := range 200 {
			cmd := fmt.Sprintf("make s%d-%d", s, i)
			want = append(want, cmd)
			data = append(data, spoolRecord(t, session, "/tmp", cmd, now.Add(time.Duration(s*1000+i)*time.Millisecond))...)
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	h, err := client.Health(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !h.Behind || h.PendingEvents == 0 || h.LastWriteError == "" || int(h.Accepted)+h.PendingEvents != len(want) {
		t.Fatalf("with the disk full: %+v", h)
	}
	t.Logf("with the disk full: %d events pending, write error %q", h.PendingEvents, h.LastWriteError)
	p.log.waitFor(t, "writes to the database fail")
	// An importer is told that nothing was taken.
	var lines strings.Builder
	for i := range 300 {
		lines.WriteString(event("imp", "/tmp", fmt.Sprintf("make imported-%d", i), now.Add(time.Duration(i)*time.Millisecond)))
	}
	r, err := client.IngestCounts(t.Context(), []byte(lines.String()))
	if err == nil || r.Accepted != 0 || r.Dropped != 300 {
		t.Fatalf("an import with the disk full: %+v, %v", r, err)
	}
	// Room again: the daemon's own retry takes the spool.
	if err := p.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	p.log.waitFor(t, "room again")
	p.log.waitFor(t, "writes to the database succeed again")
	h, err = client.Health(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if h.Behind || h.PendingEvents != 0 || h.LastWriteError != "" || h.Accepted != int64(len(want)) {
		t.Fatalf("once there is room: %+v", h)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("the daemon: %v", err)
	}
	assertEachOnce(t, db, want)
}

// assertEachOnce checks that the database at path holds each command of want
// once, and no other.
func assertEachOnce(t *testing.T, path string, want []string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(t.Context(), `SELECT cmd, count(*) FROM command_events GROUP BY cmd`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]int{}
	for rows.Next() {
		var cmd string
		var n int
		if err := rows.Scan(&cmd, &n); err != nil {
			t.Fatal(err)
		}
		got[cmd] = n
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range want {
		if got[cmd] != 1 {
			t.Errorf("%q stored %d times", cmd, got[cmd])
		}
		delete(got, cmd)
	}
	if len(got) != 0 {
		t.Errorf("stored besides: %v", got)
	}
}
