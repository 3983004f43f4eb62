package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clai-sh/clai/runner/exitcode"
)

// errorLines returns the error findings among out's lines, with the "clai: "
// that starts clai's own message removed.
func errorLines(out string) []string {
	var errs []string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimPrefix(line, "clai: ")
		if strings.Contains(line, ": error: ") {
			errs = append(errs, line)
		}
	}
	slices.Sort(errs)
	return errs
}

// Lint and run never disagree: each playbook clai run refuses before starting
// is refused by lint with the same findings, at the place that causes it.
func TestLintFindsWhatRunRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"choose in a step without a screen", "steps:\n  - expect: Fruit\n    choose: Apple\n",
			[]string{"pb.yaml:7:5: error: choose needs settings.match: screen, to see the menu [needs-screen]"}},
		{"choose in a case and in a rule", "steps:\n  - expect:\n      - {case: Fruit, choose: Apple}\nrules:\n  - {name: menu, match: Veg, choose: Leek, limit: 1}\n",
			[]string{
				"pb.yaml:7:23: error: choose needs settings.match: screen, to see the menu [needs-screen]",
				"pb.yaml:9:30: error: choose needs settings.match: screen, to see the menu [needs-screen]",
			}},
		{"match: stream for a tmux pane", "settings:\n  match: stream\n",
			[]string{"pb.yaml:6:10: error: settings.match: stream cannot read a tmux pane: clai reads the pane as a screen [needs-screen]"}},
		{"a preset's choose under match: stream", "extends: claude-code\nsettings: {match: stream}\n",
			[]string{"pb.yaml:6:19: error: settings.match: stream set here leaves the preset claude-code's choose (its lines 29, 37, 48, 54, 66) without the screen it needs to see the menu [needs-screen]"}},
		{"a ${ never closed", "dir: \"${HOME\"\n",
			[]string{`pb.yaml:5:8: error: spawn.dir: "${HOME": ${ is never closed with } [template]`}},
		{"an empty ${} beside a template", "env: {DISK: \"{{ vars.disk }}${}\"}\nvars: {disk: a.img}\n",
			[]string{`pb.yaml:5:15: error: spawn.env.DISK: "${}": empty ${} [template]`}},
		{"a tmux session name tmux would change", "tmux: {session: \"my.run\"}\nsettings: {match: screen}\n",
			[]string{`pb.yaml:5:19: error: spawn.tmux.session: "my.run" holds : or ., which tmux does not keep in a session name [schema]`}},
		{"a ${ in the tmux session", "tmux: {session: \"s${X\"}\nsettings: {match: screen}\n",
			[]string{`pb.yaml:5:19: error: spawn.tmux.session: "s${X": ${ is never closed with } [template]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "pb.yaml")
			if err := os.WriteFile(path, []byte(agreeSpawn(tc.name, tc.yaml)), 0o644); err != nil {
				t.Fatal(err)
			}
			var lintOut, runOut bytes.Buffer
			if code := runInProcess(t.Context(), []string{"clai", "lint", path}, nil, &lintOut, &lintOut); code != exitcode.Failed {
				t.Fatalf("lint exit %d, want %d:\n%s", code, exitcode.Failed, lintOut.String())
			}
			runArgs := []string{"clai", "run", "--log", filepath.Join(dir, "run.log"), path}
			if code := runInProcess(t.Context(), runArgs, nil, &runOut, &runOut); code != exitcode.Usage {
				t.Fatalf("run exit %d, want %d:\n%s", code, exitcode.Usage, runOut.String())
			}
			lint := errorLines(strings.ReplaceAll(lintOut.String(), dir+"/", ""))
			refused := errorLines(strings.ReplaceAll(runOut.String(), dir+"/", ""))
			if !slices.Equal(lint, refused) {
				t.Errorf("lint and run disagree\nlint:\n%s\nrun:\n%s", lintOut.String(), runOut.String())
			}
			want := slices.Sorted(slices.Values(tc.want))
			if !slices.Equal(lint, want) {
				t.Errorf("lint found\n%s\nwant\n%s", strings.Join(lint, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// agreeSpawn makes a playbook of the spawn keys or sections that follow it:
// a tmux session for the cases about tmux, a command for the others.
func agreeSpawn(name, rest string) string {
	head := "version: 1\nname: agree\nspawn:\n"
	switch {
	case strings.HasPrefix(rest, "tmux:"):
		return head + "  command: [sh]\n  " + rest
	case strings.Contains(name, "tmux"):
		return head + "  tmux: {target: \"work:0.1\"}\n" + rest
	case strings.HasPrefix(rest, "dir:"), strings.HasPrefix(rest, "env:"):
		return head + "  command: [sh]\n  " + rest
	}
	return head + "  command: [sh]\n" + rest
}
