package playbooks

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clai-sh/clai/internal/lazyre"
	"github.com/clai-sh/clai/playbooks/diag"
	"github.com/clai-sh/clai/playbooks/pattern"
)

// check runs the semantic checks on a playbook. Where it has errors, each
// check leaves out what they make unsure: a rule whose when: did not compile,
// timeouts one of which did not decode, names that may be lost.
func (d *decoder) check(pb *Playbook) {
	d.checkNames(pb)
	d.checkReachable(pb)
	d.checkDanger(pb)
	d.checkSecrets(pb)
	d.checkBounded(pb)
	d.checkTimeouts(pb)
	d.checkTestRefs(pb)
	d.checkRunnable(pb)
	d.checkSuggest(pb)
}

// checkRunnable reports what clai run would refuse to start (Refusals), unless
// the settings or the spawn it depends on did not decode. The preset's choose
// actions that a match: stream of the playbook leaves without a screen are one
// finding at that setting.
func (d *decoder) checkRunnable(pb *Playbook) {
	if d.unsure("settings.match", "spawn.tmux", "extends") {
		return
	}
	match := pb.Settings.MatchPos
	var presetLines []string
	for _, f := range pb.Refusals() {
		if d.fromPreset(f.Pos) && match.Line != 0 && !d.fromPreset(match) {
			presetLines = append(presetLines, strconv.Itoa(f.Pos.Line))
			continue
		}
		d.report(f.Pos, f.Severity, f.Rule, f.Hint, "%s", f.Message)
	}
	if len(presetLines) > 0 {
		lines := "line " + presetLines[0]
		if len(presetLines) > 1 {
			lines = "lines " + strings.Join(presetLines, ", ")
		}
		d.report(match, diag.Error, "needs-screen", "remove settings.match: stream; the preset finds its menus on the screen",
			"settings.match: stream set here leaves the preset %s's choose (its %s) without the screen it needs to see the menu", d.base.Name, lines)
	}
}

func (d *decoder) checkNames(pb *Playbook) {
	type named struct {
		pos  Pos
		name string
	}
	dup := func(kind string, items []named) {
		first := map[string]Pos{}
		for _, it := range items {
			if it.name == "" {
				continue
			}
			if p, ok := first[it.name]; ok {
				d.report(it.pos, diag.Error, "duplicate-name", "rename one of them; names identify "+kind+"s in logs and reports", "%s name %q is already used at line %d", kind, it.name, p.Line)
				continue
			}
			first[it.name] = it.pos
		}
	}
	var steps, rules, dangers, tests []named
	for _, s := range pb.Steps {
		steps = append(steps, named{s.Pos, s.Name})
	}
	for _, r := range pb.Rules {
		rules = append(rules, named{r.Pos, r.Name})
	}
	for _, r := range pb.Danger {
		dangers = append(dangers, named{r.Pos, r.Name})
	}
	for _, t := range pb.Tests {
		tests = append(tests, named{t.Pos, t.Name})
	}
	dup("step", steps)
	dup("rule", rules)
	dup("danger rule", dangers)
	dup("test", tests)
}

// onlyEOF reports whether a matcher matches nothing but the end of output.
func onlyEOF(m *pattern.Matcher) bool {
	if m == nil {
		return false
	}
	for _, p := range m.Patterns {
		if p.Kind != pattern.EOF {
			return false
		}
	}
	return true
}

func (d *decoder) checkReachable(pb *Playbook) {
	var blocker string
	for _, s := range pb.Steps {
		if blocker != "" {
			d.report(s.Pos, diag.Error, "unreachable", "remove the step or move it before the one that ends the run", "step %s can never run: %s", stepLabel(s), blocker)
			continue
		}
		if onlyEOF(s.Expect) {
			blocker = fmt.Sprintf("step %s waits for the program to end", stepLabel(s))
		}
		if len(s.Cases) > 0 {
			allRepeat, allEOF := true, true
			for _, c := range s.Cases {
				allRepeat = allRepeat && c.Repeat
				allEOF = allEOF && onlyEOF(c.Match)
			}
			switch {
			case allRepeat:
				blocker = fmt.Sprintf("every case of step %s repeats, so it never moves on", stepLabel(s))
			case allEOF:
				blocker = fmt.Sprintf("step %s waits for the program to end", stepLabel(s))
			}
		}
		for i, c := range s.Cases {
			for _, earlier := range s.Cases[:i] {
				if earlier.Match != nil && c.Match != nil && earlier.Match.String() == c.Match.String() {
					d.report(c.Pos, diag.Error, "unreachable", "remove the duplicate case or change its pattern", "this case of step %s can never match: an earlier case has the same pattern %s", stepLabel(s), c.Match)
					break
				}
			}
		}
	}
}

