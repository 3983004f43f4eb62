// Package playback plays a recorded session (asciicast events, with clai's
// markers) into an engine in virtual time: the path that clai run --replay
// and a playbook's own tests share. It reads the markers clai writes into the
// recordings it makes: what follows MarkerSend is one of clai's answers, and
// MarkerExit carries the program's exit code.
package playback

import (
	"context"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"time"

	"github.com/clai-sh/clai/runner/cast"
	"github.com/clai-sh/clai/runner/engine"
)

// Markers clai writes into the recordings of its own runs. An input event right
// after MarkerSend is one of clai's answers, not a person's keystrokes; MarkerExit
// carries the program's exit code ("exit 3").
const (
	MarkerSend = "clai-send"
	MarkerExit = "exit"
)

// isTerminalReply reports whether recorded input is a terminal's report (device
// attributes, cursor position, mode status, a DCS string) rather than keys.
func isTerminalReply(s string) bool {
	switch {
	case strings.HasPrefix(s, "\x1bP"), strings.HasPrefix(s, "\x1b]"):
		return true
	case strings.HasPrefix(s, "\x1b["):
		last := s[len(s)-1]
		return last == 'c' || last == 'R' || last == 'y' || last == 'n'
	}
	return false
}

// typed observes what a person typed at t: each Ctrl-C in it as an interrupt,
// or else the number of bytes.
func typed(ctx context.Context, st *engine.Stepper, t time.Time, data string) {
	if n := strings.Count(data, "\x03"); n > 0 {
		for range n {
			st.Interrupt(ctx, t)
		}
		return
	}
	st.Input(ctx, t, len(data))
}

// readMarker reads one of clai's markers: MarkerSend says the next input is
// clai's own answer; MarkerExit carries the program's exit code. Other labels
// are notes for a person.
func readMarker(label string, clais *bool, status *engine.ExitStatus) error {
	switch {
	case label == MarkerSend:
		*clais = true
	case strings.HasPrefix(label, MarkerExit+" "):
		code, err := strconv.Atoi(strings.TrimPrefix(label, MarkerExit+" "))
		if err != nil {
			return fmt.Errorf("replay: marker %q: %w", label, err)
		}
		status.Code = code
	}
	return nil
}

// Feed plays recorded events into the engine in virtual time from t0, ticking it
// at each of its deadlines on the way, and ends with the program's exit unless the
// engine ended the run first (or ctx ended, which interrupts it). apply receives
// the actions of every call. An error reading the events ends the feed with it.
func Feed(ctx context.Context, eng *engine.Engine, events iter.Seq2[cast.Event, error], t0 time.Time, apply func([]engine.Action)) (time.Time, engine.ExitStatus, error) {
	st := engine.NewStepper(eng, t0, apply)
	st.Start()
	status := engine.ExitStatus{}
	clais := false
	for ev, err := range events {
		if err != nil {
			return st.Now(), status, err
		}
		// Each event moves time to its own, and the engine observes what it
		// should see at that time.
		at := t0.Add(ev.At())
		switch {
		case ev.Kind == cast.KindOutput:
			st.Output(ctx, at, []byte(ev.Data))
		case ev.Kind == cast.KindInput && clais:
			// clai's own answer: the engine decides afresh.
			clais = false
			st.AdvanceTo(ctx, at)
		case ev.Kind == cast.KindInput && isTerminalReply(ev.Data):
			// The terminal answered a query: not a person's keystrokes.
			st.AdvanceTo(ctx, at)
		case ev.Kind == cast.KindInput:
			typed(ctx, st, at, ev.Data)
		case ev.Kind == cast.KindMarker:
			st.AdvanceTo(ctx, at)
			if eng.Result() != nil {
				break
			}
			if err := readMarker(ev.Data, &clais, &status); err != nil {
				return st.Now(), status, err
			}
		default:
			// A resize, or an event of a newer writer: only time passes.
			st.AdvanceTo(ctx, at)
		}
		if eng.Result() != nil {
			break
		}
	}
	if eng.Result() == nil {
		st.Exit(ctx, st.Now(), status)
	}
	return st.Now(), status, nil
}
