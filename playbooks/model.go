// Package playbooks loads clai playbooks: it decodes the YAML strictly, keeping the
// file:line:col of every element, applies defaults, compiles patterns, expressions and
// templates once, and checks the result. A loaded Playbook is the plan the runner
// executes; Lint adds the checks that only report.
package playbooks

import (
	"path/filepath"
	"time"

	"github.com/clai-sh/clai/playbooks/diag"
	"github.com/clai-sh/clai/playbooks/pattern"
)

// Pos is the place of an element in its playbook file.
type Pos = diag.Pos

// Playbook is a loaded, compiled playbook.
type Playbook struct {
	Pos
	// Path is the file the playbook was read from; Source its bytes.
	Path   string
	Source []byte

	Version     int
	Name        string
	Description string
	// Extends names a built-in preset the playbook starts from, or "".
	Extends  string
	Spawn    Spawn
	Vars     []Var
	Settings Settings
	Timeouts Timeouts
	Steps    []*Step
	Rules    []*Rule
	Danger   []*Danger
	// Nudge is nil when the playbook has no nudge section.
	Nudge *Nudge
	// Notify are the playbook's notification targets (the user config's
	// are added when the run starts).
	Notify []*Notify
	// Answerer is the model that answers the easy questions, nil for none
	// (the user config's is used when the run starts).
	Answerer *Answerer
	// Suggest says where the questions' suggestions come from; nil for
	// none.
	Suggest *Suggest
	// Channels are the names of the user config's channels and notify
	// targets the run uses: nil (the playbook says nothing) is every one,
	// empty is none. ChannelsPos is where the list is written.
	Channels    []string
	ChannelsPos Pos
	Tests       []*Test

	// keys are the top-level keys the file gives, so extends knows what the
	// playbook sets itself.
	keys map[string]bool
}

// ResolvePath returns path as an absolute path: a relative one is taken from
// the playbook's folder, as spawn.dir, a file: secret and a test's cast: are.
func (pb *Playbook) ResolvePath(path string) string {
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(pb.Path), path)
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// Var is a playbook variable with its default value.
type Var struct {
	Pos
	Name  string
	Value string
}

// Spawn says what program to run and how.
type Spawn struct {
	Pos
	// Command is the argv, unexpanded; Shell a command line for $SHELL -c. One is set,
	// unless Tmux targets an existing pane.
	Command []string
	Shell   string
	Env     []EnvVar
	// Dir is the working directory as written; relative paths are relative to the
	// playbook's folder. "" means the current directory.
	Dir string
	// Size is nil when the playbook leaves the terminal size to the user's terminal.
	Size *TermSize
	Tmux *Tmux
	// templates are the compiled {{ }} templates of the values above, by their
	// text as written; env is the environment they compiled in.
	templates map[string]*Template
	env       *Env
}

// EnvVar is one entry of spawn.env, unexpanded.
type EnvVar struct {
	Name  string
	Value string
}

// TermSize is a terminal size in character cells.
type TermSize struct {
	Rows int
	Cols int
}

// Tmux makes clai drive a tmux pane instead of a pseudo-terminal of its own.
type Tmux struct {
	Pos
	// Target is an existing pane ("work:0.1"); Session the name of a detached session
	// clai starts with the spawn command.
	Target  string
	Session string
}

// MatchMode says what patterns are matched against.
type MatchMode string

// The match modes of settings.match.
const (
	MatchStream MatchMode = "stream"
	MatchScreen MatchMode = "screen"
)

// Settings tune matching and pacing.
// EnterMode says how a program takes the Enter that ends a typed line.
type EnterMode string

const (
	// EnterWithText types a line's text and its Enter in one write, as a
	// person's terminal sends a pasted line: what most programs read.
	EnterWithText EnterMode = "with-text"
	// EnterAfterText types the text, then the Enter once the text shows:
	// for programs that read text and Enter arriving together as a paste,
	// whose Enter then becomes a new line in their input box.
	EnterAfterText EnterMode = "after-text"
)

// Settings are the playbook's settings: how it matches, sends and is bounded.
type Settings struct {
	// Match is the effective match mode: screen whenever spawn.tmux is set,
	// since a pane can only be read as a screen.
	Match           MatchMode
	Settle          time.Duration
	Window          int64
	MinSendInterval time.Duration
	// Retry sends an answer once more when the program showed nothing at all
	// after it while still showing the question it answered (default true).
	Retry bool
	// Enter says how the program takes the Enter that ends a typed line.
	Enter EnterMode

	// MatchPos and SettlePos are where match and settle were written, for
	// findings; zero when defaulted.
	MatchPos, SettlePos Pos
}

// Timeouts are the run's time limits; zero means no limit.
type Timeouts struct {
	Total  time.Duration
	Step   time.Duration
	Idle   time.Duration
	Prompt time.Duration

	// Where each was written, for findings; zero when defaulted.
	TotalPos, StepPos, IdlePos, PromptPos Pos
}