func stepLabel(s *Step) string {
	if s.Name != "" {
		return fmt.Sprintf("%q", s.Name)
	}
	return fmt.Sprintf("steps[%d]", s.Index)
}

// responder is a step, case or rule that answers what its pattern matches.
type responder struct {
	// item is the step or rule the responder belongs to.
	item  any
	what  string
	pos   Pos
	match *pattern.Matcher
	when  *Expr
	env   *Env
	act   *Action
}

func responders(pb *Playbook) []responder {
	var out []responder
	for _, s := range pb.Steps {
		if s.Expect != nil && s.Action != nil {
			out = append(out, responder{s, "step " + stepLabel(s), s.ExpectPos, s.Expect, nil, s.Env, s.Action})
		}
		for i, c := range s.Cases {
			if c.Match != nil && c.Action != nil {
				out = append(out, responder{s, fmt.Sprintf("case %d of step %s", i+1, stepLabel(s)), c.MatchPos, c.Match, nil, c.Env, c.Action})
			}
		}
	}
	for _, r := range pb.Rules {
		if r.Match != nil && r.Action != nil {
			out = append(out, responder{r, fmt.Sprintf("rule %q", r.Name), r.MatchPos, r.Match, r.When, r.Env, r.Action})
		}
	}
	return out
}

// matchValues returns the expression values of the first pattern of m matching text.
func matchValues(m *pattern.Matcher, text string) (Values, bool) {
	for _, p := range m.Patterns {
		if groups, named, ok := p.Groups(text); ok {
			return Values{Text: groups[0], Groups: groups, Named: named}, true
		}
	}
	return Values{}, false
}

func (d *decoder) checkDanger(pb *Playbook) {
	vars := map[string]string{}
	for _, v := range pb.Vars {
		vars[v.Name] = v.Value
	}
	for _, dr := range pb.Danger {
		if dr.Match == nil {
			continue // its pattern did not compile
		}
		for _, ex := range dr.Examples {
			if _, ok := matchValues(dr.Match, ex.Text); !ok {
				d.report(ex.Pos, diag.Error, "danger-example", "widen the pattern, or fix the example to be a text the program really prints", "danger rule %q does not match its own example %q", dr.Name, excerpt(ex.Text))
			}
		}
	}
	for _, r := range pb.Rules {
		if r.Match == nil {
			continue
		}
		for _, ex := range r.Examples {
			if _, ok := matchValues(r.Match, ex.Text); !ok {
				d.report(ex.Pos, diag.Error, "rule-example", "widen the pattern, or fix the example to be a text the program really prints", "rule %q does not match its own example %q", r.Name, excerpt(ex.Text))
			}
		}
	}
	for _, r := range responders(pb) {
		if d.incomplete[r.item] {
			continue // a when: or an action that did not decode may change it
		}
		for _, dr := range pb.Danger {
			for _, ex := range dr.Examples {
				vals, ok := matchValues(r.match, ex.Text)
				if !ok {
					continue
				}
				if r.when != nil {
					vals.Vars, vals.State = vars, "running"
					if hit, err := r.when.Eval(r.env, vals); err == nil && !hit {
						continue
					}
				}
				d.report(r.pos, diag.Warning, "danger-overlap", "narrow the pattern or add a when: that excludes it; danger rules are checked first, but this one would approve the prompt if the danger rule changed", "%s would answer danger rule %q's example %q", r.what, dr.Name, excerpt(ex.Text))
			}
		}
	}
}

// secretPrompt recognises prompts that ask for a password, passphrase, PIN or token.
var secretPrompt = &lazyre.Regexp{Expr: `(?i)pass(word|phrase|code)|\bpin\b|token|secret|api[ _-]?key|credential`}

// SecretPrompt reports whether text looks like a prompt for a password,
// passphrase, PIN or token.
func SecretPrompt(text string) bool { return secretPrompt.Get().MatchString(text) }

