package testsshd

import (
	"bufio"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readPIDs reads n process ids, one a line, from r, for limit at most.
func readPIDs(t *testing.T, r io.Reader, n int, limit time.Duration) []int {
	t.Helper()
	type result struct {
		pids []int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		br := bufio.NewReader(r)
		var res result
		for range n {
			line, err := br.ReadString('\n')
			if err != nil {
				res.err = err
				break
			}
			pid, err := strconv.Atoi(strings.TrimSpace(line))
			if err != nil {
				res.err = err
				break
			}
			res.pids = append(res.pids, pid)
		}
		done <- res
	}()
	select {
	case res := <-done:
		if res.err != nil {
			t.Fatalf("the remote command's pids: %v", res.err)
		}
		return res.pids
	case <-time.After(limit):
		t.Fatalf("the remote command printed no pids within %v", limit)
	}
	return nil
}

// Stop ends what the sessions started too: a program that left sshd's
// process tree (setsid, its parent gone), found by the marker in its
// environment, and one that cleared its environment, found in the tree.
func TestStopLeavesNoProcess(t *testing.T) {
	t.Parallel()
	s := Start(t)
	cmd := exec.Command("ssh", append(s.SSHArgs(), s.Target(),
		// The first sleep's parent has ended once $(…) returns; the shell
		// becomes the second, which has no environment.
		`echo "$(sh -c 'setsid sleep 600 </dev/null >/dev/null 2>&1 & echo $!')"; echo $$; exec env -i sleep 600`)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	pids := readPIDs(t, out, 2, startLimit)
	t.Cleanup(func() {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	procs, err := listProcs(MarkerEnv + "=" + s.dir)
	if err != nil {
		t.Fatal(err)
	}
	related := related(s.cmd.Process.Pid, procs)
	for _, pid := range pids {
		if !slices.Contains(related, pid) {
			t.Errorf("process %d is not found among sshd's: %v", pid, related)
		}
	}

	s.Stop()
	procs, err = listProcs("")
	if err != nil {
		t.Fatal(err)
	}
	if left := running(pids, procs); len(left) > 0 {
		t.Errorf("processes %v of the session run on after Stop", left)
	}
}
