package playbooks_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
)

// TestChildEnvLists: a command target and a command answerer take env:, a
// list of variables' names; a name that is none, or env: where no program
// runs, is an error at its place.
func TestChildEnvLists(t *testing.T) {
	t.Parallel()
	head := "version: 1\nname: p\nspawn: {command: [cat]}\n"
	pb, findings := playbooks.Parse("p.yaml", []byte(head+`notify:
  - command: [notify-me]
    env: [PAGER_TOKEN, PAGER_TOKEN, HOOK_SECRET]
answerer:
  command: [python3, ask.py]
  env: [OPENAI_API_KEY]
`))
	if pb == nil || len(findings) != 0 {
		t.Fatalf("findings %v", findings)
	}
	if got := fmt.Sprint(pb.Notify[0].PassEnv, pb.Answerer.PassEnv); got != "[PAGER_TOKEN HOOK_SECRET] [OPENAI_API_KEY]" {
		t.Errorf("env lists %s", got)
	}
	for _, tc := range []struct{ src, want string }{
		{"notify:\n  - url: \"ntfy://ntfy.sh/t\"\n    env: [X]\n", "p.yaml:6:5: error: notify[0].env is for a command, which this is not [schema]"},
		{"notify:\n  - command: [n]\n    env: [\"A B\"]\n", "p.yaml:6:11: error: notify[0].env[0] is not an environment variable's name [schema]"},
		{"answerer: {api: openai, model: m, env: [K]}\n", "p.yaml:4:35: error: answerer.env is for a command, which this is not [schema]"},
		{"answerer: {command: [m], env: [1X]}\n", "p.yaml:4:32: error: answerer.env[0] is not an environment variable's name [schema]"},
	} {
		_, findings := playbooks.Parse("p.yaml", []byte(head+tc.src))
		if got := fmt.Sprint(findings); !strings.Contains(got, tc.want) {
			t.Errorf("%q: findings\n%s\nwant %s", tc.src, got, tc.want)
		}
	}
}

// TestSecretVariables: the variables behind the secrets of a playbook and
// of the user config are listed once each: env: secrets of answers,
// webhooks, the answerer's key and channels' tokens, and the ${NAME}s of
// notification URLs; file: secrets name no variable.
func TestSecretVariables(t *testing.T) {
	t.Parallel()
	pb, findings := playbooks.Parse("p.yaml", []byte(`version: 1
name: p
spawn: {command: [cat]}
rules:
  - {name: vault, match: "Vault code:", secret: env:VAULT_CODE, limit: 1}
  - {name: pin, match: "PIN:", secret: file:pin.txt, limit: 1}
notify:
  - url: "ntfy://ntfy.sh/${NTFY_TOPIC}"
  - webhook: {url: "https://ci.example/${HOOK_PATH}", secret: env:HOOK_SECRET}
answerer: {api: anthropic, model: m, key: env:ANTHROPIC_API_KEY}
`))
	if pb == nil {
		t.Fatal(findings)
	}
	cfg, findings := playbooks.ParseConfig("config.yaml", []byte(`channels:
  - telegram: {token: env:TG_BOT, chats: [1]}
  - ntfy: {topic: t, token: env:NTFY_AUTH}
notify:
  - webhook: {url: "https://hooks.example/x", secret: env:HOOK_SECRET}
answerer: {api: openai, model: m, key: env:OPENAI_KEY}
`))
	if cfg == nil {
		t.Fatal(findings)
	}
	want := "[VAULT_CODE NTFY_TOPIC HOOK_SECRET HOOK_PATH ANTHROPIC_API_KEY OPENAI_KEY TG_BOT NTFY_AUTH]"
	if got := fmt.Sprint(playbooks.SecretVariables(pb, cfg)); got != want {
		t.Errorf("SecretVariables = %s, want %s", got, want)
	}
	if got := playbooks.SecretVariables(nil, nil); len(got) != 0 {
		t.Errorf("SecretVariables of nothing = %v", got)
	}
}
