package playbooks_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
)

// TestConfigHistoryIgnore: the config file's history.ignore is the
// suggestions' stop-list, an empty list kept apart from none given; a
// mistake is an error at its file:line:col with a hint.
func TestConfigHistoryIgnore(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{"history:\n  ignore: [clear, git stash list]\n", []string{"clear", "git stash list"}},
		{"history:\n  ignore: []\n", []string{}},
		{"history: {}\n", nil},
	} {
		cfg, findings := playbooks.ParseConfig("config.yaml", []byte(tc.src))
		if cfg == nil || len(findings) != 0 || cfg.History == nil {
			t.Fatalf("%q: %+v, findings %v", tc.src, cfg, findings)
		}
		if got := cfg.History.Ignore; !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("%q: ignore %#v, want %#v", tc.src, got, tc.want)
		}
	}
	if cfg, _ := playbooks.ParseConfig("config.yaml", []byte("notify: []\n")); cfg == nil || cfg.History != nil {
		t.Errorf("without history: %+v", cfg)
	}
	for _, tc := range []struct{ src, want string }{
		{"history:\n  ignore: [clear, \"\"]\n", "config.yaml:2:19: error: history.ignore[1] is empty"},
		{"history:\n  ignore: [\"a\\nb\"]\n", "config.yaml:2:12: error: history.ignore[0] is no command to ignore"},
		{"history:\n  ignore: [\"" + strings.Repeat("x", playbooks.MaxHistoryIgnoreBytes+1) + "\"]\n", "history.ignore[0] is no command to ignore"},
		{"history:\n  ignore: [" + strings.Repeat("a, ", playbooks.MaxHistoryIgnore) + "a]\n", "history.ignore has 257 entries, at most 256"},
		{"history:\n  ignore: clear\n", "history.ignore must be"},
		{"history:\n  ignore: [[clear]]\n", "history.ignore[0] must be a string"},
		{"history:\n  ignroe: [clear]\n", `unknown key "ignroe"`},
	} {
		cfg, findings := playbooks.ParseConfig("config.yaml", []byte(tc.src))
		if got := findings.Error(); cfg != nil || !strings.Contains(got, tc.want) {
			t.Errorf("%.60q:\n got %s\nwant %s", tc.src, got, tc.want)
		}
		for _, f := range findings {
			if f.Hint == "" {
				t.Errorf("%.60q: %s has no hint", tc.src, f.Message)
			}
		}
	}
}
