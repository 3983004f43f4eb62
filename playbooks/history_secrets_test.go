package playbooks_test

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
)

// TestConfigHistorySecretPatterns: history.secret_patterns decode into
// compiled patterns; a pattern that does not compile, is empty or matches
// every command is an error at its file:line:col with a hint.
func TestConfigHistorySecretPatterns(t *testing.T) {
	t.Parallel()
	src := "history:\n  secret_patterns:\n    - 'corp-[0-9]{6}'\n    - '(?i)hunter2'\n"
	cfg, findings := playbooks.ParseConfig("config.yaml", []byte(src))
	if cfg == nil || len(findings) != 0 || cfg.History == nil || len(cfg.History.SecretPatterns) != 2 {
		t.Fatalf("config: %+v, findings %v", cfg, findings)
	}
	if re := cfg.History.SecretPatterns[0]; !re.MatchString("login corp-123456") || re.MatchString("login corp-12") {
		t.Errorf("pattern 0 is %v", re)
	}
	if cfg, _ := playbooks.ParseConfig("config.yaml", []byte("notify: []\n")); cfg == nil || cfg.History != nil {
		t.Errorf("a config with no history: %+v", cfg)
	}
	for _, tc := range []struct{ src, want string }{
		{"history:\n  secret_patterns: ['(']\n", "config.yaml:2:21: error: history.secret_patterns[0]: pattern \"(\": error parsing regexp: missing closing ): `(`"},
		{"history:\n  secret_patterns: ['']\n", "config.yaml:2:21: error: history.secret_patterns[0]: empty pattern"},
		{"history:\n  secret_patterns: ['x', '.*']\n", "config.yaml:2:26: error: history.secret_patterns[1]: pattern \".*\" matches every command"},
		{"history:\n  secret_patterns: 'x'\n", "config.yaml:2:20: error: history.secret_patterns must be a list"},
		{"history:\n  secret_patterns: [1]\n", "history.secret_patterns[0] must be a string"},
		{"history:\n  secret_pattern: ['x']\n", `unknown key "secret_pattern"`},
	} {
		cfg, findings := playbooks.ParseConfig("config.yaml", []byte(tc.src))
		if got := findings.Error(); cfg != nil || !strings.Contains(got, tc.want) {
			t.Errorf("%q:\n got %s\nwant %s", tc.src, got, tc.want)
		}
		for _, f := range findings {
			if f.Hint == "" {
				t.Errorf("%q: %s has no hint", tc.src, f.Message)
			}
		}
	}
}
