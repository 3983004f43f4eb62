package playbooks

import (
	"errors"
	"fmt"
	"io/fs"
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
	// Channels are the two-way channels every run asks its questions on.
	Channels []*Channel
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

// LoadConfig reads the user's config file at path. A file that is not there
// is an empty config; its error is a diag.List of every error found, or the
// error reading the file.
func LoadConfig(path string) (*Config, error) {
	src, err := readPlaybook(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &Config{Path: path}, nil
	case errors.Is(err, errTooLarge):
		return nil, diag.List{tooLarge(path)}
	case err != nil:
		return nil, fmt.Errorf("read config: %w", err)
	}
	cfg, findings := ParseConfig(path, src)
	if findings.HasErrors() {
		var errs diag.List
		for _, f := range findings {
			if f.Severity == diag.Error {
				errs = append(errs, f)
			}
		}
		return nil, errs
	}
	return cfg, nil
}

// ParseConfig decodes a user config file: notify:, a list of targets as in
// a playbook, and channels:, the two-way channels; a token may be written out in it (it is
// the place for them), so the literal-secret check does not apply.
func ParseConfig(name string, src []byte) (*Config, diag.List) {
	if f, exceeded := checkBounds(name, src); exceeded {
		return nil, diag.List{f}
	}
	d := &decoder{file: name, typos: map[ast.Node]map[string]bool{}}
	cfg := &Config{Path: name}
	if root := d.document(src, ""); root != nil {
		d.fields(root, "the config file", []string{"notify", "channels"}, func(key string, v ast.Node) {
			switch key {
			case "notify":
				cfg.Notify = d.notifyList(v, true)
			case "channels":
				cfg.Channels = d.channelList(v)
			}
		})
	}
	d.diags.Sort()
	if d.diags.HasErrors() {
		return nil, d.diags
	}
	return cfg, d.diags
}
