package playbooks_test

import (
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/playbooks"
)

func TestAnswererDecodes(t *testing.T) {
	t.Parallel()
	pb := mustParse(t, `
version: 1
name: n
spawn: {command: [x]}
answerer:
  api: openai
  url: "http://127.0.0.1:11434/v1/"
  model: llama3
  key: env:MODEL_KEY
  timeout: 5s
  min_confidence: 1
  allow: ["Continue?"]
  deny: [{regex: 'rm\s+-rf'}]
  summarize: true
`)
	a := pb.Answerer
	if a == nil {
		t.Fatal("no answerer")
	}
	if a.API != playbooks.APIOpenAI || a.URL != "http://127.0.0.1:11434/v1" || a.Model != "llama3" ||
		a.Key == nil || a.Key.Name != "MODEL_KEY" || a.Timeout != 5*time.Second || a.MinConfidence != 1 ||
		a.Allow == nil || a.Deny == nil || !a.Summarize || a.FromConfig {
		t.Errorf("answerer: %+v", a)
	}
	cmd := mustParse(t, "version: 1\nname: n\nspawn: {command: [x]}\nanswerer: {command: [ask, --json]}\n").Answerer
	if cmd == nil || strings.Join(cmd.Command, " ") != "ask --json" || cmd.MinConfidence != playbooks.DefaultAnswererConfidence ||
		cmd.Timeout != playbooks.DefaultAnswererTimeout {
		t.Errorf("command answerer: %+v", cmd)
	}
	def := mustParse(t, "version: 1\nname: n\nspawn: {command: [x]}\nanswerer: {api: anthropic, model: m}\n").Answerer
	if def.URL != "https://api.anthropic.com" {
		t.Errorf("anthropic's default URL is %q", def.URL)
	}
}

func TestAnswererFindings(t *testing.T) {
	t.Parallel()
	head := "version: 1\nname: n\nspawn: {command: [x]}\n"
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"no model", "answerer: {timeout: 5s}", "4:12: error: answerer names no model: give command or api [schema]"},
		{"both", "answerer: {command: [a], api: openai, model: m}", "answerer has both command and api [schema]"},
		{"api without model", "answerer: {api: openai}", `answerer has no "model" [schema]`},
		{"unknown api", "answerer: {api: openia, model: m}", `did you mean "openai"?`},
		{"url on a command", "answerer: {command: [a], url: 'http://x'}", "answerer.url is for an api answerer, not a command [schema]"},
		{"ftp url", "answerer: {api: openai, model: m, url: 'ftp://x/v1'}", `not "ftp" [answerer]`},
		{"credentials", "answerer: {api: openai, model: m, url: 'https://u:p@x/v1'}", "answerer.url holds credentials [answerer]"},
		{"key written out", "answerer: {api: openai, model: m, key: sk-123}", "answerer.key must name where the secret comes from [schema]"},
		{"confidence", "answerer: {command: [a], min_confidence: 1.5}", "answerer.min_confidence must be more than 0 and at most 1, not 1.5 [schema]"},
		{"timeout", "answerer: {command: [a], timeout: 10m}", "answerer.timeout must be more than 0 and at most 5m0s [answerer]"},
		{"bad regex", "answerer: {command: [a], deny: [{regex: '(?=x)'}]}", "lookahead"},
		{"typo", "answerer: {comand: [a]}", `unknown key "comand" in answerer, did you mean "command"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, findings := playbooks.Parse("p.yaml", []byte(head+tc.yaml+"\n"))
			var all []string
			for _, f := range findings {
				all = append(all, f.String()+" | "+f.Hint)
			}
			if !strings.Contains(strings.Join(all, "\n"), tc.want) {
				t.Errorf("findings:\n%s\nwant one with %q", strings.Join(all, "\n"), tc.want)
			}
			for _, f := range findings {
				if f.Pos.Line == 0 || f.Hint == "" {
					t.Errorf("finding without a place or a hint: %v", f)
				}
			}
		})
	}
}

func TestConfigAnswerer(t *testing.T) {
	t.Parallel()
	cfg, findings := playbooks.ParseConfig("config.yaml", []byte("answerer:\n  api: anthropic\n  model: m\n  key: file:/k\n"))
	if findings.HasErrors() || cfg.Answerer == nil || !cfg.Answerer.FromConfig || cfg.Answerer.API != playbooks.APIAnthropic {
		t.Fatalf("config answerer: %+v, %v", cfg, findings)
	}
	_, findings = playbooks.ParseConfig("config.yaml", []byte("answerer:\n  api: anthropic\n"))
	if !findings.HasErrors() || !strings.Contains(findings.Error(), "config.yaml:2:3") {
		t.Errorf("config without a model: %v", findings)
	}
}
