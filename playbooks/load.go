package playbooks

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/clai-sh/clai/internal/lazyre"
	"github.com/clai-sh/clai/playbooks/diag"
)

// Defaults of the format (docs/playbook.md).
const (
	DefaultSettle          = 300 * time.Millisecond
	DefaultWindow          = 8 << 10
	DefaultMinSendInterval = 200 * time.Millisecond
	DefaultStepTimeout     = 30 * time.Second
	DefaultPromptTimeout   = 5 * time.Minute
	DefaultNudgeGap        = time.Second
	DefaultNudgeMax        = 3
)

// MaxTermSize is the most rows and columns a terminal size (spawn.size, a test's
// size) may give.
const MaxTermSize = 1000

// defaultNudgeSequence is what nudge sends when the playbook names no sequence.
var defaultNudgeSequence = []string{"\r", "y\r", "continue\r"}

// presets are the names extends accepts.
var presets = []string{"claude-code", "codex", "gemini", "aider", "apt"}

// Presets returns the names extends accepts.
// A new copy each call: callers may change it.
func Presets() []string { return slices.Clone(presets) }

// Parse decodes and compiles a playbook and runs every check on it. It returns the
// playbook, or nil when it has errors, and all findings, sorted. A file over one of
// the bounds (MaxFileSize, MaxDepth, MaxNodes, MaxKeys) is not parsed: its one
// finding says which and where.
func Parse(name string, src []byte) (*Playbook, diag.List) {
	if f, exceeded := checkBounds(name, src); exceeded {
		return nil, diag.List{f}
	}
	d := &decoder{file: name, typos: map[ast.Node]map[string]bool{}}
	pb := d.playbook(src)
	if pb != nil {
		// The checks run also when the playbook has errors, so one pass shows
		// all: each leaves out what an error makes unsure.
		d.extend(pb)
		d.check(pb)
		d.relocatePresetFindings()
	}
	d.diags.Sort()
	if d.diags.HasErrors() {
		return nil, d.diags
	}
	return pb, d.diags
}

// document parses src, one YAML document, and returns its root with its
// aliases linked, or nil when there is none; emptyHint says what an empty
// file should start with ("": an empty file is no error).
func (d *decoder) document(src []byte, emptyHint string) ast.Node {
	file, err := parser.ParseBytes(src, 0)
	if err != nil {
		d.syntaxError(err)
		return nil
	}
	var docs []*ast.DocumentNode
	for _, doc := range file.Docs {
		if doc.Body != nil {
			docs = append(docs, doc)
		}
	}
	if len(docs) == 0 {
		if emptyHint != "" {
			d.report(Pos{File: d.file, Line: 1, Col: 1}, diag.Error, "schema", emptyHint, "the file is empty")
		}
		return nil
	}
	if len(docs) > 1 {
		d.errorAt(docs[1], "yaml", "put each playbook in a file of its own", "the file holds %d YAML documents, a playbook is one", len(docs))
	}
	root := docs[0].Body
	d.linkAliases(root)
	return root
}

