package playbooks

import (
	"embed"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// presetFiles are the built-in playbooks, one file a preset.
//
//go:embed presets/*.yaml
var presetFiles embed.FS

// PresetSource returns the YAML of a built-in preset.
func PresetSource(name string) ([]byte, error) {
	if !slices.Contains(presets, name) {
		return nil, fmt.Errorf("no preset %q (built in: %s)", name, strings.Join(presets, ", "))
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

// loadBase loads the preset pb extends, so that its settings, timeouts and nudge
// are what the playbook's own keys are decoded over. key is the extends: key.
func (d *decoder) loadBase(pb *Playbook, key ast.Node) {
	if pb.Extends == "" {
		return
	}
	d.extendsPos = d.pos(key)
	base, err := LoadPreset(pb.Extends)
	if err != nil {
		d.errorAt(key, "schema", "extend one of "+strings.Join(presets, ", "), "extends: %v", err)
		return
	}
	d.base = base
}

// inherited returns the settings, timeouts and nudge a playbook starts from: the
// preset's when it extends one, else the format's defaults (and no nudge).
func (d *decoder) inherited() (Settings, Timeouts, *Nudge) {
	if d.base != nil {
		var nudge *Nudge
		if d.base.Nudge != nil {
			n := *d.base.Nudge
			nudge = &n
		}
		return d.base.Settings, d.base.Timeouts, nudge
	}
	return Settings{Match: MatchStream, Settle: DefaultSettle, Window: DefaultWindow, MinSendInterval: DefaultMinSendInterval, Retry: true, Enter: EnterWithText},
		Timeouts{Step: DefaultStepTimeout, Prompt: DefaultPromptTimeout}, nil
}

// extend merges the rest of the preset a playbook extends into it: rules and
// danger rules merge by name (the playbook's replace the preset's, in the preset's
// place; its new ones follow), and the preset's steps are the playbook's when it
// gives none. Settings, timeouts and nudge merged key by key as they were decoded.
func (d *decoder) extend(pb *Playbook) {
	if d.base == nil {
		return
	}
	pb.Rules = mergeByName(d.base.Rules, pb.Rules, func(r *Rule) string { return r.Name })
	pb.Danger = mergeByName(d.base.Danger, pb.Danger, func(r *Danger) string { return r.Name })
	if !pb.keys["steps"] {
		pb.Steps = d.base.Steps
	}
}

// fromPreset reports whether p is a place in the preset the playbook extends.
func (d *decoder) fromPreset(p Pos) bool {
	return d.base != nil && p.Line != 0 && p.File == d.base.Path
}

// relocatePresetFindings moves each finding placed in the preset the playbook
// extends to the playbook's extends: line, saying where in the preset it is: the
// playbook is the file its author can change.
func (d *decoder) relocatePresetFindings() {
	for i, f := range d.diags {
		if d.fromPreset(f.Pos) {
			d.diags[i].Message = fmt.Sprintf("in the preset %s (its line %d): %s", d.base.Name, f.Pos.Line, f.Message)
			d.diags[i].Pos = d.extendsPos
		}
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
