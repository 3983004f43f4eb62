package testsshd

import (
	"fmt"
	"os"
	"slices"
	"syscall"
	"time"
)

// proc is a process as the process table shows it.
type proc struct {
	pid, ppid int
	zombie    bool // ended, not yet waited for
	marked    bool // its environment holds the marker
}

// freeze stops (SIGSTOP) the process root, its descendants and every
// process whose environment holds marker, until a look at the process table
// finds none of them running: a stopped process forks no more, and once
// SIGSTOP is pending a fork under way fails and is not retried before the
// process runs again. root 0 is none: sshd has ended, and only the marked
// are left. It returns the stopped processes, root first; a process table
// it cannot read leaves root and its process group. It never stops this
// process or init.
func freeze(root int, marker string) []int {
	stopped := map[int]bool{}
	var order []int
	stop := func(pid int) {
		if pid <= 1 || pid == os.Getpid() || stopped[pid] {
			return
		}
		_ = syscall.Kill(pid, syscall.SIGSTOP)
		stopped[pid] = true
		order = append(order, pid)
	}
	if root > 1 {
		stop(root)
		_ = syscall.Kill(-root, syscall.SIGSTOP) // sshd runs in a group of its own
	}
	for {
		procs, err := listProcs(marker)
		if err != nil {
			return order
		}
		n := len(order)
		for _, pid := range related(root, procs) {
			stop(pid)
		}
		if len(order) == n {
			return order
		}
	}
}

// related returns the descendants of root (none for root 0) and the
// marked processes in procs.
func related(root int, procs []proc) []int {
	children := map[int][]int{}
	var out []int
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p.pid)
		if p.marked && p.pid != root {
			out = append(out, p.pid)
		}
	}
	if root <= 0 {
		slices.Sort(out)
		return out
	}
	seen := map[int]bool{root: true}
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			if !seen[c] {
				seen[c] = true
				queue = append(queue, c)
				out = append(out, c)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// waitGone waits until none of pids runs: each is gone from the process
// table or a zombie, whose files are closed. It looks again every few
// milliseconds, for limit at most.
func waitGone(pids []int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		procs, err := listProcs("")
		if err != nil {
			return fmt.Errorf("see the killed processes end: %w", err)
		}
		left := running(pids, procs)
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes %v still run %v after SIGKILL", left, limit)
		}
		<-tick.C
	}
}

// running returns those of pids that procs shows running.
func running(pids []int, procs []proc) []int {
	var left []int
	for _, p := range procs {
		if !p.zombie && slices.Contains(pids, p.pid) {
			left = append(left, p.pid)
		}
	}
	return left
}
