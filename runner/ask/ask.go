// Package ask is the human loop's vocabulary: the questions a run opens when a
// person is needed, the answers that come back from a terminal, another
// terminal, a web page or a phone, the reasons an answer is refused, and the
// updates a run publishes for those who watch it from elsewhere (see
// docs/questions.md). It holds types only; the session opens and closes the
// questions and types the answers.
package ask

import (
	"context"
	"slices"
	"time"
)

// Reason is why a question was opened.
type Reason string

// The reasons a run opens a question.
const (
	// Prompt: the program waits at a prompt no rule answers (PROMPTING).
	Prompt Reason = "prompt"
	// Danger: a danger rule handed the run over to a person.
	Danger Reason = "danger"
	// Limit: a rule reached its limit.
	Limit Reason = "limit"
	// Choose: a choose could not find its option.
	Choose Reason = "choose"
	// Interrupt: the person pressed Ctrl-C at clai's terminal.
	Interrupt Reason = "interrupt"
	// Idle: the nudges got no output.
	Idle Reason = "idle"
	// Tool: the program asked through a question tool of its own, which a
	// question source follows (Claude Code's AskUserQuestion).
	Tool Reason = "tool"
)

// Option is a choice clai can see in the question: an entry of the menu
// choose would read, or one of the choices of a [y/N]-style prompt.
type Option struct {
	// Label is the option as the program shows it ("Yes", "y").
	Label string `json:"label"`
	// Description says more of the option, when the program does.
	Description string `json:"description,omitempty"`
}

// Suggestion is an answer offered for a question: what people answered to
// the same question before.
type Suggestion struct {
	// Text is the answer: an option's label when Option is set (it is
	// chosen), else a line to type.
	Text   string `json:"text"`
	Option bool   `json:"option,omitempty"`
	// Confidence is its share of the answers given, from 0 to 1; Count how
	// often it was given (both 0 for a suggestion no person gave).
	Confidence float64 `json:"confidence"`
	Count      int     `json:"count"`
	// Source is where it comes from: "answers" (people's earlier answers),
	// "tasks" (a task of the project) or "history" (the shell-history
	// engine's next command).
	Source string `json:"source"`
}

// Question is what a run asks a person. Its JSON shape is
// schema/question.schema.json.
type Question struct {
	ID       string `json:"id"`
	Session  string `json:"session"`
	Playbook string `json:"playbook"`
	Reason   Reason `json:"reason"`
	// Detail says more about the reason: the danger rule and the text it
	// matched, the rule over its limit.
	Detail string `json:"detail,omitempty"`
	// Text is the question: the prompt's line, or the dialog's question on the
	// screen.
	Text string `json:"text"`
	// Summary is one line saying what the question is about, written by the
	// answerer's model (summarize: true) for notifications; "" without one.
	Summary string   `json:"summary,omitempty"`
	Options []Option `json:"options"`
	// Header, MultiSelect and Other are set by a question source: a short
	// title, whether several options may be chosen at once (Choices), and
	// whether a text other than the options is taken (Text).
	Header      string `json:"header,omitempty"`
	MultiSelect bool   `json:"multi_select,omitempty"`
	Other       bool   `json:"other,omitempty"`
	// Suggestions are the answers offered first, the likeliest first (see
	// docs/learned-answers.md); none when the playbook asks for none.
	Suggestions []Suggestion `json:"suggestions,omitempty"`
	// Screen is an excerpt of the screen (or of the output's tail), secrets
	// masked.
	Screen string `json:"screen"`
	// ScreenHash identifies the screen the question was asked on; an answer
	// for another screen is refused.
	ScreenHash string    `json:"screen_hash"`
	AskedAt    time.Time `json:"asked_at"`
	// Closed is set once the question is closed.
	Closed *Closed `json:"closed,omitempty"`
}

// How a question closed.
const (
	Answered = "answered"
	MovedOn  = "moved-on"
	Ended    = "ended"
)

// Closed is how and when a question closed.
type Closed struct {
	At time.Time `json:"at"`
	// How is Answered, MovedOn (the program went on by itself) or Ended (the
	// run ended).
	How string `json:"how"`
	// By, Channel and Sent are set for an answered question: who answered,
	// through which channel, and what was typed (masked).
	By      string `json:"by,omitempty"`
	Channel string `json:"channel,omitempty"`
	Sent    string `json:"sent,omitempty"`
}

// The channels an answer can come through.
const (
	ChannelTerminal  = "terminal"
	ChannelCLI       = "cli"
	ChannelDashboard = "dashboard"
	// ChannelAnswerer is a model's answer, taken behind the answerer's gates.
	ChannelAnswerer = "answerer"
	ChannelTelegram = "telegram"
	ChannelNtfy     = "ntfy"
	// ChannelLearned is an answer people gave before, typed behind the
	// gates of suggest.auto_answer.
	ChannelLearned = "learned"
)

// personChannels are the channels through which a person answers, not clai.
var personChannels = []string{ChannelTerminal, ChannelCLI, ChannelDashboard, ChannelTelegram, ChannelNtfy}

// ByPerson reports whether channel is one through which a person answers.
func ByPerson(channel string) bool { return slices.Contains(personChannels, channel) }

