package pty

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestParseStat: the fields after the last ')' of comm, which may hold spaces
// and parentheses; a line cut short or with a field that is no number is
// refused.
func TestParseStat(t *testing.T) {
	t.Parallel()
	rest := " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 987654321 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	for _, tc := range []struct {
		line string
		want proc
		ok   bool
	}{
		{"123 (bash) S 1 123 77" + rest, proc{ppid: 1, sid: 77, state: 'S', start: 987654321}, true},
		{"9 (a) b (c)) Z 42 9 -1" + rest, proc{ppid: 42, sid: -1, state: 'Z', start: 987654321}, true},
		{"9 (x) S 1 9 9 0 0", proc{}, false},
		{"9 (x) S one 9 9" + rest, proc{}, false},
		{"9 (x) SS 1 9 9" + rest, proc{}, false},
		{"no parenthesis", proc{}, false},
		{"9 (x) S 1 9 99999999999999999999" + rest, proc{}, false},
	} {
		got, ok := parseStat([]byte(tc.line))
		if ok != tc.ok || got != tc.want {
			t.Errorf("parseStat(%q) = %+v, %v; want %+v, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}

// TestReadProcOwn: this process's stat reads as its parent and session say.
func TestReadProcOwn(t *testing.T) {
	t.Parallel()
	p, ok := readProc(os.Getpid())
	if !ok {
		t.Fatal("readProc of this process failed")
	}
	sid, err := unix.Getsid(0)
	if err != nil {
		t.Fatal(err)
	}
	if p.ppid != os.Getppid() || p.sid != sid || p.start == 0 {
		t.Errorf("readProc(self) = %+v; want ppid %d, sid %d, a start time", p, os.Getppid(), sid)
	}
}

// TestReadProcAllocations: reading a process's stat allocates at most the
// path's copy the system call makes. readProcs reads every process of the
// machine on every SIGCHLD of a run, and what it allocates stays in the
// run's memory until a collection that a short run never starts.
func TestReadProcAllocations(t *testing.T) {
	var r statReader
	pid := os.Getpid()
	if allocs := testing.AllocsPerRun(100, func() {
		if _, ok := r.read(pid); !ok {
			t.Fatal("read of this process failed")
		}
	}); allocs > 1 {
		t.Errorf("reading a process's stat allocates %.0f times, want at most 1", allocs)
	}
}
