package playbooks

import (
	"embed"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/clai-sh/clai/playbooks/diag"
)

// presetFiles are the built-in playbooks, one file a preset.
//
//go:embed presets/*.yaml
var presetFiles embed.FS

// PresetSource returns the YAML of a built-in preset.
func PresetSource(name string) ([]byte, error) {
	if !slices.Contains(Presets, name) {
		return nil, fmt.Errorf("no preset %q (built in: %s)", name, strings.Join(Presets, ", "))
	}
	data, err := presetFiles.ReadFile(path.Join("presets", name+".yaml"))
	if err != nil {
		return nil, fmt.Errorf("preset %q: %w", name, err)
	}
	return data, nil
}

// LoadPreset loads a built-in preset as a playbook of its own.
func LoadPreset(name string) (*Playbook, error) {
	src, err := PresetSource(name)
	if err != nil {
		return nil, err
	}
	pb, findings := Parse("preset:"+name, src)
	if pb == nil {
		return nil, findings
	}
	return pb, nil
}

// extend merges the preset a playbook extends into it: rules and danger rules merge
// by name (the playbook's replace the preset's, in the preset's place; its new ones
// follow), and each top-level section the playbook does not give is the preset's.
func (d *decoder) extend(pb *Playbook) {
	base, err := LoadPreset(pb.Extends)
	if err != nil {
		d.report(pb.Pos, diag.Error, "schema", "extend one of "+strings.Join(Presets, ", "), "extends: %v", err)
		return
	}
	pb.Rules = mergeByName(base.Rules, pb.Rules, func(r *Rule) string { return r.Name })
	pb.Danger = mergeByName(base.Danger, pb.Danger, func(r *Danger) string { return r.Name })
	if !pb.keys["settings"] {
		pb.Settings = base.Settings
	}
	if !pb.keys["timeouts"] {
		pb.Timeouts = base.Timeouts
	}
	if !pb.keys["nudge"] {
		pb.Nudge = base.Nudge
	}
	if !pb.keys["steps"] {
		pb.Steps = base.Steps
	}
}

// mergeByName overlays mine on base by name.
func mergeByName[T any](base, mine []T, name func(T) string) []T {
	out := append([]T(nil), base...)
	for _, m := range mine {
		if i := slices.IndexFunc(out, func(b T) bool { return name(b) == name(m) }); i >= 0 {
			out[i] = m
			continue
		}
		out = append(out, m)
	}
	return out
}
