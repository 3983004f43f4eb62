package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/clai-sh/clai/internal/glyph"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/exitcode"
	"github.com/clai-sh/clai/runner/sessions"
)

// The wait of clai answer --wait: defaultWait without a duration, at most
// maxWait.
const (
	defaultWait = 30 * time.Second
	maxWait     = 24 * time.Hour
)

// waitValue is --wait's value: off, on (--wait: defaultWait) or a duration
// (--wait=2m). It takes no separate argument, as a bool flag: --wait 2m would
// be an answer of "2m".
type waitValue struct{ d time.Duration }

// Set takes "true" (a bare --wait), "false" or a duration.
func (w *waitValue) Set(s string) error {
	switch s {
	case "true":
		w.d = defaultWait
		return nil
	case "false":
		w.d = 0
		return nil
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return fmt.Errorf("want a duration such as 30s or 2m, or --wait alone for %s", defaultWait)
	case d <= 0:
		return fmt.Errorf("want a duration above 0, such as 30s or 2m")
	case d > maxWait:
		return fmt.Errorf("at most %s", maxWait)
	}
	w.d = d
	return nil
}

func (w *waitValue) String() string {
	if w == nil || w.d == 0 {
		return ""
	}
	return w.d.String()
}

// IsBoolFlag lets --wait stand alone.
func (w *waitValue) IsBoolFlag() bool { return true }

// errWaited is the cause of a wait that ran out.
var errWaited = errors.New("no question opened in time")

// answerWhenOpen answers the session's open question with a, or, while none
// is open (or not the one a.Question names), the next question to open,
// waiting up to wait for it. An answer refused for any reason but that no
// question is open is final: a question that closed before the answer
// reached it is not traded for the next one. The run's end, and a wait that
// runs out, are errors of their own.
func answerWhenOpen(ctx context.Context, client *sessions.Client, session ask.Session, a ask.Answer, wait time.Duration) (ask.Sent, error) {
	wctx, cancel := context.WithTimeoutCause(ctx, wait, errWaited)
	defer cancel()
	// Watching first, then looking: a question that opens in between is
	// on the stream.
	stream, err := client.Subscribe(wctx)
	if err != nil {
		return ask.Sent{}, waitError(ctx, wctx, client, session, wait, err)
	}
	defer stream.Close()
	now, err := client.Session(wctx)
	if err != nil {
		return ask.Sent{}, waitError(ctx, wctx, client, session, wait, err)
	}
	q := now.Question
	for first := true; ; first = false {
		// A question named by id is tried at once, open or not: one that
		// closed is refused as closed, not waited for.
		if a.Question == "" && q != nil || a.Question != "" && (first || q != nil && q.ID == a.Question) {
			try := a
			if try.Question == "" {
				try.Question = q.ID
			}
			actx, acancel := context.WithTimeout(ctx, answerTimeout)
			sent, err := client.Answer(actx, try)
			acancel()
			var refusal *ask.Refusal
			if !errors.As(err, &refusal) || refusal.Code != ask.RefusedNoQuestion {
				return sent, err
			}
			// It closed before the answer reached it and nothing is open:
			// the wait goes on.
		}
		q, err = nextQuestion(stream)
		if err != nil {
			return ask.Sent{}, waitError(ctx, wctx, client, session, wait, err)
		}
	}
}

// nextQuestion reads the stream up to the next question that opens; at the
// run's end it is a refusal of code ended.
func nextQuestion(stream *sessions.Stream) (*ask.Question, error) {
	for {
		u, err := stream.Next()
		if errors.Is(err, io.EOF) {
			return nil, &ask.Refusal{Code: ask.RefusedEnded, Reason: "the run has ended"}
		}
		if err != nil {
			return nil, err
		}
		switch {
		case u.Kind == ask.UpdateQuestion && u.Question != nil:
			return u.Question, nil
		case u.Kind == ask.UpdateEnd:
			return nil, &ask.Refusal{Code: ask.RefusedEnded, Reason: "the run ended (" + u.Outcome + ") before a question opened"}
		}
	}
}

// waitError is the error of a wait that did not end in an answer: the wait
// ran out (exit 124), the run ended (a refusal of code ended), or err.
func waitError(ctx, wctx context.Context, client *sessions.Client, session ask.Session, wait time.Duration, err error) error {
	switch {
	case ctx.Err() != nil:
		return err
	case errors.Is(context.Cause(wctx), errWaited):
		return &exitError{code: exitcode.Timeout, err: fmt.Errorf("session %s (%s): no question opened within %s (--wait)", glyph.OneLine(session.ID, 40), glyph.OneLine(session.Name, 40), wait)}
	case client.Gone():
		return &ask.Refusal{Code: ask.RefusedEnded, Reason: "the run has ended"}
	}
	return err
}
