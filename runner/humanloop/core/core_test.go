package core

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
)

// TestAloneOnlyWhenNoPartWouldOpen: a run is alone only when humanloop would
// open none of its parts: each thing that opens one makes it not alone.
func TestAloneOnlyWhenNoPartWouldOpen(t *testing.T) {
	const base = "version: 1\nname: deploy\nspawn: {command: [deploy]}\nrules:\n  - {name: go, match: {regex: 'go\\?'}, line: y}\n"
	const answerer = "answerer:\n  command: [ask]\n"
	const notify = "notify:\n  - command: [tell]\n"
	const channel = "channels:\n  - ntfy: {topic: t}\n"
	up, down := func() bool { return true }, func() bool { return false }
	tests := []struct {
		name, playbook, config string
		s                      Situation
		want                   bool
	}{
		{"headless, nothing configured", base, "", Situation{}, true},
		{"no hub answers", base, "", Situation{Hub: down}, true},
		{"a terminal: its answers are learned", base, "", Situation{Terminal: true}, false},
		{"remote: it waits for an answer", base, "", Situation{Remote: true}, false},
		{"a hub answers: it links", base, "", Situation{Hub: up}, false},
		{"the playbook's answerer", base + answerer, "", Situation{}, false},
		{"the config's answerer", base, answerer, Situation{}, false},
		{"the playbook's notify:", base + notify, "", Situation{}, false},
		{"the config's targets", base, notify, Situation{}, false},
		{"the config's channels", base, channel, Situation{}, false},
		{"the config's channels, the playbook uses none", base + "channels: []\n", channel + notify, Situation{Hub: up}, true},
		{"the playbook names a channel", base + "channels: [phone]\n", "", Situation{}, false},
		{"suggest:", base + "suggest: {sources: [answers]}\n", "", Situation{}, false},
		{"Claude Code's preset", strings.Replace(base, "name: deploy", "name: claude-code", 1), "", Situation{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pb, errs := playbooks.Parse("pb.yaml", []byte(tt.playbook))
			if errs.HasErrors() {
				t.Fatal(errs)
			}
			cfg, errs := playbooks.ParseConfig("config.yaml", []byte(tt.config))
			if errs.HasErrors() {
				t.Fatal(errs)
			}
			if got := Alone(pb, cfg, tt.s); got != tt.want {
				t.Errorf("Alone = %v, want %v", got, tt.want)
			}
		})
	}
}
