// Package questions is the contract between a run and a source of its
// questions beside the program's screen (Claude Code's own AskUserQuestion
// calls, for one): the Session a source asks through, and the Source a run
// starts (runner.WithQuestions). A source imports this package, the question
// vocabulary and the engine's types, never the session's package.
package questions

import (
	"context"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/engine"
)

// Session is a running session as a question source reaches it: a source
// follows a channel through which the program asks questions of its own (not
// on its screen), opens a question of the run for each, and closes it when
// the program has gone on. Answers from any channel reach the source's
// question through the Desk's Answer, refused there when closed; the source's
// Typist turns them into the keys the program's dialog takes, typed through
// the path of every answer. Its methods may be called from any goroutine.
type Session interface {
	ask.Desk
	// Ask opens x as the run's open question (one the engine opened
	// closes as moved on) and returns its id, and a channel that receives
	// the question once it closed: answered, withdrawn, or the run ended.
	// Once the run has ended, the id is "" and the channel nil.
	Ask(ctx context.Context, x engine.External) (id string, closed <-chan ask.Question)
	// Withdraw closes the question id as how says (ask.MovedOn: the program
	// went on), if it is still open.
	Withdraw(ctx context.Context, id, how string)
	// ClaimDialog tells the run that the source asks the questions of the
	// program's dialog id, which shows marks on its screen (the start of
	// each question, at the start of a line): the run opens no prompt
	// question of its own for a screen that shows it (one open closes as
	// moved on), until ReleaseDialog(id) and the screen no longer shows it.
	ClaimDialog(ctx context.Context, id string, marks []string)
	// ReleaseDialog ends the claim of the dialog id: the program is done
	// with it.
	ReleaseDialog(ctx context.Context, id string)
	// ExpectDialogs tells the run what the program's dialogs that the source
	// asks about show before the source knows of them (a line that begins
	// with one of marks): a prompt question for such a screen waits up to
	// wait for the source's claim, then opens as any other.
	ExpectDialogs(ctx context.Context, marks []string, wait time.Duration)
	// Dir is the program's working folder.
	Dir() string
}

// A Source follows a channel of the program's questions for as long
// as ctx lives, asking them through q. It is started once the program
// started, on a goroutine of its own, and the run waits for it to return
// once ctx ended with the run.
type Source func(ctx context.Context, q Session)
