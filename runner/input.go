package runner

import (
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/driver"
	"github.com/clai-sh/clai/runner/engine"
)

// userInput passes what the person typed to the program; Ctrl-C also tells the
// engine, which switches to MANUAL. A line typed at a password prompt becomes a
// secret of the run.
func (s *session) userInput(now time.Time, in []byte) {
	if s.o.watch {
		s.passInput(now, in)
		return
	}
	echo := s.echo()
	switch {
	case echo:
		s.typing, s.typed = false, s.typed[:0]
	case s.typing || s.atPassword():
		s.typing = true
		s.typeSecret(in)
	}
	if r := s.o.record; r != nil {
		if echo {
			_, _ = s.inputRedact.Write(in)
		} else {
			// A password: record its length, never its text.
			_ = r.Input(s.since(), []byte(strings.Repeat("*", len(in))))
		}
	}
	if _, err := s.drv.Write(in); err != nil && !errors.Is(err, driver.ErrEnded) {
		s.log.Error("input", err)
	}
	if n := strings.Count(string(in), "\x03"); n > 0 {
		s.answering = nil
		for range n {
			s.apply(s.eng().Interrupt(now))
		}
		return
	}
	s.typedAnswer = nil
	s.apply(s.eng().Input(now, len(in)))
	if s.o.terminalAnswer != nil {
		s.followAnswer(s.typedAnswer, in, echo)
	}
}

// passInput passes what the person typed to the program of a session they
// drive, and records what reached it as it was typed: clai keeps no secret and
// takes no Ctrl-C for itself. Keys typed once the program ended reach nobody,
// and are not recorded.
func (s *session) passInput(now time.Time, in []byte) {
	n, err := s.drv.Write(in)
	if err != nil && !errors.Is(err, driver.ErrEnded) {
		s.log.Error("input", err)
	}
	if r := s.o.record; r != nil && n > 0 {
		// Recorded before the loop takes the program's echo of them.
		_ = r.Input(s.since(), in[:n])
	}
	s.apply(s.eng().Input(now, len(in)))
}

// echo reports whether the terminal echoes what is typed; a driver that cannot
// tell is taken to echo.
func (s *session) echo() bool {
	if e, ok := s.drv.(interface{ Echo() (bool, error) }); ok {
		if on, err := e.Echo(); err == nil {
			return on
		}
	}
	return true
}

// echoes is what the session finds of the terminal's echo around clai's
// answers, for the engine: an answer typed while the engine awaits the
// program's reaction to it (engine.Send.AwaitsReaction) is sent once more
// without one, unless the terminal has echo off, where silence is the
// reaction. The session looks as it types such an answer, as the terminal
// stands before the program reads it, and again before each tick while the
// engine may still wait; the engine hears what it found as an observation
// of its own before its next call (see eng), never while its actions are
// carried out.
type echoes struct {
	// awaiting is set from an answer typed awaiting a reaction until the
	// engine hears of echo off, or another answer is typed awaiting none.
	awaiting bool
	// seen is set when the session looked and the engine has not heard of
	// it yet; on is what it found, off if echo was off at any look.
	seen, on bool
}

// typed notes an answer typed: when it awaits a reaction, the echo is
// looked at now.
func (w *echoes) typed(awaits bool, echo func() bool) {
	w.awaiting = awaits
	if awaits {
		w.look(echo())
	}
}

// look notes whether the terminal echoes.
func (w *echoes) look(on bool) {
	w.on = on && (w.on || !w.seen)
	w.seen = true
}

// eng is the session's engine, told first what the session found of the
// terminal's echo since its last call (see echoes). The session hands the
// engine every observation, and asks it for its deadline, only through eng,
// so that the engine hears of the echo before anything that happened since;
// what only reads the engine (what it shows, its state) goes to it directly,
// as a sink may read it while actions are carried out.
func (s *session) eng() *engine.Engine {
	if w := &s.echoes; w.seen {
		w.seen = false
		if !w.on {
			// The engine waits no more.
			w.awaiting = false
		}
		s.engine.Echo(w.on)
	}
	return s.engine
}

// atPassword reports whether the program, which has echo off, waits at a
// password prompt: it reads a line (a program in raw mode has echo off for
// every key), or the last line it showed asks for a password.
func (s *session) atPassword() bool {
	if p, ok := s.drv.(interface{ LineMode() (bool, error) }); ok {
		if line, err := p.LineMode(); err == nil && line {
			return true
		}
	}
	return playbooks.SecretPrompt(s.engine.LastLine())
}

// maxSecretTyped bounds what is kept of a line typed at a password prompt.
const maxSecretTyped = 4 << 10

// typeSecret follows the line the person types at a password prompt, as the
// terminal edits it; at Enter the line becomes a secret of the run, masked
// wherever it shows from then on.
func (s *session) typeSecret(in []byte) {
	for _, c := range in {
		switch c {
		case '\r', '\n':
			if len(s.typed) > 0 {
				s.redact.Add(string(s.typed))
			}
			s.typing, s.typed = false, s.typed[:0]
		case 0x7f, '\b':
			_, n := utf8.DecodeLastRune(s.typed)
			s.typed = s.typed[:len(s.typed)-n]
		case 0x03, 0x15: // Ctrl-C, Ctrl-U
			s.typed = s.typed[:0]
		default:
			if len(s.typed) < maxSecretTyped {
				s.typed = append(s.typed, c)
			}
		}
	}
}
