package notify

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/ask"
)

// TestDesktopArguments: the notifier gets the title and the text as its
// last arguments, after the ones that end its options, whatever they hold.
func TestDesktopArguments(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "args")
	fake := filepath.Join(dir, "notify-send")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > \"$OUT\"\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	target := &desktopTarget{argv: []string{"/usr/bin/env", "OUT=" + out, fake, "--app-name=clai", "--"}}
	q := &ask.Question{ID: "q1", Reason: ask.Prompt, Text: `--help"; rm -rf ~ #`, Options: []ask.Option{{Label: "-y"}}}
	n := build("s-1", "question", ask.Update{Kind: ask.UpdateQuestion, At: time.Now(), Question: q}, ask.Session{ID: "s", Name: "-n"})
	if err := target.Deliver(t.Context(), n); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
	want := []string{"--app-name=clai", "--", "clai: -n asks", n.Message()}
	if !slices.Equal(args, want) {
		t.Errorf("notifier arguments %q, want %q", args, want)
	}
}

// TestNoDesktopIsPermanent: without a notifier, a notification is given up
// at once rather than retried.
func TestNoDesktopIsPermanent(t *testing.T) {
	t.Parallel()
	err := (&desktopTarget{}).Deliver(t.Context(), &Notification{})
	var p *permanentError
	if err == nil || !errors.As(err, &p) {
		t.Errorf("Deliver without a notifier: %v, want a permanent error", err)
	}
}
