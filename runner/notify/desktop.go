package notify

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
)

// desktopTarget shows a desktop notification through a program of the
// system: the title and text are its arguments, never code or options.
type desktopTarget struct {
	// argv is the program and its leading arguments; the title and the
	// text follow. Nil: the system has no notifier clai knows.
	argv []string
}

// errNoDesktop says the system has no desktop notifier clai knows.
var errNoDesktop = errors.New("no desktop notifier found (notify-send, osascript)")

func openDesktop() *desktopTarget {
	switch runtime.GOOS {
	case "darwin":
		if p, err := exec.LookPath("osascript"); err == nil {
			// The script reads the title and text from its arguments.
			return &desktopTarget{argv: []string{p, "-e", "on run argv", "-e",
				"display notification (item 2 of argv) with title (item 1 of argv)", "-e", "end run"}}
		}
	default:
		if p, err := exec.LookPath("notify-send"); err == nil {
			return &desktopTarget{argv: []string{p, "--app-name=clai", "--"}}
		}
	}
	return &desktopTarget{}
}

func (t *desktopTarget) Name() string { return "desktop" }

func (t *desktopTarget) Deliver(ctx context.Context, n *Notification) error {
	if t.argv == nil {
		return &permanentError{errNoDesktop}
	}
	argv := append(append([]string(nil), t.argv...), n.Title, n.Message())
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("desktop: %w: %s", err, oneLine(string(out[:min(len(out), maxStderr)])))
	}
	return nil
}
