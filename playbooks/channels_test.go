package playbooks_test

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
)

// TestConfigChannels: the config file's channels: decode with their
// defaults; a mistake is an error at its file:line:col with a hint.
func TestConfigChannels(t *testing.T) {
	t.Parallel()
	src := `channels:
  - telegram:
      token: env:TELEGRAM_BOT_TOKEN
      chats: [987654321, -1001234567890]
      users: [42]
  - ntfy:
      server: http://127.0.0.1:8080/
      topic: alice-questions
      token: file:ntfy.token
`
	cfg, findings := playbooks.ParseConfig("config.yaml", []byte(src))
	if cfg == nil || len(findings) != 0 || len(cfg.Channels) != 2 {
		t.Fatalf("config: %+v, findings %v", cfg, findings)
	}
	tg, nt := cfg.Channels[0].Telegram, cfg.Channels[1].Ntfy
	if cfg.Channels[0].Kind != playbooks.ChannelTelegram || tg.BaseURL != playbooks.DefaultTelegramURL ||
		tg.Token != (playbooks.SecretRef{Source: playbooks.SecretEnv, Name: "TELEGRAM_BOT_TOKEN"}) ||
		len(tg.Chats) != 2 || tg.Chats[1] != -1001234567890 || len(tg.Users) != 1 || tg.Users[0] != 42 {
		t.Errorf("telegram: %+v", tg)
	}
	if cfg.Channels[1].Kind != playbooks.ChannelNtfy || nt.Server != "http://127.0.0.1:8080" || nt.Topic != "alice-questions" ||
		nt.Token == nil || nt.Token.Source != playbooks.SecretFile {
		t.Errorf("ntfy: %+v", nt)
	}
	for _, tc := range []struct{ src, want string }{
		{"channels:\n  - telegram: {token: \"123:AAH\", chats: [1]}\n", "config.yaml:2:23: error: channels[0].telegram.token must name where the secret comes from"},
		{"channels:\n  - telegram: {token: env:T, chats: []}\n", "config.yaml:2:37: error: channels[0].telegram.chats is empty"},
		{"channels:\n  - telegram: {token: env:T, chats: [me]}\n", "config.yaml:2:38: error: channels[0].telegram.chats[0] must be an integer"},
		{"channels:\n  - telegram: {token: env:T}\n", `config.yaml:2:16: error: channels[0].telegram has no "chats"`},
		{"channels:\n  - telegram: {token: env:T, chats: [1], base_url: \"https://u:p@x\"}\n", "config.yaml:2:52: error: channels[0].telegram.base_url is not a service's address"},
		{"channels:\n  - ntfy: {topic: \"a/b\"}\n", "config.yaml:2:19: error: channels[0].ntfy.topic is not an ntfy topic"},
		{"channels:\n  - ntfy: {topic: t}\n    telegram: {token: env:T, chats: [1]}\n", "config.yaml:2:5: error: channels[0] must be exactly one of telegram, ntfy"},
		{"channels:\n  - slack: {}\n", `unknown key "slack"`},
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
