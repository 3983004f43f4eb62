package testsshd

import (
	"slices"
	"strings"
	"testing"
)

// related finds root's descendants however deep, and the marked processes
// outside the tree, each once, and nothing else.
func TestRelated(t *testing.T) {
	t.Parallel()
	procs := []proc{
		{pid: 1, ppid: 0},
		{pid: 10, ppid: 1},                // sshd
		{pid: 11, ppid: 10},               // a connection's sshd
		{pid: 12, ppid: 11},               // its session's shell
		{pid: 13, ppid: 12, marked: true}, // a program of the session
		{pid: 20, ppid: 1, marked: true},  // one that left the tree
		{pid: 30, ppid: 1},                // another's
		{pid: 31, ppid: 30},
	}
	if got, want := related(10, procs), []int{11, 12, 13, 20}; !slices.Equal(got, want) {
		t.Errorf("related(10) = %v, want %v", got, want)
	}
	if got, want := related(0, procs), []int{13, 20}; !slices.Equal(got, want) {
		t.Errorf("related(0), sshd gone: %v, want %v", got, want)
	}
}

// An environment entry must be NAME=value, with a value sshd_config can
// quote; HOME is the server's own unless set.
func TestEnvironmentEntries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env  []string
		want string // in the error; "" for none
	}{
		{[]string{"PATH=/a b:/usr/bin", "XDG_RUNTIME_DIR=/run/x", "EMPTY="}, ""},
		{[]string{"PATH"}, "not NAME=value"},
		{[]string{"=x"}, "not NAME=value"},
		{[]string{"A B=x"}, "not NAME=value"},
		{[]string{`A=say "hi"`}, "cannot quote"},
		{[]string{"A=a\nSetEnv B=b"}, "cannot quote"},
		{[]string{`A=a\`}, "cannot quote"},
	} {
		err := checkEnv(tc.env)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("checkEnv(%q) = %v, want %q", tc.env, err, tc.want)
		}
	}
	if got := withDefault([]string{"A=1"}, "HOME=/h"); !slices.Equal(got, []string{"HOME=/h", "A=1"}) {
		t.Errorf("withDefault added to %v", got)
	}
	if got := withDefault([]string{"HOME=/mine"}, "HOME=/h"); !slices.Equal(got, []string{"HOME=/mine"}) {
		t.Errorf("withDefault over a set HOME: %v", got)
	}
}
