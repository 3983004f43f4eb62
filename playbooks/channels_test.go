package playbooks_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/diag"
)

// TestConfigChannels: the config file's channels: decode into a name and a
// kind, with the kind's settings kept for the kind to read (runner/channel
// reads telegram's and ntfy's); a mistake in the entry itself is an error
// at its file:line:col with a hint.
func TestConfigChannels(t *testing.T) {
	t.Parallel()
	src := `channels:
  - telegram:
      token: env:TELEGRAM_BOT_TOKEN
      chats: [987654321]
  - name: phone
    pager: {url: "https://pager.example", key: env:PAGER_KEY, deep: [{token: "file:pager.token"}]}
`
	cfg, findings := playbooks.ParseConfig("config.yaml", []byte(src))
	if cfg == nil || len(findings) != 0 || len(cfg.Channels) != 2 {
		t.Fatalf("config: %+v, findings %v", cfg, findings)
	}
	if c := cfg.Channels[0]; c.Kind != "telegram" || c.Name != "telegram" || c.Pos.Line != 2 {
		t.Errorf("telegram: %+v", c)
	}
	if c := cfg.Channels[1]; c.Kind != "pager" || c.Name != "phone" {
		t.Errorf("the pager: %+v", c)
	}
	// What any kind's settings say comes from env: or file: is a secret.
	if got := playbooks.SecretVariables(nil, cfg); !slices.Equal(got, []string{"TELEGRAM_BOT_TOKEN", "PAGER_KEY"}) {
		t.Errorf("the channels' secret variables: %v", got)
	}
	var read []string
	findings = cfg.Channels[1].Settings.Decode([]string{"url", "key", "deep"}, func(r *playbooks.ChannelReader) {
		read = append(read, r.URL("url"), r.What("key"))
	})
	if len(findings) != 0 || !slices.Equal(read, []string{"https://pager.example", "channels[1].pager.key"}) {
		t.Errorf("the pager's settings read %v, findings %v", read, findings)
	}
	for _, tc := range []struct{ src, want string }{
		{"channels:\n  - ntfy: {topic: t}\n    telegram: {token: env:T, chats: [1]}\n", "config.yaml:2:5: error: channels[0] must be exactly one channel: it has 2 kinds"},
		{"channels:\n  - name: phone\n", "config.yaml:2:5: error: channels[0] names no channel"},
		{"channels:\n  - ntfy: alice\n", "config.yaml:2:11: error: channels[0].ntfy must be a mapping, not a string"},
		{"channels:\n  - \"a b\": {}\n", `config.yaml:2:5: error: channels[0]: "a b" is not a channel's kind`},
		{"channels:\n  - ntfy: {topic: a}\n  - ntfy: {topic: b}\n", `two channels are named "ntfy"`},
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

// TestChannelReaderReportsAtThePlace: a kind's reading of its settings
// reports each mistake at its file:line:col, with a hint, and an unknown
// field with the nearest known one.
func TestChannelReaderReportsAtThePlace(t *testing.T) {
	t.Parallel()
	src := "channels:\n  - pager: {url: \"ftp://x\", key: \"s3cr3t\", ids: [1, me], tpoic: t}\n"
	cfg, findings := playbooks.ParseConfig("config.yaml", []byte(src))
	if cfg == nil || len(findings) != 0 {
		t.Fatalf("config: %+v, findings %v", cfg, findings)
	}
	findings = cfg.Channels[0].Settings.Decode([]string{"url", "key", "ids", "topic"}, func(r *playbooks.ChannelReader) {
		r.URL("url")
		r.Secret("key")
		r.Int64s("ids", 8, "write ids")
		r.Require("topic")
	})
	got := findings.Error()
	for _, want := range []string{
		"config.yaml:2:18: error: channels[0].pager.url is not a service's address",
		"config.yaml:2:34: error: channels[0].pager.key must name where the secret comes from",
		"config.yaml:2:53: error: channels[0].pager.ids[1] must be an integer",
		`config.yaml:2:58: error: unknown key "tpoic" in channels[0].pager, did you mean "topic"?`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("findings:\n%s\nwant %s", got, want)
		}
	}
	if strings.Contains(got, "s3cr3t") {
		t.Error("a finding quotes what was written where a secret's place belongs")
	}
	if strings.Contains(got, `has no "topic"`) {
		t.Error("a misspelt key is reported missing as well")
	}
	for _, f := range findings {
		if f.Hint == "" || f.Severity != diag.Error {
			t.Errorf("%s: no hint, or not an error", f.Message)
		}
	}
}
