package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/clai-sh/clai/runner/ask"
)

// startupTarget is the most a command's start-up may cost against the
// floor's, measured in the same round.
const startupTarget = 1.3

// startupBench is W0: the whole-process time of the commands for which
// start-up is the whole cost, each against the floor measured in the same
// round: the startfloor program (a small Go program that opens a terminal,
// starts the prompter, answers its prompt and waits for it).
type startupBench struct {
	clai, prompter, floor, dir string
	sb                         suggestBench
}

// startupCommand is one row of W0: how to run it once, untimed set-up
// included, returning the time of the process alone.
type startupCommand struct {
	name string
	run  func() (measurement, error)
}

// buildStartFloor builds the floor of W0 into dir.
func buildStartFloor(root, dir string) (string, error) {
	return goBuild(root, filepath.Join(dir, "startfloor"), "./internal/cmd/bench/startfloor", "")
}

// benchStartup runs W0: runs rounds of every command in turn, each round
// starting with the next one, after one round not counted.
func (s startupBench) benchStartup(runs int) error {
	dir, err := os.MkdirTemp(s.dir, "w0-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	const prompt = "Continue? [y/n] "
	playbook := filepath.Join(dir, "w0.yaml")
	yaml := fmt.Sprintf("version: 1\nname: w0\nspawn: {command: [%q, -q, %q]}\nrules:\n  - {name: go, match: {regex: 'Continue\\? \\[y/n\\] $'}, line: \"y\", limit: 1}\n", s.prompter, prompt)
	if err := os.WriteFile(playbook, []byte(yaml), 0o644); err != nil {
		return err
	}
	// clai suggest asks a daemon of its own, on an empty database: W10
	// measures the daemon's answer at 100,000 events and more.
	d, err := s.sb.startDaemon(dir)
	if err != nil {
		return err
	}
	defer d.stop()
	// clai sessions lists, and clai answer answers, a session whose program
	// asks one question after another.
	session, stop, err := s.startAsking(dir)
	if err != nil {
		return err
	}
	defer stop()
	env := append(daemonEnv(dir), "CLAI_SESSION_ID=bench")
	commands := []startupCommand{
		{"floor", func() (measurement, error) { return measure(s.floor, prompt, "y", s.prompter, "-q", prompt) }},
		{"clai run (a prompt at once)", func() (measurement, error) {
			return measure(s.clai, "run", "-q", "--log", os.DevNull, playbook)
		}},
		{"clai version", func() (measurement, error) { return measure(s.clai, "version") }},
		{"clai sessions", func() (measurement, error) { return measure(s.clai, "sessions") }},
		{"clai answer", func() (measurement, error) {
			id, err := s.openQuestion(session)
			if err != nil {
				return measurement{}, err
			}
			return measure(s.clai, "answer", "--question", id, session, "y")
		}},
		{"clai suggest", func() (measurement, error) {
			return measureEnv(env, s.clai, "suggest", "--json", "--last", "git pull")
		}},
	}
	// A clai-hook of a commit before it had suggest (CLAI_BENCH_BINARY) has
	// no row.
	if hookSuggests(s.sb.hook, env) {
		commands = append(commands, startupCommand{"clai-hook suggest", func() (measurement, error) {
			return measureEnv(append(env, "CLAI_HOOK_LAST=git pull"), s.sb.hook, "suggest", "-json")
		}})
	}
	walls := make([][]time.Duration, len(commands))
	ratios := make([][]float64, len(commands))
	for round := range runs + 1 {
		took := make([]time.Duration, len(commands))
		for k := range commands {
			c := commands[(round+k)%len(commands)]
			m, err := c.run()
			if err != nil {
				return fmt.Errorf("W0 %s: %w", c.name, err)
			}
			took[(round+k)%len(commands)] = m.wall
		}
		if round == 0 {
			continue
		}
		for k := range commands {
			walls[k] = append(walls[k], took[k])
			ratios[k] = append(ratios[k], float64(took[k])/float64(took[0]))
		}
	}
	fmt.Printf("\nW0 start-up: each command a whole process against the floor (a Go program that opens a terminal, starts a program that prompts at once, answers it and waits), %d rounds after one not counted:\n", runs)
	for k, c := range commands {
		ms := fmt.Sprintf("%.1f ms", float64(median(walls[k]).Microseconds())/1e3)
		if k == 0 {
			fmt.Printf("  %-30s %9s\n", c.name, ms)
			continue
		}
		verdict := "ok"
		if median(ratios[k]) > startupTarget {
			verdict = "OVER"
		}
		fmt.Printf("  %-30s %9s  %.2f× the floor (%.2f–%.2f×)  ≤%.1f× %s\n", c.name, ms, median(ratios[k]),
			slices.Min(ratios[k]), slices.Max(ratios[k]), startupTarget, verdict)
	}
	return nil
}

// startAsking starts a headless clai run --remote of a prompter that asks
// many questions, each of its own ("Name 1: ", "Name 2: "…), and returns its
// session id and how to end it.
func (s startupBench) startAsking(dir string) (string, func(), error) {
	args := []string{}
	for i := range 1000 {
		args = append(args, "-q", fmt.Sprintf("Name %d: ", i+1))
	}
	quoted, _ := json.Marshal(append([]string{s.prompter}, args...))
	playbook := filepath.Join(dir, "asks.yaml")
	if err := os.WriteFile(playbook, fmt.Appendf(nil, "version: 1\nname: w0-asks\nspawn: {command: %s}\n"+
		"settings: {min_send_interval: 0s}\ntimeouts: {prompt: 30m}\n"+
		"rules:\n  - {name: never, match: {regex: 'never asked'}, line: \"no\"}\n", quoted), 0o644); err != nil {
		return "", nil, err
	}
	cmd := exec.Command(s.clai, "run", "--remote", "-q", "--log", os.DevNull, playbook)
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		live, err := s.sessions()
		if err != nil {
			stop()
			return "", nil, err
		}
		for _, l := range live {
			if l.Name == "w0-asks" {
				return l.ID, stop, nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	return "", nil, errors.New("the asking session did not register within 30 s")
}

// openQuestion waits until the session has a question open and returns its
// id: a question opens once the prompt has settled, which the timed clai
// answer must not wait for.
func (s startupBench) openQuestion(session string) (string, error) {
	deadline := time.Now().Add(30 * time.Second)
	state := "gone"
	for time.Now().Before(deadline) {
		live, err := s.sessions()
		if err != nil {
			return "", err
		}
		state = "gone"
		for _, l := range live {
			if l.ID == session {
				if l.Question != nil {
					return l.Question.ID, nil
				}
				state = l.State
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return "", fmt.Errorf("session %s opened no question within 30 s (%s)", session, state)
}

// sessions lists the live sessions as clai sessions --json prints them.
func (s startupBench) sessions() ([]ask.Session, error) {
	out, err := exec.Command(s.clai, "sessions", "--json").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("clai sessions --json: %w\n%s", err, strings.TrimSpace(string(ee.Stderr)))
		}
		return nil, err
	}
	var live []ask.Session
	if err := json.Unmarshal(out, &live); err != nil {
		return nil, fmt.Errorf("clai sessions --json: %w", err)
	}
	return live, nil
}

// hookSuggests reports whether the clai-hook at hook serves suggest.
func hookSuggests(hook string, env []string) bool {
	cmd := exec.Command(hook, "suggest", "-json")
	cmd.Env = env
	out, _ := cmd.CombinedOutput()
	return !strings.Contains(string(out), "unknown command")
}
