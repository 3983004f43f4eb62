package notify_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// assertGone fails the test unless the process whose pid is in pidFile has
// ended (a zombie has ended: only its parent's wait is left).
func assertGone(t *testing.T, pidFile string) {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the command did not start its child: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute) // only catches a child that was never killed
	for {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		// The state follows the command's name in parentheses.
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hanging command's child %d still runs", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
