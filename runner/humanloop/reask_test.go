package humanloop_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clai-sh/clai/runner/humanloop"
)

// A headless run whose program asks the same prompt again after each
// answer, far past the terminal's height, asks each one as a new question
// answered from elsewhere, in stream and screen matching. The program shows
// each answer with the next prompt in one write, so that once the screen has
// scrolled the prompt shows on the bottom row where the one answered was.
func TestSamePromptAskedAgainPastTheScreen(t *testing.T) {
	iso := isolate(t)
	const asks = 30
	args := []string{"-own-echo"}
	for range asks {
		args = append(args, "-q", "Name: ")
	}
	command := prompterCommand(t, args...)
	for _, mode := range []string{"stream", "screen"} {
		t.Run(mode, func(t *testing.T) {
			pb := parsePlaybook(t, "version: 1\nname: names\nspawn:\n  command: %s\nsettings: {match: %s}\ntimeouts:\n  prompt: 120s\n  total: 600s\n", command, mode)
			r := iso.startRun(t, pb, humanloop.Options{Headless: true, Remote: true})
			for i := 1; i <= asks; i++ {
				r.answer(t, fmt.Sprintf("q%d", i), "alice", "")
			}
			r.waitDone(t)
			if n := strings.Count(r.shown.String(), "got: alice\r"); n != asks {
				t.Fatalf("the program got %d answers, want %d:\n%s", n, asks, r.shown.String())
			}
		})
	}
}
