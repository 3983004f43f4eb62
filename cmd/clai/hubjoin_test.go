//go:build !clai_lean

package main

import (
	"slices"
	"testing"
)

// TestSSHOptionsSplitAsAShellWould: each -o of clai hub join is split into
// ssh's words as a shell would, so that a quoted path with spaces stays one
// word; an unclosed quote is refused, never passed on cut.
func TestSSHOptionsSplitAsAShellWould(t *testing.T) {
	got, err := sshOptions([]string{`-p 2222 -i '/home/me/my keys/build'`, `-o "UserKnownHostsFile=/tmp/a b/known"`, `-v`})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"-p", "2222", "-i", "/home/me/my keys/build", "-o", "UserKnownHostsFile=/tmp/a b/known", "-v"}
	if !slices.Equal(got, want) {
		t.Errorf("sshOptions = %q, want %q", got, want)
	}
	if got, err := sshOptions([]string{`-i '/home/me/my keys`}); err == nil {
		t.Errorf("an unclosed quote was taken: %q", got)
	}
}
