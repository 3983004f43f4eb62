package humanloop

import "testing"

// The session Claude Code is told to start or resume is the one followed;
// a --resume without an id (a picker) names none.
func TestClaudeSession(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"5f0c2a4e-1b7d": {"claude", "--model", "sonnet", "--session-id", "5f0c2a4e-1b7d"},
		"aa11":          {"claude", "--resume=aa11"},
		"bb22":          {"claude", "-r", "bb22", "fix it"},
		"":              {"claude", "--resume", "--model", "sonnet"},
	}
	for want, argv := range cases {
		if got := claudeSession(argv); got != want {
			t.Errorf("%q: %q, want %q", argv, got, want)
		}
	}
	if got := claudeSession([]string{"claude", "fix it"}); got != "" {
		t.Errorf("no session named: %q", got)
	}
}
