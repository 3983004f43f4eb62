package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
)

// TestCommandsStopOnSignal runs the clai binary on a folder whose second
// playbook is a named pipe: clai is in the middle of its work, blocked reading
// it, once the test's open of the pipe for writing returns. Sent SIGTERM then,
// it must end at once with exit 130 and say why, not wait for the pipe.
func TestCommandsStopOnSignal(t *testing.T) {
	t.Parallel()
	bin := testprog.BuildCommand(t, "./cmd/clai")
	for _, command := range []string{"lint", "test"} {
		t.Run(command, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			first := "version: 1\nname: first\nspawn: {command: [bash]}\ntests:\n  - {name: t, output: \"hi\\n\", expect: {sent: \"\"}}\n"
			if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(first), 0o644); err != nil {
				t.Fatal(err)
			}
			pipe := filepath.Join(dir, "b.yaml")
			if err := syscall.Mkfifo(pipe, 0o600); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(bin, command, dir)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			t.Cleanup(func() { _ = cmd.Process.Kill() })

			// The open returns once clai opened the pipe to read it.
			opened := make(chan *os.File, 1)
			go func() {
				w, err := os.OpenFile(pipe, os.O_WRONLY, 0)
				if err != nil {
					t.Error(err)
				}
				opened <- w
			}()
			select {
			case w := <-opened:
				defer w.Close()
			case err := <-exited:
				// Unblock the open above before failing.
				if r, err := os.OpenFile(pipe, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
					defer r.Close()
				}
				t.Fatalf("clai %s ended (%v) before it read the pipe:\n%s%s", command, err, stdout.String(), stderr.String())
			}

			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 130 {
					t.Fatalf("clai %s after SIGTERM: %v, want exit 130\n%s%s", command, err, stdout.String(), stderr.String())
				}
				if !strings.Contains(stderr.String(), "clai: "+command+" stopped: terminated") {
					t.Fatalf("stderr %q does not say why clai stopped", stderr.String())
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("clai %s still runs 30s after SIGTERM", command)
			}
		})
	}
}

// clai record ends the program it records on a signal, finishes the recording
// and exits 130 too, whatever the program's own status then.
func TestRecordStopsOnSignal(t *testing.T) {
	t.Parallel()
	bin := testprog.BuildCommand(t, "./cmd/clai")
	out := filepath.Join(t.TempDir(), "session.cast")
	cmd := exec.Command(bin, "record", "--headless", "-o", out, "--", "sh", "-c", "echo ready; exec sleep 100")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	// The mirrored output says the program runs.
	ready := make(chan error, 1)
	go func() {
		buf := make([]byte, 256)
		var seen []byte
		for !bytes.Contains(seen, []byte("ready")) {
			n, err := stdout.Read(buf)
			if err != nil {
				ready <- err
				return
			}
			seen = append(seen, buf[:n]...)
		}
		ready <- nil
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatalf("no output from the program: %v\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the program did not start")
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Fatalf("clai record after SIGTERM: %v, want exit 130\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("clai record still runs 30s after SIGTERM")
	}
	if data, err := os.ReadFile(out); err != nil || !bytes.Contains(data, []byte("ready")) {
		t.Fatalf("recording: %v\n%s", err, data)
	}
}

// TestAnswerWaitStopsOnSignal: clai answer --wait waits as long as it is
// told, so it catches signals as the long commands do: sent SIGTERM while it
// watches a session, it ends at once with exit 130 and says why. Once the
// waiting clai answer is refused q7 (it watches the session then), SIGTERM
// is sent.
func TestAnswerWaitStopsOnSignal(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	log := filepath.Join(e.dir, "run.jsonl")
	_, out, exited := e.start(t, "run", "--remote", "--log", log, deployPlaybook(t, e.dir))
	e.waitQuestion(t, "q1", exited, out)

	var stderr bytes.Buffer
	cmd := exec.Command(e.bin, "answer", "dep", "--wait=5m", "--question", "q7", "x")
	cmd.Env, cmd.Stderr = e.env, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	waitLog(t, log, `"event":"refused"`, `q7`)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-waited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 || !strings.Contains(stderr.String(), "answer stopped") {
			t.Fatalf("clai answer --wait after SIGTERM: %v, want exit 130\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("clai answer --wait did not end on SIGTERM")
	}
}

// TestQuickCommandsCatchNoSignal holds which command lines end by a
// signal's default action (they catch none, which saves their start-up a
// thread) and which catch SIGINT, SIGTERM and SIGHUP to stop with exit 130.
func TestQuickCommandsCatchNoSignal(t *testing.T) {
	t.Parallel()
	for line, quick := range map[string]bool{
		"clai":                            false,
		"clai version":                    true,
		"clai sessions --json":            true,
		"clai suggest --last x":           true,
		"clai suggest rules":              false,
		"clai suggest forget x":           false,
		"clai answer s y":                 true,
		"clai answer s y --wait":          false,
		"clai answer --wait=2m s y":       false,
		"clai answer -wait s y":           false,
		"clai run pb.yaml":                false,
		"clai lint pb.yaml":               false,
		"clai dashboard":                  false,
		"clai hub status":                 false,
		"clai presets list":               false,
		"clai record -- sh -c 'version'":  false,
		"clai test pb.yaml":               false,
		"clai init --from x":              false,
		"clai history --since 1h":         false,
		"clai daemon":                     false,
		"clai schema":                     false,
		"clai answer s --choose a --keys": true,
	} {
		if got := endsAtOnce(strings.Fields(line)); got != quick {
			t.Errorf("endsAtOnce(%q) = %v, want %v", line, got, quick)
		}
	}
}
