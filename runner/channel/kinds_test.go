package channel_test

import (
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/channel"
	"github.com/clai-sh/clai/runner/notify"
)

// configChannels parses src as a user config and returns its channels.
func configChannels(t *testing.T, src string) []*playbooks.Channel {
	t.Helper()
	cfg, findings := playbooks.ParseConfig("config.yaml", []byte(src))
	if cfg == nil || findings.HasErrors() {
		t.Fatalf("config: %v", findings)
	}
	return cfg.Channels
}

// TestKindsReadTheirSettings: each kind's settings are read with their
// defaults and open; a mistake in them is an error at its file:line:col
// with a hint, from Check (clai lint) and from Open alike, and never quotes
// a token written out.
func TestKindsReadTheirSettings(t *testing.T) {
	t.Parallel()
	specs := configChannels(t, `channels:
  - telegram:
      token: env:TELEGRAM_BOT_TOKEN
      chats: [987654321, -1001234567890]
      users: [42]
  - ntfy:
      server: http://127.0.0.1:8080/
      topic: alice-questions
      token: env:NTFY_TOKEN
`)
	if findings := channel.Check(specs); len(findings) != 0 {
		t.Fatalf("Check: %v", findings)
	}
	env := notify.Environment{Environ: []string{"TELEGRAM_BOT_TOKEN=123:AAH", "NTFY_TOKEN=tk"}}
	for _, spec := range specs {
		c, err := channel.Open(spec, env, zap.NewNop())
		if err != nil {
			t.Fatalf("Open %s: %v", spec.Name, err)
		}
		if c.Name() != spec.Kind {
			t.Errorf("%s opened a channel named %s", spec.Kind, c.Name())
		}
	}
	for _, tc := range []struct{ src, want string }{
		{"channels:\n  - telegram: {token: \"123:AAH\", chats: [1]}\n", "config.yaml:2:23: error: channels[0].telegram.token must name where the secret comes from"},
		{"channels:\n  - telegram: {token: env:T, chats: []}\n", "config.yaml:2:37: error: channels[0].telegram.chats is empty"},
		{"channels:\n  - telegram: {token: env:T, chats: [me]}\n", "config.yaml:2:38: error: channels[0].telegram.chats[0] must be an integer"},
		{"channels:\n  - telegram: {token: env:T}\n", `config.yaml:2:16: error: channels[0].telegram has no "chats"`},
		{"channels:\n  - telegram: {token: env:T, chats: [1], base_url: \"https://u:p@x\"}\n", "config.yaml:2:52: error: channels[0].telegram.base_url is not a service's address"},
		{"channels:\n  - telegram: {token: env:T, chat: [2]}\n", `unknown key "chat" in channels[0].telegram, did you mean "chats"?`},
		{"channels:\n  - ntfy: {topic: \"a/b\"}\n", "config.yaml:2:19: error: channels[0].ntfy.topic is not an ntfy topic"},
		{"channels:\n  - ntfy: {server: https://n.example}\n", `config.yaml:2:12: error: channels[0].ntfy has no "topic"`},
		{"channels:\n  - slack: {}\n", `config.yaml:2:5: error: channel "slack": clai has no channel of kind "slack"`},
	} {
		specs := configChannels(t, tc.src)
		findings := channel.Check(specs)
		if got := findings.Error(); !strings.Contains(got, tc.want) || len(findings) != 1 {
			t.Errorf("%q:\n got %s\nwant %s, and no other finding", tc.src, got, tc.want)
		}
		for _, f := range findings {
			if f.Hint == "" {
				t.Errorf("%q: %s has no hint", tc.src, f.Message)
			}
		}
		_, err := channel.Open(specs[0], notify.Environment{Environ: []string{"T=x"}}, zap.NewNop())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: Open: %v, want %s", tc.src, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "AAH") {
			t.Errorf("%q: the error quotes the token: %v", tc.src, err)
		}
	}
	if !channel.KeepsReplyTopic("ntfy") || channel.KeepsReplyTopic("telegram") || channel.KeepsReplyTopic("slack") {
		t.Error("KeepsReplyTopic: only ntfy's reply topic is kept")
	}
}
