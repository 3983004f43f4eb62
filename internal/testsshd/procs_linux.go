package testsshd

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// listProcs reads the process table from /proc; a process marked carries
// marker (NAME=value) in its environment, when marker is not empty. A
// process that ends while it is read is left out.
func listProcs(marker string) ([]proc, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("process table: %w", err)
	}
	var procs []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		p, ok := readProc(pid)
		if !ok {
			continue
		}
		if marker != "" {
			p.marked = hasEnv(pid, marker)
		}
		procs = append(procs, p)
	}
	return procs, nil
}

// readProc reads the parent and state of pid from /proc/PID/stat, where
// they follow the command's name in parentheses, which may hold any byte.
func readProc(pid int) (proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return proc{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return proc{}, false
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return proc{}, false
	}
	return proc{pid: pid, ppid: ppid, zombie: f[0] == "Z" || f[0] == "X"}, true
}

// hasEnv tells whether the environment pid started with holds the entry
// marker; a process of another user, which cannot be read, does not.
func hasEnv(pid int, marker string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for entry := range bytes.SplitSeq(b, []byte{0}) {
		if string(entry) == marker {
			return true
		}
	}
	return false
}
