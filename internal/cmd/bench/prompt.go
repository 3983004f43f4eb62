package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	cpty "github.com/creack/pty"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/suggest/hookproto"
	"github.com/clai-sh/clai/runner/suggest/hookproto/hooktest"
	"github.com/clai-sh/clai/runner/suggest/shellinit"
)

// promptMark ends each prompt of the shells W8 measures.
const promptMark = "<W8>"

// promptsPerRun is how many prompts W8 times in each shell it starts, after
// promptsWarm that are not counted.
const (
	promptsPerRun = 100
	promptsWarm   = 10
)

// promptTarget is the most the hooks may add to a prompt's p99.
const promptTarget = 5 * time.Millisecond

// hookSetup is one way W8 runs a shell: without the hooks, or with them and
// the daemon away or up.
type hookSetup struct {
	name  string
	hooks bool
	up    bool
}

// The setups, the shell without the hooks first, as printPrompt counts on.
var hookSetups = []hookSetup{
	{name: "no hook"},
	{name: "hook, daemon down", hooks: true},
	{name: "hook, daemon up", hooks: true, up: true},
}

// benchPrompt is W8: the time from Enter on an empty command (`:`) to the
// next prompt, in each shell installed, without the hooks and with them, the
// daemon down (no socket: the hooks write nothing) and up (a stand-in daemon
// that reads the spool: what the hooks cost is appending a record to the
// spool file, which the daemon's own work does not delay). Each run starts
// one shell of each setup, in turn first.
func benchPrompt(dir string, runs int) error {
	root, err := testprog.ModuleRoot()
	if err != nil {
		return err
	}
	hookBin, err := goBuild(root, filepath.Join(dir, shellinit.HookName), "./cmd/clai-hook", "")
	if err != nil {
		return err
	}
	daemon, err := hooktest.Start(filepath.Join(dir, "w8.sock"), nil)
	if err != nil {
		return err
	}
	defer daemon.Close()
	fmt.Printf("\nW8 prompt latency: Enter on `:` to the next prompt, %d prompts a shell, %d runs; target: the hook adds ≤ %s to p99\n", promptsPerRun, runs, promptTarget)
	heard := 0
	for _, shell := range shellinit.Shells() {
		if _, err := exec.LookPath(shell); err != nil {
			fmt.Printf("  %s: not installed, skipped\n", shell)
			continue
		}
		samples := make([][]time.Duration, len(hookSetups))
		for i := range runs {
			for k := range hookSetups {
				j := (i + k) % len(hookSetups)
				ds, err := promptRun(dir, shell, hookBin, hookSetups[j], daemon)
				if err != nil {
					return fmt.Errorf("W8 %s, %s: %w", shell, hookSetups[j].name, err)
				}
				samples[j] = append(samples[j], ds...)
			}
		}
		if n := len(hooktest.Commands(daemon.Events())) - heard; n != runs*(promptsPerRun+promptsWarm) {
			return fmt.Errorf("W8 %s: the daemon heard %d commands of %d", shell, n, runs*(promptsPerRun+promptsWarm))
		}
		heard += runs * (promptsPerRun + promptsWarm)
		printPrompt(shell, samples)
	}
	return nil
}

// printPrompt prints a shell's figures: each setup's p50 and p99, and what the
// hooks add to them.
func printPrompt(shell string, samples [][]time.Duration) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1e3) }
	base50, base99 := percentile(samples[0], 0.5), percentile(samples[0], 0.99)
	for i, s := range hookSetups {
		p50, p99 := percentile(samples[i], 0.5), percentile(samples[i], 0.99)
		line := fmt.Sprintf("  %-5s %-18s p50 %-9s p99 %-9s", shell, s.name, ms(p50), ms(p99))
		if i > 0 {
			verdict := "ok"
			if p99-base99 > promptTarget {
				verdict = "OVER"
			}
			line += fmt.Sprintf("  added p50 %s, p99 %s (%s)", ms(p50-base50), ms(p99-base99), verdict)
		}
		fmt.Println(line)
	}
}

