package playbooks

import (
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/clai-sh/clai/playbooks/diag"
)

// Config is the user's config file: what every playbook of the user shares.
type Config struct {
	// Path is the file it was read from.
	Path string
	// Notify are the notification targets every run adds to its playbook's.
	Notify []*Notify
	// Answerer is the answerer of every run whose playbook has none.
	Answerer *Answerer
	// Channels are the two-way channels every run asks its questions on.
	Channels []*Channel
	// History tunes the shell-history suggestions: the commands never
	// learnt, and the user's own patterns of secrets; nil when not given.
	History *History
}

// ConfigPath returns where the user's config file is:
// $XDG_CONFIG_HOME/clai/config.yaml, else ~/.config/clai/config.yaml; "" when
// environ names neither folder.
func ConfigPath(environ []string) string {
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	if dir := env["XDG_CONFIG_HOME"]; filepath.IsAbs(dir) {
		return filepath.Join(dir, "clai", "config.yaml")
	}
	if home := env["HOME"]; filepath.IsAbs(home) {
		return filepath.Join(home, ".config", "clai", "config.yaml")
	}
	return ""
}

// ParseConfig decodes a user config file: notify:, a list of targets as in a
// playbook, answerer:, as in a playbook, channels:, the two-way channels, and
// history:, for the shell-history suggestions; a token may be written out in it (it is
// the place for them), so the literal-secret check does not apply.
func ParseConfig(name string, src []byte) (*Config, diag.List) {
	if f, exceeded := checkBounds(name, src); exceeded {
		return nil, diag.List{f}
	}
	d := &decoder{file: name, typos: map[ast.Node]map[string]bool{}}
	cfg := &Config{Path: name}
	if root := d.document(src, ""); root != nil {
		d.fields(root, "the config file", []string{"notify", "answerer", "channels", "history"}, func(key string, v ast.Node) {
			switch key {
			case "notify":
				cfg.Notify = d.notifyList(v, true)
			case "answerer":
				cfg.Answerer = d.answerer(v, true)
			case "channels":
				cfg.Channels = d.channelList(v)
				d.checkChannelNames(cfg.Channels)
			case "history":
				cfg.History = d.history(v)
			}
		})
	}
	d.diags.Sort()
	if d.diags.HasErrors() {
		return nil, d.diags
	}
	return cfg, d.diags
}
