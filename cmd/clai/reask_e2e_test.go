package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
)

// TestSamePromptAskedAgainPastTheScreen: a headless clai run --remote whose
// program asks the same prompt again after each answer, far past the
// terminal's height, asks each one as a new question that clai answer
// answers, in stream and screen matching. The program shows each answer with
// the next prompt in one write, so that once the screen has scrolled the
// prompt shows on the bottom row where the one answered was.
func TestSamePromptAskedAgainPastTheScreen(t *testing.T) {
	t.Parallel()
	const asks = 30
	prompter := testprog.Build(t, "prompter")
	for _, mode := range []string{"stream", "screen"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			e := newSessionsEnv(t)
			command := fmt.Sprintf("%q, \"-own-echo\"", prompter)
			for range asks {
				command += `, "-q", "Name: "`
			}
			pb := filepath.Join(e.dir, "names.yaml")
			yaml := fmt.Sprintf("version: 1\nname: names\nspawn:\n  command: [%s]\nsettings: {match: %s}\ntimeouts:\n  prompt: 120s\n  total: 600s\n", command, mode)
			if err := os.WriteFile(pb, []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			_, out, exited := e.start(t, "run", "--remote", pb)
			e.waitQuestion(t, "q1", exited, out)
			for i := 1; i <= asks; i++ {
				q := fmt.Sprintf("q%d", i)
				stdout, stderr, code := e.clai(t, "answer", "names", "--wait=60s", "--question", q, "alice")
				if code != 0 || !strings.Contains(stdout, "question "+q+": sent") {
					t.Fatalf("clai answer to %s: exit %d\n%s%s", q, code, stdout, stderr)
				}
			}
			waitRunEnd(t, exited, out)
			if n := strings.Count(out.String(), "got: alice\r"); n != asks {
				t.Fatalf("the program got %d answers, want %d:\n%s", n, asks, out)
			}
		})
	}
}