// promptRun starts shell in a terminal as setup says, and times its prompts.
func promptRun(dir, shell, hookBin string, setup hookSetup, daemon *hooktest.Server) ([]time.Duration, error) {
	home, err := os.MkdirTemp(dir, "w8-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(home)
	argv, env, err := promptShell(home, shell, hookBin, setup.hooks)
	if err != nil {
		return nil, err
	}
	socket := daemon.Socket
	if !setup.up {
		socket = filepath.Join(home, "none.sock")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = home
	cmd.Env = append([]string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=xterm", "LANG=C.UTF-8",
		hookproto.SocketEnv + "=" + socket}, env...)
	tty, err := cpty.StartWithAttrs(cmd, &cpty.Winsize{Rows: 40, Cols: 120}, &syscall.SysProcAttr{Setsid: true, Setctty: true})
	if err != nil {
		return nil, err
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = tty.Close()
	}()
	sentBefore := len(hooktest.Commands(daemon.Events()))
	p := &promptReader{tty: tty, buf: make([]byte, 64<<10)}
	if err := p.await(); err != nil {
		return nil, fmt.Errorf("first prompt: %w", err)
	}
	var ds []time.Duration
	for i := range promptsWarm + promptsPerRun {
		start := time.Now()
		if _, err := tty.WriteString(":\r"); err != nil {
			return nil, err
		}
		if err := p.await(); err != nil {
			return nil, fmt.Errorf("prompt %d: %w", i, err)
		}
		if i >= promptsWarm {
			ds = append(ds, time.Since(start))
		}
	}
	if setup.up {
		// The daemon reads the spool on its own time: the shell lives on
		// until it heard the last command.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		want := sentBefore + promptsWarm + promptsPerRun
		if _, err := daemon.WaitFor(ctx, func(es []hookproto.Event) bool { return len(hooktest.Commands(es)) >= want }); err != nil {
			return nil, err
		}
	}
	return ds, nil
}

// promptShell is the command line and environment of shell with an rc file
// in home whose prompt ends with promptMark, and that loads the hooks.
func promptShell(home, shell, hookBin string, hooks bool) ([]string, []string, error) {
	var load string
	if hooks {
		script, err := shellinit.Script(shell, hookBin)
		if err != nil {
			return nil, nil, err
		}
		file := filepath.Join(home, "hooks")
		if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
			return nil, nil, err
		}
		load = "source " + file + "\n"
	}
	write := func(path, text string) error {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		return os.WriteFile(path, []byte(text), 0o600)
	}
	switch shell {
	case "bash":
		rc := filepath.Join(home, ".bashrc")
		return []string{"bash", "--noprofile", "--rcfile", rc, "-i"}, nil, write(rc, "PS1='"+promptMark+"'\n"+load)
	case "zsh":
		return []string{"zsh", "-i"}, []string{"ZDOTDIR=" + home}, write(filepath.Join(home, ".zshrc"), "PROMPT='"+promptMark+"'\nRPROMPT=\n"+load)
	case "fish":
		config := filepath.Join(home, ".config")
		return []string{"fish", "-i"}, []string{"XDG_CONFIG_HOME=" + config, "XDG_DATA_HOME=" + filepath.Join(home, ".local")},
			write(filepath.Join(config, "fish", "config.fish"), "function fish_prompt; printf '"+promptMark+"'; end\nfunction fish_greeting; end\nfunction fish_title; end\n"+load)
	}
	return nil, nil, fmt.Errorf("no shell %q", shell)
}

// promptReader reads a shell's terminal up to each prompt.
type promptReader struct {
	tty  *os.File
	buf  []byte
	tail []byte
}

// errNoPrompt is the error of a shell that showed no prompt in time.
var errNoPrompt = errors.New("no prompt within 30 s")

// await reads until the terminal shows a prompt.
func (p *promptReader) await() error {
	if err := p.tty.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
		return err
	}
	for {
		if bytes.Contains(p.tail, []byte(promptMark)) {
			p.tail = p.tail[:0]
			return nil
		}
		n, err := p.tty.Read(p.buf)
		p.tail = append(p.tail, p.buf[:n]...)
		if len(p.tail) > 4096 {
			p.tail = slices.Clone(p.tail[len(p.tail)-64:])
		}
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return fmt.Errorf("%w; the terminal showed %q", errNoPrompt, p.tail)
			}
			return err
		}
	}
}