func (d *decoder) checkSecrets(pb *Playbook) {
	for _, r := range responders(pb) {
		if r.act.Kind != ActSend && r.act.Kind != ActLine {
			continue
		}
		if r.act.Text.IsStatic() && r.act.Text.Source == "" {
			continue // an empty answer, e.g. no passphrase
		}
		for _, p := range r.match.Patterns {
			if p.Kind != pattern.EOF && secretPrompt.Get().MatchString(p.Source) {
				d.report(r.act.Pos, diag.Warning, "literal-secret", "write secret: env:NAME (or file:PATH) so the value stays out of the playbook, logs and reports", "%s types a literal answer at what looks like a password prompt (%s)", r.what, p)
				break
			}
		}
	}
}

func (d *decoder) checkBounded(pb *Playbook) {
	for _, r := range pb.Rules {
		if r.Cooldown == 0 && r.Limit == 0 && !d.incomplete[r] {
			d.report(r.Pos, diag.Warning, "unbounded", "add limit: N (then the run escalates) or cooldown: 2s", "rule %q has neither cooldown nor limit: a program that repeats its prompt is answered forever", r.Name)
		}
	}
}

// setting is a value a consistency check compares, and where it was written (zero
// when it is the default).
type setting struct {
	name, value string
	pos         Pos
}

func durationSetting(name string, v time.Duration, p Pos) setting {
	return setting{name, v.String(), p}
}

// nudgeSetting is the nudge's gap and max as one value, placed where the playbook
// gives one of them, else where the preset does.
func (d *decoder) nudgeSetting(n *Nudge) setting {
	gap, max := "gap "+n.Gap.String(), fmt.Sprintf("max %d", n.Max)
	pos := n.GapPos
	switch {
	case d.fromPreset(n.GapPos) && !d.fromPreset(n.MaxPos):
		gap += " of the preset " + d.base.Name
		pos = n.MaxPos
	case d.fromPreset(n.MaxPos) && !d.fromPreset(n.GapPos):
		max += " of the preset " + d.base.Name
	}
	return setting{"nudge", fmt.Sprintf("(%s, %s)", gap, max), pos}
}

// describe names each setting with its value and, when they come from both the
// playbook and the preset it extends, with where each comes from.
func (d *decoder) describe(ss ...setting) []string {
	mixed := slices.ContainsFunc(ss, func(s setting) bool { return d.fromPreset(s.pos) })
	out := make([]string, len(ss))
	for i, s := range ss {
		switch {
		case d.fromPreset(s.pos):
			out[i] = fmt.Sprintf("the preset %s's %s %s", d.base.Name, s.name, s.value)
		case mixed && s.pos.Line != 0:
			out[i] = fmt.Sprintf("%s %s set here", s.name, s.value)
		default:
			out[i] = fmt.Sprintf("%s %s", s.name, s.value)
		}
	}
	return out
}

// placeOf is where a finding about how settings combine goes: the first of them
// the playbook itself writes, else its extends: line, else the first written at
// all, else the playbook's start.
func (d *decoder) placeOf(pb *Playbook, ss ...setting) Pos {
	for _, s := range ss {
		if s.pos.Line != 0 && !d.fromPreset(s.pos) {
			return s.pos
		}
	}
	if d.base != nil {
		return d.extendsPos
	}
	for _, s := range ss {
		if s.pos.Line != 0 {
			return s.pos
		}
	}
	return pb.Pos
}

// combined reports a finding about settings that contradict each other; format
// takes one %s per setting, each described by describe.
func (d *decoder) combined(pb *Playbook, sev diag.Severity, rule, hint, format string, ss ...setting) {
	args := make([]any, len(ss))
	for i, s := range d.describe(ss...) {
		args[i] = s
	}
	d.report(d.placeOf(pb, ss...), sev, rule, hint, format, args...)
}