func (d *decoder) playbook(src []byte) *Playbook {
	root := d.document(src, "start with version: 1, name: and spawn:")
	if root == nil {
		return nil
	}
	pb := &Playbook{Pos: d.pos(root), Path: d.file, Source: src}
	top := []string{"version", "name", "description", "extends", "spawn", "vars", "settings", "timeouts", "steps", "rules", "danger", "nudge", "notify", "answerer", "suggest", "channels", "tests"}
	present, ok := d.fields(root, "the playbook", top, func(string, ast.Node) {})
	if !ok {
		return nil
	}
	pb.keys = map[string]bool{}
	for k := range present {
		pb.keys[k] = true
	}
	for _, k := range top {
		if d.mistyped(root, k) {
			// A section under a misspelt key is not there: checks that
			// depend on it would compare the defaults.
			d.markUnsure(k)
			d.namesUnsure = d.namesUnsure || k == "steps" || k == "rules" || k == "danger"
		}
	}
	d.require(root, present, "the playbook", "version", "name", "spawn")
	if e, ok := present["version"]; ok {
		if v, ok := d.resolve(e.value).(*ast.IntegerNode); ok && intValue(v) != 1 {
			d.errorAt(v, "schema", "write version: 1", "version %d is not supported: this clai reads playbook version 1", intValue(v))
		} else if v, ok := d.integer(e.value, "version", 1, 1); ok {
			pb.Version = v
		}
	}
	if e, ok := present["name"]; ok {
		pb.Name, _ = d.text(e.value, "name")
		d.checkName(e.value, pb.Name)
	}
	if e, ok := present["description"]; ok {
		pb.Description, _ = d.str(e.value, "description")
	}
	if e, ok := present["extends"]; ok {
		before := d.errors
		pb.Extends = d.enum(e.value, "extends", presets)
		d.loadBase(pb, e.keyN)
		if d.errorsSince(before) {
			d.markUnsure("extends")
		}
	} else if d.mistyped(root, "extends") {
		d.markUnsure("extends")
	}
	if e, ok := present["vars"]; ok {
		pb.Vars = d.vars(e.value)
	}
	if d.base != nil {
		// The preset's variables, with the playbook's values over them.
		pb.Vars = mergeByName(d.base.Vars, pb.Vars, func(v Var) string { return v.Name })
	}
	varNames := make([]string, len(pb.Vars))
	for i, v := range pb.Vars {
		varNames[i] = v.Name
	}
	if e, ok := present["spawn"]; ok {
		pb.Spawn = d.spawn(e.value, varNames)
	} else {
		d.markUnsure("spawn")
	}
	pb.Settings, pb.Timeouts, pb.Nudge = d.inherited()
	if e, ok := present["settings"]; ok {
		d.settings(e.value, &pb.Settings)
	}
	d.tmuxReadsTheScreen(pb)
	if e, ok := present["timeouts"]; ok {
		d.timeouts(e.value, &pb.Timeouts)
	}
	if e, ok := present["steps"]; ok {
		pb.Steps = decodeItems(d, e.value, "steps", func(item ast.Node, i int) *Step {
			return d.step(item, i, varNames, pb.Timeouts.Step)
		})
	}
	if e, ok := present["rules"]; ok {
		pb.Rules = decodeItems(d, e.value, "rules", func(item ast.Node, i int) *Rule {
			return d.rule(item, i, varNames)
		})
	}
	if e, ok := present["danger"]; ok {
		pb.Danger = decodeItems(d, e.value, "danger", func(item ast.Node, i int) *Danger {
			return d.danger(item, i, varNames)
		})
	}
	if e, ok := present["nudge"]; ok {
		pb.Nudge = d.nudge(e.value, pb.Nudge)
	}
	if e, ok := present["notify"]; ok {
		pb.Notify = d.notifyList(e.value, false)
	}
	if e, ok := present["answerer"]; ok {
		pb.Answerer = d.answerer(e.value, false)
	}
	if e, ok := present["suggest"]; ok {
		pb.Suggest = d.suggest(e.value)
	}
	if e, ok := present["channels"]; ok {
		pb.Channels, pb.ChannelsPos = d.channelNames(e.value), d.pos(d.resolve(e.value))
	}
	if e, ok := present["tests"]; ok {
		items, _ := d.seq(e.value, "tests")
		for i, item := range items {
			if t := d.test(item, i); t != nil {
				pb.Tests = append(pb.Tests, t)
			}
		}
	}
	return pb
}

// decodeItems decodes the list of a section (steps, rules, danger) an item at a
// time. An item with an error is marked incomplete; a list that is not one, or
// an item that is dropped, makes the names of the playbook unsure.
func decodeItems[T any](d *decoder, n ast.Node, section string, decode func(item ast.Node, i int) *T) []*T {
	items, ok := d.seq(n, section)
	if !ok {
		d.namesUnsure = true
	}
	var out []*T
	for i, item := range items {
		before := d.errors
		it := decode(item, i)
		if it == nil {
			d.namesUnsure = true
			continue
		}
		if d.errorsSince(before) {
			d.markIncomplete(it)
		}
		out = append(out, it)
	}
	return out
}

// syntaxError reports a YAML parse error at its position.
func (d *decoder) syntaxError(err error) {
	var ye yaml.Error
	p := Pos{File: d.file, Line: 1, Col: 1}
	msg := err.Error()
	if errors.As(err, &ye) {
		msg = ye.GetMessage()
		if tk := ye.GetToken(); tk != nil {
			p.Line, p.Col = tk.Position.Line, tk.Position.Column
		}
	}
	d.report(p, diag.Error, "yaml", "check indentation, quoting and brackets around this place", "invalid YAML: %s", msg)
}

// enum decodes a string that must be one of allowed.
func (d *decoder) enum(n ast.Node, what string, allowed []string) string {
	s, ok := d.str(n, what)
	if !ok {
		return ""
	}
	if !slices.Contains(allowed, s) {
		msg := fmt.Sprintf("%s %q is not one of %s", what, s, strings.Join(allowed, ", "))
		if c := closest(s, allowed); c != "" {
			msg += fmt.Sprintf("; did you mean %q?", c)
		}
		d.errorAt(d.resolve(n), "schema", "write one of "+strings.Join(allowed, ", "), "%s", msg)
		return ""
	}
	return s
}

