package sessions

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const dashURL = "http://127.0.0.1:40125/?token=kH3vSecretToken"

func TestDashboardURLWhileItRuns(t *testing.T) {
	t.Parallel()
	r := openTemp(t)
	if got := r.DashboardURL(); got != "" {
		t.Fatalf("with no dashboard: %q, want none", got)
	}
	d, err := r.AnnounceDashboard(dashURL)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.DashboardURL(); got != dashURL {
		t.Fatalf("while it runs: %q, want %q", got, dashURL)
	}
	entries, _ := os.ReadDir(r.Dir())
	for _, e := range entries {
		if info, err := e.Info(); err == nil && strings.HasPrefix(e.Name(), dashboardPrefix) && info.Mode().Perm() != 0o600 {
			t.Fatalf("%s has mode %04o, want 0600: it holds the token", e.Name(), info.Mode().Perm())
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if got := r.DashboardURL(); got != "" {
		t.Fatalf("after it ended: %q, want none", got)
	}
	entries, _ = os.ReadDir(r.Dir())
	if names := dirNames(entries); len(names) != 0 {
		t.Fatalf("the ended dashboard left %v", names)
	}
}

func TestDashboardURLLatestLiveOne(t *testing.T) {
	t.Parallel()
	r := openTemp(t)
	first, err := r.AnnounceDashboard("http://127.0.0.1:1/?token=first")
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	// The clock moves on before the second starts, so their Started differ.
	for start := time.Now(); !time.Now().After(start); {
	}
	second, err := r.AnnounceDashboard("http://127.0.0.1:2/?token=second")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.DashboardURL(); !strings.HasSuffix(got, "second") {
		t.Fatalf("two run: %q, want the one started last", got)
	}
	if err := second.Close(); err != nil {
		t.Fatal(err)
	}
	if got := r.DashboardURL(); !strings.HasSuffix(got, "first") {
		t.Fatalf("the last ended: %q, want the first, which still runs", got)
	}
}

func TestDashboardRefusesOddFiles(t *testing.T) {
	t.Parallel()
	r := openTemp(t)
	if _, err := r.AnnounceDashboard("javascript:alert(1)"); err == nil {
		t.Fatal("a URL that is not http was announced")
	}
	// A file of the dashboard's name nobody holds locked, and a link, are no
	// dashboard.
	unlocked := filepath.Join(r.Dir(), dashboardPrefix+"0123456789abcdef"+dashboardSuffix)
	if err := os.WriteFile(unlocked, []byte(`{"url":"`+dashURL+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(r.Dir(), dashboardPrefix+"fedcba9876543210"+dashboardSuffix)
	if err := os.Symlink(unlocked, link); err != nil {
		t.Fatal(err)
	}
	if got := r.DashboardURL(); got != "" {
		t.Fatalf("got %q from a file nobody holds", got)
	}
	if _, err := os.Stat(unlocked); !os.IsNotExist(err) {
		t.Fatalf("the file nobody holds is still there: %v", err)
	}
}

// TestHelperAnnouncesDashboard is not a test: run by
// TestKilledDashboardIsIgnored as a process of its own, it announces a
// dashboard in the folder it is given and waits to be killed.
func TestHelperAnnouncesDashboard(t *testing.T) {
	dir := os.Getenv("CLAI_DASHBOARD_HELPER_DIR")
	if dir == "" {
		t.Skip("a helper process of TestKilledDashboardIsIgnored")
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.AnnounceDashboard(dashURL); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("announced\n")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until killed
}

// TestKilledDashboardIsIgnored: the file of a dashboard killed with SIGKILL,
// which removed nothing, names no dashboard and is removed by the next
// reader.
func TestKilledDashboardIsIgnored(t *testing.T) {
	t.Parallel()
	r := openTemp(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAnnouncesDashboard$")
	cmd.Env = append(os.Environ(), "CLAI_DASHBOARD_HELPER_DIR="+r.Dir())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "announced\n" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the helper said %q, %v", line, err)
	}
	if got := r.DashboardURL(); got != dashURL {
		t.Fatalf("while it runs: %q, want %q", got, dashURL)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	entries, _ := os.ReadDir(r.Dir())
	if names := dirNames(entries); len(names) != 1 {
		t.Fatalf("the killed dashboard should have left its file for the reader to clean: %v", names)
	}
	if got := r.DashboardURL(); got != "" {
		t.Fatalf("after the kill: %q, want none", got)
	}
	entries, _ = os.ReadDir(r.Dir())
	if names := dirNames(entries); len(names) != 0 {
		t.Fatalf("the killed dashboard left %v", names)
	}
}