// Step is one entry of steps: wait for Expect, then act.
type Step struct {
	Pos
	Name  string
	Index int
	// Expect is nil for a step that acts at once; ExpectPos is where it is
	// written.
	Expect    *pattern.Matcher
	ExpectPos Pos
	// Cases is set instead of Expect and Action for a branching step.
	Cases  []*Case
	Action *Action
	// Timeout is the step's own limit, or timeouts.step; zero (no limit of
	// its own) for an `expect: eof` step without one.
	Timeout time.Duration
	// Env is the expression environment of the step's templates.
	Env *Env
	// single is the one case Branches makes of Expect and Action.
	single []*Case
}

// Branches returns what the step waits for as a list of cases: its own cases, or
// one case made of its expect and action; nil for a step that acts at once.
func (s *Step) Branches() []*Case {
	if s.Cases != nil || s.Expect == nil {
		return s.Cases
	}
	if s.single == nil {
		s.single = []*Case{{Pos: s.Pos, Match: s.Expect, MatchPos: s.ExpectPos, Action: s.Action, Env: s.Env}}
	}
	return s.single
}

// Waits reports whether the step waits for a pattern.
func (s *Step) Waits() bool { return s.Expect != nil || len(s.Cases) > 0 }

// Actions lists the actions of every step, case and rule, in file order (danger
// refusals are not among them).
func (pb *Playbook) Actions() []*Action {
	var out []*Action
	for _, s := range pb.Steps {
		if s.Action != nil {
			out = append(out, s.Action)
		}
		for _, c := range s.Cases {
			if c.Action != nil {
				out = append(out, c.Action)
			}
		}
	}
	for _, r := range pb.Rules {
		if r.Action != nil {
			out = append(out, r.Action)
		}
	}
	return out
}

// Case is one branch of a step's expect list.
type Case struct {
	Pos
	// Match is what the case waits for; MatchPos is where it is written.
	Match    *pattern.Matcher
	MatchPos Pos
	Action   *Action
	Repeat   bool
	Env      *Env
}

// Rule is a reactive answer, active during the whole run.
type Rule struct {
	Pos
	Name string
	// Match is what the rule answers; MatchPos is where it is written.
	Match    *pattern.Matcher
	MatchPos Pos
	When     *Expr
	Action   *Action
	Cooldown time.Duration
	// Limit is how often the rule may fire; 0 means no limit.
	Limit int
	// Examples are texts the rule must match (lint proves it).
	Examples []Example
	Env      *Env
}

// DangerAction is what a danger rule does when it matches.
type DangerAction string

// The danger actions.
const (
	DangerManual DangerAction = "manual"
	DangerDeny   DangerAction = "deny"
	DangerAbort  DangerAction = "abort"
)

// Danger is a prompt that must never be auto-approved.
type Danger struct {
	Pos
	Name   string
	Match  *pattern.Matcher
	Action DangerAction
	// Refusal is what deny sends; nil for manual and abort.
	Refusal  *Action
	Examples []Example
	Env      *Env
}

// Example is a text a danger rule must match.
type Example struct {
	Pos
	Text string
}

// Nudge is what clai sends when the program goes idle.
type Nudge struct {
	Pos
	Sequence []string
	Gap      time.Duration
	Max      int

	// Where gap and max were written (the nudge section itself when defaulted
	// there), for findings.
	GapPos, MaxPos Pos
}

// Test is one of the playbook's own tests.
type Test struct {
	Pos
	Name   string
	Output string
	Cast   string
	Size   *TermSize
	// Project is the folder the program is taken to work in, for readOnly
	// and projectCode, as written ("": the current folder).
	Project string
	// Vars override the playbook's variables for this test.
	Vars   []Var
	Expect TestExpect
}

// TestExpect is what must hold at the end of a test; nil fields are not checked.
type TestExpect struct {
	State *string
	Sent  *string
	Fired []string
	Exit  *int
}

// ActionKind names what an action sends.
type ActionKind string

// The action kinds.
const (
	ActSend   ActionKind = "send"
	ActLine   ActionKind = "line"
	ActKeys   ActionKind = "keys"
	ActChoose ActionKind = "choose"
	ActSecret ActionKind = "secret"
)

// Action is what a step, case, rule or danger refusal sends.
type Action struct {
	Pos
	Kind ActionKind
	// Text is the template of send and line.
	Text *Template
	// Keys are the named keys of a keys action.
	Keys []Key
	// Choose is the label of a choose action.
	Choose *pattern.Pattern
	// Secret is where a secret action's value comes from.
	Secret SecretRef
}

// SecretSource says where a secret comes from.
type SecretSource string

// The secret sources.
const (
	SecretEnv  SecretSource = "env"
	SecretFile SecretSource = "file"
)

// SecretRef names a secret without holding its value.
type SecretRef struct {
	Source SecretSource
	// Name is the environment variable or the file path.
	Name string
}
