package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	cpty "github.com/creack/pty"

	"github.com/clai-sh/clai/internal/testprog"
)

// benchBinaryEnv names a clai binary to measure instead of the module's own
// (the binary of another commit, for a figure before and after).
const benchBinaryEnv = "CLAI_BENCH_BINARY"

// claiBinary builds clai into dir as make build does, or returns the binary
// benchBinaryEnv names.
// hookBinary is the clai-hook beside clai (the one beside $CLAI_BENCH_BINARY
// when that names a clai next to its clai-hook), else one built here.
func hookBinary(root, dir, clai string) (string, error) {
	if os.Getenv(benchBinaryEnv) != "" {
		if beside := filepath.Join(filepath.Dir(clai), "clai-hook"); fileExists(beside) {
			return beside, nil
		}
	}
	return goBuild(root, filepath.Join(dir, "clai-hook"), "./cmd/clai-hook", testprog.BuildTags())
}

// goBuild builds the package pkg of the module at root into out, with tags
// ("" for none), as make build builds clai's commands.
func goBuild(root, out, pkg, tags string) (string, error) {
	args := []string{"build"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	build := exec.Command("go", append(args, "-o", out, pkg)...)
	build.Dir, build.Stdout, build.Stderr = root, os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("build %s: %w", pkg, err)
	}
	return out, nil
}

// fileExists reports whether path names a file.
func fileExists(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}

func claiBinary(root, dir string) (string, error) {
	if bin := os.Getenv(benchBinaryEnv); bin != "" {
		abs, err := filepath.Abs(bin)
		if err != nil {
			return "", err
		}
		if _, err := os.Stat(abs); err != nil {
			return "", fmt.Errorf("%s: %w", benchBinaryEnv, err)
		}
		return abs, nil
	}
	// The lean clai, as make build builds it, with the full one beside it.
	if _, err := goBuild(root, filepath.Join(dir, testprog.Companion), "./cmd/clai", testprog.BuildTags()); err != nil {
		return "", err
	}
	return goBuild(root, filepath.Join(dir, "clai"), "./cmd/clai", testprog.BuildTags()+","+testprog.LeanTag)
}

// isolate points every process the bench starts at folders of its own under
// dir: the sessions it registers, the config it reads (no notify targets of
// the user's) and the state it writes.
func isolate(dir string) error {
	for _, v := range []string{"XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME"} {
		d := filepath.Join(dir, strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(v, "XDG_"), "_DIR")))
		if err := os.Mkdir(d, 0o700); err != nil {
			return err
		}
		if err := os.Setenv(v, d); err != nil {
			return err
		}
	}
	return nil
}

// pairRuns are the runs of one pair: the baseline, clai, the floor when the
// workload has both a baseline playbook and a floor, and the -before binary
// on clai's playbook and on the baseline playbook when there is one.
type pairRuns struct{ base, mine, floor, prior, priorBase measurement }

// pair measures the baseline of a workload and clai on it, one after the other,
// and the floor too when the workload has both a baseline playbook and a floor,
// and the binary before when it is set. Run i of a workload starts with the
// (i mod steps)-th of baseline, clai, floor, before, so that each goes first in
// turn.
func pair(self, clai, before string, w workload, i int) (r pairRuns, err error) {
	run := func(into *measurement, what, name string, args ...string) func() error {
		return func() error {
			m, err := measure(name, args...)
			if err != nil {
				return fmt.Errorf("%s %s: %w", w.name, what, err)
			}
			*into = m
			return nil
		}
	}
	playbook := func(pb string) []string { return []string{"run", "-q", "--log", os.DevNull, pb} }
	var steps []func() error
	if w.baseline != "" {
		steps = append(steps, run(&r.base, "baseline", clai, playbook(w.baseline)...))
	} else {
		steps = append(steps, run(&r.base, "baseline", self, w.floor...))
	}
	steps = append(steps, run(&r.mine, "clai", clai, playbook(w.clai)...))
	if w.baseline != "" && w.floor != nil {
		steps = append(steps, run(&r.floor, "floor", self, w.floor...))
	}
	if before != "" {
		steps = append(steps, run(&r.prior, "before", before, playbook(w.clai)...))
		if w.baseline != "" {
			steps = append(steps, run(&r.priorBase, "before's baseline", before, playbook(w.baseline)...))
		}
	}
	for k := range steps {
		if err := steps[(i+k)%len(steps)](); err != nil {
			return r, err
		}
	}
	return r, nil
}

// median returns the middle value of xs (the upper one of an even count).
func median[T int64 | float64 | time.Duration](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// measure runs a command to the end and returns its wall time and peak memory.
func measure(name string, args ...string) (measurement, error) {
	return measureEnv(nil, name, args...)
}

// measureEnv is measure with the environment env (nil: the bench's own).
func measureEnv(env []string, name string, args ...string) (measurement, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return measurement{}, err
	}
	done := make(chan struct{})
	peak := make(chan int64, 1)
	go func() {
		var max int64
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			if kib := vmHWM(cmd.Process.Pid); kib > max {
				max = kib
			}
			select {
			case <-done:
				peak <- max
				return
			case <-tick.C:
			}
		}
	}()
	err := cmd.Wait()
	wall := time.Since(start)
	close(done)
	m := measurement{wall: wall, peakKiB: <-peak}
	if err != nil {
		return m, fmt.Errorf("%s %s: %w\n%s", filepath.Base(name), strings.Join(args, " "), err, stderr.String())
	}
	return m, nil
}

// vmHWM reads a process's peak resident set in KiB, or 0.
func vmHWM(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// floor is the minimal program clai is compared to: it reads the terminal in 64 KiB
// chunks, checks the tail for the prompt, answers and discards.
func floor(mode string, args []string) error {
	if len(args) != 2 {
		return errors.New("usage: floor-flood FLOOD SIZE | floor-roundtrip ROUNDTRIP N")
	}
	var argv []string
	switch mode {
	case "floor-flood":
		argv = []string{args[0], "-bytes", args[1]}
	case "floor-roundtrip":
		argv = []string{args[0], "-n", args[1]}
	default:
		return fmt.Errorf("unknown floor %q", mode)
	}
	cmd := exec.CommandContext(context.Background(), argv[0], argv[1:]...)
	tty, err := cpty.StartWithSize(cmd, &cpty.Winsize{Rows: 24, Cols: 80})
	if err != nil {
		return err
	}
	defer tty.Close()
	buf := make([]byte, 64<<10)
	var tail []byte
	for {
		n, err := tty.Read(buf)
		if n > 0 {
			tail = append(tail, buf[:n]...)
			if len(tail) > 64 {
				tail = tail[len(tail)-64:]
			}
			switch mode {
			case "floor-flood":
				if bytes.HasSuffix(tail, []byte("Continue? [y/n] ")) {
					if _, err := tty.Write([]byte("y\r")); err != nil {
						return err
					}
					tail = tail[:0]
				}
			case "floor-roundtrip":
				if bytes.HasSuffix(tail, []byte("]: ")) {
					i := bytes.LastIndex(tail, []byte("Enter code "))
					if i < 0 {
						return fmt.Errorf("no code in %q", tail)
					}
					code, _, _ := bytes.Cut(tail[i+len("Enter code "):], []byte(" "))
					if _, err := tty.Write(append(code, '\r')); err != nil {
						return err
					}
					tail = tail[:0]
				}
			}
		}
		if err != nil {
			break
		}
	}
	if err := cmd.Wait(); err != nil {
		return err
	}
	return nil
}