var identifier = &lazyre.Regexp{Expr: `^[A-Za-z_][A-Za-z0-9_]*$`}

func (d *decoder) vars(n ast.Node) []Var {
	es, ok := d.entries(n, "vars")
	if !ok {
		return nil
	}
	var out []Var
	for _, e := range es {
		if !identifier.Get().MatchString(e.key) {
			d.errorAt(e.keyN, "schema", "use letters, digits and _ (a name expressions can use as vars.NAME)", "variable name %q is not an identifier", e.key)
			continue
		}
		v, _ := d.str(e.value, "vars."+e.key)
		out = append(out, Var{Pos: d.pos(e.keyN), Name: e.key, Value: v})
	}
	return out
}

func (d *decoder) spawn(n ast.Node, vars []string) Spawn {
	s := Spawn{Pos: d.pos(n), env: d.envFor(nil, false, vars)}
	present, ok := d.trackedFields(n, "spawn", []string{"command", "shell", "env", "dir", "size", "tmux"}, func(key string, v ast.Node) {
		switch key {
		case "command":
			var ok bool
			s.Command, ok = d.strings(v, "spawn.command")
			if items, isSeq := d.resolve(v).(*ast.SequenceNode); isSeq && ok {
				for i, a := range s.Command {
					d.spawnTemplate(&s, items.Values[i], a, fmt.Sprintf("command[%d]", i))
					d.spawnExpansion(&s, items.Values[i], a, fmt.Sprintf("command[%d]", i))
				}
			}
			if ok && len(s.Command) > 0 && s.Command[0] == "" {
				d.errorAt(v, "schema", "the first entry is the program to run", "spawn.command names no program")
			}
			if len(s.Command) == 0 {
				if _, isSeq := d.resolve(v).(*ast.SequenceNode); isSeq {
					d.errorAt(v, "schema", "write the program and its arguments, e.g. [ssh-keygen, -t, ed25519]", "spawn.command is an empty list")
				}
			}
		case "shell":
			s.Shell, _ = d.str(v, "spawn.shell")
			d.spawnTemplate(&s, v, s.Shell, "shell")
			d.spawnExpansion(&s, v, s.Shell, "shell")
			if strings.TrimSpace(s.Shell) == "" {
				d.errorAt(v, "schema", "write the command line to run", "spawn.shell is empty")
			}
		case "env":
			es, _ := d.entries(v, "spawn.env")
			for _, e := range es {
				val, _ := d.str(e.value, "spawn.env."+e.key)
				d.spawnTemplate(&s, e.value, val, "env."+e.key)
				d.spawnExpansion(&s, e.value, val, "env."+e.key)
				s.Env = append(s.Env, EnvVar{Name: e.key, Value: val})
			}
		case "dir":
			s.Dir, _ = d.str(v, "spawn.dir")
			d.spawnTemplate(&s, v, s.Dir, "dir")
			d.spawnExpansion(&s, v, s.Dir, "dir")
		case "size":
			s.Size = d.termSize(v, "spawn.size")
		case "tmux":
			s.Tmux = d.tmux(v, &s)
		}
	})
	if !ok {
		return s
	}
	_, hasCommand := present["command"]
	_, hasShell := present["shell"]
	switch {
	case s.Tmux != nil && s.Tmux.Target != "":
		if hasCommand || hasShell {
			d.errorAt(n, "schema", "remove command/shell, or use tmux: {session: NAME} to start the command in a new session", "spawn.tmux.target drives a pane that already runs a program, so spawn takes no command or shell")
		}
	case hasCommand && hasShell:
		d.errorAt(present["shell"].keyN, "schema", "keep one: command: [argv…] runs without a shell, shell: \"…\" runs through $SHELL -c", "spawn has both command and shell")
	case !hasCommand && !hasShell && !d.mistyped(n, "command") && !d.mistyped(n, "shell"):
		d.errorAt(n, "schema", "add command: [program, args…] or shell: \"command line\"", "spawn has neither command nor shell")
	}
	return s
}

func (d *decoder) termSize(n ast.Node, what string) *TermSize {
	t := &TermSize{}
	present, ok := d.fields(n, what, []string{"rows", "cols"}, func(key string, v ast.Node) {
		if key == "rows" {
			t.Rows, _ = d.integer(v, sub(what, "rows"), 1, MaxTermSize)
		} else {
			t.Cols, _ = d.integer(v, sub(what, "cols"), 1, MaxTermSize)
		}
	})
	if !ok || !d.require(n, present, what, "rows", "cols") {
		return nil
	}
	return t
}