// checkTimeouts checks the timeouts, settle and nudge against each other. A time
// limit that can never fire (the run ends first) is a warning; idle not longer
// than settle, which makes the run misbehave at every prompt, is an error.
func (d *decoder) checkTimeouts(pb *Playbook) {
	if d.unsure("timeouts", "settings.settle", "nudge", "extends") {
		return
	}
	t := pb.Timeouts
	total := durationSetting("timeouts.total", t.Total, t.TotalPos)
	idle := durationSetting("timeouts.idle", t.Idle, t.IdlePos)
	if t.Total > 0 {
		if t.StepPos.Line != 0 && t.Step > t.Total {
			d.combined(pb, diag.Warning, "never-fires", "lower timeouts.step or raise timeouts.total", "%s is longer than %s: the run ends before a step times out", durationSetting("timeouts.step", t.Step, t.StepPos), total)
		}
		for _, s := range pb.Steps {
			if s.Timeout > t.Total && s.Timeout != t.Step {
				d.combined(pb, diag.Warning, "never-fires", "lower the step's timeout or raise timeouts.total", "%s is longer than %s: the run ends before the step times out", durationSetting(fmt.Sprintf("step %s's timeout", stepLabel(s)), s.Timeout, s.Pos), total)
			}
		}
		if t.Idle > t.Total {
			d.combined(pb, diag.Warning, "never-fires", "lower timeouts.idle or raise timeouts.total", "%s is longer than %s, so idle never fires", idle, total)
		}
		if t.PromptPos.Line != 0 && t.Prompt > t.Total {
			d.combined(pb, diag.Warning, "never-fires", "lower timeouts.prompt or raise timeouts.total", "%s is longer than %s: the run ends before a prompt nobody answers is given up", durationSetting("timeouts.prompt", t.Prompt, t.PromptPos), total)
		}
	}
	if t.Idle > 0 && pb.Settings.Settle >= t.Idle {
		d.combined(pb, diag.Error, "timeouts", "make settings.settle shorter than timeouts.idle", "%s is not longer than %s: the program is declared idle before clai sees it waiting at a prompt", idle, durationSetting("settings.settle", pb.Settings.Settle, pb.Settings.SettlePos))
	}
	if n := pb.Nudge; n != nil {
		nudge := d.nudgeSetting(n)
		switch span := t.Idle + n.Gap*time.Duration(n.Max); {
		case t.Idle == 0:
			d.combined(pb, diag.Warning, "never-fires", "set timeouts.idle, the quiet time after which nudges start", "%s never runs: timeouts.idle is not set", nudge)
		case t.Total > 0 && t.Idle <= t.Total && span > t.Total:
			d.combined(pb, diag.Warning, "never-fires", "shorten nudge.gap or lower nudge.max, or raise timeouts.total",
				"%s, then %s, hand over to a person "+span.String()+" after the program falls quiet, later than %s: the run ends before the last nudge", idle, nudge, total)
		}
	}
}

func (d *decoder) checkTestRefs(pb *Playbook) {
	if d.namesUnsure {
		return
	}
	var names []string
	for _, r := range pb.Rules {
		names = append(names, r.Name)
	}
	for _, r := range pb.Danger {
		names = append(names, r.Name)
	}
	for _, s := range pb.Steps {
		if s.Name != "" {
			names = append(names, s.Name)
		}
	}
	declared := map[string]bool{}
	var varNames []string
	for _, v := range pb.Vars {
		declared[v.Name] = true
		varNames = append(varNames, v.Name)
	}
	for _, t := range pb.Tests {
		for _, v := range t.Vars {
			if !declared[v.Name] {
				msg := fmt.Sprintf("test %q sets vars.%s, which the playbook does not declare", t.Name, v.Name)
				if c := closest(v.Name, varNames); c != "" {
					msg += fmt.Sprintf("; did you mean %q?", c)
				}
				d.report(v.Pos, diag.Error, "reference", "declare it under the playbook's vars:, or set one it declares", "%s", msg)
			}
		}
		for _, f := range t.Expect.Fired {
			if !slices.Contains(names, f) {
				msg := fmt.Sprintf("test %q expects %q to fire, but no rule, danger rule or step has that name", t.Name, f)
				if c := closest(f, names); c != "" {
					msg += fmt.Sprintf("; did you mean %q?", c)
				}
				d.report(t.Pos, diag.Error, "reference", "name a rule, danger rule or step of this playbook", "%s", msg)
			}
		}
	}
}

// excerpt shortens a text for a message.
func excerpt(s string) string {
	r := []rune(s)
	if len(r) > 60 {
		return string(r[:57]) + "..."
	}
	return s
}