// Answer is a person's (or a channel's) answer to a question: exactly one of
// Text, Choose, Choices and Keys.
type Answer struct {
	// Question is the id of the question answered.
	Question string `json:"question"`
	// ScreenHash is the screen the answer was given for; empty means the
	// screen the question was asked on.
	ScreenHash string `json:"screen_hash,omitempty"`
	// Text is typed as a line, followed by Enter.
	Text *string `json:"text,omitempty"`
	// Choose picks an option by its label, as choose does.
	Choose string `json:"choose,omitempty"`
	// Choices picks several options by their labels, for a question that
	// takes several (MultiSelect).
	Choices []string `json:"choices,omitempty"`
	// Keys are key names (see docs/playbook.md, "keys").
	Keys []string `json:"keys,omitempty"`
	// By is who answered (a user name, a chat id); Channel through what.
	By      string `json:"by"`
	Channel string `json:"channel"`
}

// The reasons an answer is refused.
const (
	RefusedNoQuestion = "no-question" // no question is open
	RefusedClosed     = "closed"      // the question was closed
	RefusedStale      = "stale"       // the screen changed since it was asked
	RefusedBadAnswer  = "bad-answer"  // not exactly one of text, choose, choices, keys; an unknown key or option
	RefusedEnded      = "ended"       // the run has ended
)

// Refusal is the error of an answer that was not typed, and why.
type Refusal struct {
	Code   string `json:"code"`
	Reason string `json:"reason"`
}

// Error says what went wrong.
func (r *Refusal) Error() string { return "answer refused: " + r.Reason }

// Sent is what an accepted answer typed, masked.
type Sent struct {
	Question string `json:"question"`
	Sent     string `json:"sent"`
}

// Session is a running session as others see it.
type Session struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Host names the machine the run is on ("" where nobody named it): a
	// hub that serves several machines tells people which one asks.
	Host     string    `json:"host,omitempty"`
	Playbook string    `json:"playbook"`
	Program  []string  `json:"program"`
	PID      int       `json:"pid"`
	State    string    `json:"state"`
	Since    time.Time `json:"since"`
	Started  time.Time `json:"started"`
	// Question is the open question, if any.
	Question *Question `json:"question"`
}

// Screen is what the program shows now: the screen's rows in screen
// matching, else the tail of the output, secrets masked.
type Screen struct {
	Rows int    `json:"rows"`
	Cols int    `json:"cols"`
	Text string `json:"text"`
	// ANSI is the screen with its colours, as escape sequences, when there is
	// a screen.
	ANSI string `json:"ansi,omitempty"`
	Hash string `json:"hash"`
}

// The kinds of Update.
const (
	UpdateState    = "state"    // the run's state changed
	UpdateQuestion = "question" // a question opened
	UpdateClosed   = "closed"   // a question closed
	UpdateDanger   = "danger"   // a danger rule matched
	UpdateDecision = "decision" // clai answered, or would have (rule, matched text, sent)
	UpdateScreen   = "screen"   // what the program shows changed
	UpdateEnd      = "end"      // the run ended
)

// UpdateDecisionAfterDanger, given to WatchKinds in place of UpdateDecision,
// takes clai's decisions only as far as a watcher needs them to know whether
// a danger rule matched since clai last answered: the first decision after
// each danger hit (its Kind is UpdateDecision). The others, one a round trip
// of the program with its playbook, are never handed to it, so that they cost
// the run nothing. It is no kind of Update.
const UpdateDecisionAfterDanger = "decision-after-danger"

// Update is something that happened in a run, for those who watch it.
type Update struct {
	Kind string    `json:"kind"`
	At   time.Time `json:"at"`
	// State is the run's state after the update; Reason why it changed.
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
	// Question is the question opened or closed.
	Question *Question `json:"question,omitempty"`
	// Rule, Matched and Sent describe a decision or a danger hit (masked).
	Rule    string `json:"rule,omitempty"`
	Matched string `json:"matched,omitempty"`
	Sent    string `json:"sent,omitempty"`
	// Outcome and ExitCode are set at the end.
	Outcome  string `json:"outcome,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
}

// Desk is a running session as those who answer from elsewhere reach it: the
// session's registry and socket API, the dashboard and the notifiers use it.
// Its methods may be called from any goroutine.
type Desk interface {
	// Session returns the session as it stands.
	Session() Session
	// Screen returns what the program shows now.
	Screen() Screen
	// Answer types a as the answer to its question, through the path the
	// playbook's own answers take, or refuses it with a *Refusal.
	Answer(ctx context.Context, a Answer) (Sent, error)
	// Watch returns the updates from now on until ctx ends or the run has
	// ended (then the channel is closed after UpdateEnd). A watcher that does
	// not keep up loses updates, never slows the run.
	Watch(ctx context.Context) <-chan Update
}

// KindWatcher is a Desk whose watchers may take some kinds of updates only.
// The desk never hands a watcher the other kinds (UpdateEnd it always
// does), so that a watcher that needs few of them costs the run nothing at
// the others: clai's answers and the screen's changes.
type KindWatcher interface {
	// WatchKinds is Watch of the updates of the given kinds.
	WatchKinds(ctx context.Context, kinds ...string) <-chan Update
}
