//go:build !linux

package testsshd

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// listProcs reads the process table with ps. It cannot see environments:
// no process is marked, and only sshd's descendants are found.
func listProcs(string) ([]proc, error) {
	ctx, cancel := context.WithTimeout(context.Background(), startLimit)
	defer cancel()
	out, err := exec.CommandContext(ctx, "ps", "-A", "-o", "pid=", "-o", "ppid=", "-o", "stat=").Output()
	if err != nil {
		return nil, fmt.Errorf("process table: ps: %w", err)
	}
	var procs []proc
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		pid, err1 := strconv.Atoi(f[0])
		ppid, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			continue
		}
		procs = append(procs, proc{pid: pid, ppid: ppid, zombie: strings.HasPrefix(f[2], "Z")})
	}
	return procs, nil
}
