package runnable_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/cmdcorpus"
	"github.com/clai-sh/clai/runner/suggest/normalize"
	"github.com/clai-sh/clai/runner/suggest/runnable"
)

// corpus reads a file of commands (see cmdcorpus.Read).
func corpus(t *testing.T, path string) []string {
	t.Helper()
	lines, err := cmdcorpus.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// TestTemplatesOfValidCommandsAreValid normalises every command of
// normalize's corpus that bash can run: its template, slots unfilled, and
// the template filled with its args, can be run by bash too. A
// here-document is left out: its body is never stored, so its template is
// not a command to run (and is never offered).
func TestTemplatesOfValidCommandsAreValid(t *testing.T) {
	t.Parallel()
	checked := 0
	for _, line := range corpus(t, filepath.Join("..", "normalize", "testdata", "commands.txt")) {
		if runnable.Check("bash", line) != nil {
			continue
		}
		c := normalize.Normalize(line)
		if strings.Contains(strings.ReplaceAll(c.Template, "<<<", ""), "<<") {
			continue
		}
		checked++
		if err := runnable.Check("bash", c.Template); err != nil {
			t.Errorf("Normalize(%q).Template = %q: %v", line, c.Template, err)
		}
		if filled := normalize.Fill(c.Template, c.Args); runnable.Check("bash", filled) != nil {
			t.Errorf("Fill(%q, %q) = %q: %v", c.Template, c.Args, filled, runnable.Check("bash", filled))
		}
	}
	if checked < 100 {
		t.Fatalf("only %d commands of the corpus checked", checked)
	}
}

// TestTemplatesOfFishCommandsAreFish normalises commands typed in fish
// (testdata/fish.txt): each template, and each filled with its args, is a
// line fish can run, rather than its words quoted one by one.
func TestTemplatesOfFishCommandsAreFish(t *testing.T) {
	t.Parallel()
	for _, line := range corpus(t, filepath.Join("testdata", "fish.txt")) {
		if err := runnable.Check("fish", line); err != nil {
			t.Errorf("the corpus line %q: %v", line, err)
			continue
		}
		c := normalize.Normalize(line)
		if err := runnable.Check("fish", c.Template); err != nil {
			t.Errorf("Normalize(%q).Template = %q: %v", line, c.Template, err)
		}
		filled := normalize.Fill(c.Template, c.Args)
		if err := runnable.Check("fish", filled); err != nil {
			t.Errorf("Fill(%q, %q) = %q: %v", c.Template, c.Args, filled, err)
		}
		if strings.Contains(c.Template, "'for'") || strings.Contains(c.Template, "'$") {
			t.Errorf("Normalize(%q).Template = %q: words quoted that were not", line, c.Template)
		}
	}
}
