package runner

import (
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"go.uber.org/zap"

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
		s.o.logger.Warn("input", zap.String("event", string(engine.EventError)), zap.Error(err))
	}
	if n := strings.Count(string(in), "\x03"); n > 0 {
		s.answering = nil
		for range n {
			s.apply(s.engine.Interrupt(now))
		}
		return
	}
	s.typedAnswer = nil
	s.apply(s.engine.Input(now, len(in)))
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
		s.o.logger.Warn("input", zap.String("event", string(engine.EventError)), zap.Error(err))
	}
	if r := s.o.record; r != nil && n > 0 {
		// Recorded before the loop takes the program's echo of them.
		_ = r.Input(s.since(), in[:n])
	}
	s.apply(s.engine.Input(now, len(in)))
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