func (d *decoder) tmux(n ast.Node, s *Spawn) *Tmux {
	t := &Tmux{Pos: d.pos(n)}
	present, ok := d.trackedFields(n, "spawn.tmux", []string{"target", "session"}, func(key string, v ast.Node) {
		if key == "target" {
			t.Target, _ = d.text(v, "spawn.tmux.target")
			d.spawnExpansion(s, v, t.Target, "tmux.target")
		} else {
			t.Session, _ = d.text(v, "spawn.tmux.session")
			d.spawnExpansion(s, v, t.Session, "tmux.session")
			if err := TmuxSessionName(t.Session); err != nil {
				d.errorAt(d.resolve(v), "schema", "name the session with letters, digits, - and _", "spawn.tmux.session: %v", err)
			}
		}
	})
	if !ok {
		return nil
	}
	if len(present) != 1 {
		d.errorAt(n, "schema", `write {target: "session:window.pane"} to drive a pane, or {session: NAME} to start one`, "spawn.tmux needs exactly one of target and session")
		return nil
	}
	return t
}

func (d *decoder) settings(n ast.Node, s *Settings) {
	d.trackedFields(n, "settings", []string{"match", "settle", "window", "min_send_interval", "retry", "enter"}, func(key string, v ast.Node) {
		switch key {
		case "match":
			if m := d.enum(v, "settings.match", []string{"stream", "screen"}); m != "" {
				s.Match, s.MatchPos = MatchMode(m), d.pos(d.resolve(v))
			}
		case "settle":
			s.Settle, _ = d.duration(v, "settings.settle")
			s.SettlePos = d.pos(d.resolve(v))
		case "window":
			if w, ok := d.size(v, "settings.window"); ok {
				s.Window = w
			}
		case "min_send_interval":
			s.MinSendInterval, _ = d.duration(v, "settings.min_send_interval")
		case "retry":
			if r, ok := d.boolean(v, "settings.retry"); ok {
				s.Retry = r
			}
		case "enter":
			if m := d.enum(v, "settings.enter", []string{string(EnterWithText), string(EnterAfterText)}); m != "" {
				s.Enter = EnterMode(m)
			}
		}
	})
}

// tmuxReadsTheScreen makes a playbook that drives a tmux pane match on the
// screen: a pane is read as a screen, never as a stream. A match: stream
// written for it stays, for Refusals to report.
func (d *decoder) tmuxReadsTheScreen(pb *Playbook) {
	if s := &pb.Settings; pb.Spawn.Tmux != nil && s.MatchPos.Line == 0 {
		s.Match = MatchScreen
	}
}

func (d *decoder) timeouts(n ast.Node, t *Timeouts) {
	d.trackedFields(n, "timeouts", []string{"total", "step", "idle", "prompt"}, func(key string, v ast.Node) {
		dur, ok := d.duration(v, "timeouts."+key)
		if !ok {
			return
		}
		p := d.pos(d.resolve(v))
		switch key {
		case "total":
			t.Total, t.TotalPos = dur, p
		case "step":
			t.Step, t.StepPos = dur, p
		case "idle":
			t.Idle, t.IdlePos = dur, p
		case "prompt":
			t.Prompt, t.PromptPos = dur, p
		}
	})
}

// nudge decodes a nudge section over base, the preset's nudge (nil for none):
// the keys it gives replace base's, the others stay.
func (d *decoder) nudge(n ast.Node, base *Nudge) *Nudge {
	nu := &Nudge{Sequence: defaultNudgeSequence, Gap: DefaultNudgeGap, Max: DefaultNudgeMax, GapPos: d.pos(n), MaxPos: d.pos(n)}
	if base != nil {
		*nu = *base
	}
	nu.Pos = d.pos(n)
	d.trackedFields(n, "nudge", []string{"sequence", "gap", "max"}, func(key string, v ast.Node) {
		switch key {
		case "sequence":
			seq, ok := d.strings(v, "nudge.sequence")
			if ok && len(seq) == 0 {
				d.errorAt(v, "schema", `list what to send, e.g. ["\r", "continue\r"]`, "nudge.sequence is empty")
			} else if ok {
				nu.Sequence = seq
			}
		case "gap":
			nu.Gap, _ = d.duration(v, "nudge.gap")
			nu.GapPos = d.pos(d.resolve(v))
		case "max":
			nu.Max, _ = d.integer(v, "nudge.max", 1, 1000)
			nu.MaxPos = d.pos(d.resolve(v))
		}
	})
	return nu
}
