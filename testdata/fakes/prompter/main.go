// Command prompter asks questions in a terminal, like an installer or a
// scaffolder, and echoes each answer as "got: ANSWER".
//
//	prompter -q "Project name: " -q "Continue? [y/n] " [-secret 2] [-after SEQ] [-stamp FILE] [-tick 200ms] [-own-echo]
//
// Question N given by -secret (1-based) is read with echo off, the way a
// password prompt does it: echo is turned off before the question is printed,
// so an answer sent after the question is never echoed. -after writes SEQ after
// each question in a write of its own, a moment later, as Node's readline
// follows its prompt with an escape sequence (bracketed paste on, a cursor
// move). -stamp appends to FILE, for each answer, the time its last byte was
// read, in Unix nanoseconds, a line each. -tick draws a clock ("uptime 1.2s")
// on the first row every DURATION while it asks, as a status line does: the
// cursor saved, moved there and back, the questions from the third row on.
// -own-echo reads every answer with echo off and shows it itself, as a
// program that draws its own input line does: the answer, the "got:" line
// and the next question in one write, which a terminal reads at once.
// It exits 0 after the last answer and 3 if input ends early.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

type questions []string

func (q *questions) String() string     { return strings.Join(*q, "|") }
func (q *questions) Set(s string) error { *q = append(*q, s); return nil }

func main() {
	var qs questions
	flag.Var(&qs, "q", "a question to ask (repeatable, in order)")
	secret := flag.Int("secret", 0, "ask question `N` (1-based) with echo off")
	after := flag.String("after", "", "write `SEQ` after each question, in a write of its own")
	stamp := flag.String("stamp", "", "append the time each answer was read to `FILE`")
	tick := flag.Duration("tick", 0, "draw a clock on the first row every `DURATION`")
	ownEcho := flag.Bool("own-echo", false, "show each answer with what follows it, the next question included, in one write")
	flag.Parse()
	if *tick > 0 {
		out.WriteString("\x1b[2J\x1b[3;1H")
		go drawClock(*tick, time.Now())
	}
	if len(qs) == 0 {
		qs = questions{"Name: "}
	}
	if *ownEcho {
		askOwnEcho(qs)
		return
	}
	for i, q := range qs {
		var answer string
		var err error
		if i+1 == *secret {
			answer, err = readSecret(q)
		} else {
			out.WriteString(q)
			writeAfter(*after)
			answer, err = readLine(os.Stdin)
		}
		if err == nil {
			err = writeStamp(*stamp, time.Now())
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "\nprompter: question %d: %v\n", i+1, err)
			os.Exit(3)
		}
		out.WriteString(fmt.Sprintf("got: %s\n", answer))
	}
}

// askOwnEcho asks qs with echo off, and writes each answer back, with its
// "got:" line, in the write of the next question.
func askOwnEcho(qs questions) {
	shown := ""
	for i, q := range qs {
		answer, err := readRaw(shown+q, "")
		if err != nil {
			fmt.Fprintf(os.Stderr, "\r\nprompter: question %d: %v\r\n", i+1, err)
			os.Exit(3)
		}
		shown = answer + "\r\ngot: " + answer + "\r\n"
	}
	out.WriteString(shown)
}

// afterPause is how long after a question -after writes its sequence: long
// enough for the question to be read on its own, well within clai's settle.
const afterPause = 20 * time.Millisecond

// writeAfter writes seq, if any, in a write of its own after a pause.
func writeAfter(seq string) {
	if seq == "" {
		return
	}
	time.Sleep(afterPause)
	out.WriteString(seq)
}

// out is the terminal, written a whole write at a time: the clock's writes
// never split a question's.
var out = &lockedWriter{}

type lockedWriter struct{ mu sync.Mutex }

func (w *lockedWriter) WriteString(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, _ = os.Stdout.WriteString(s)
}

// drawClock draws the time since start on the first row every tick, and
// puts the cursor back where it was.
func drawClock(tick time.Duration, start time.Time) {
	for range time.Tick(tick) {
		out.WriteString(fmt.Sprintf("\x1b7\x1b[1;1H\x1b[2Kuptime %.1fs\x1b8", time.Since(start).Seconds()))
	}
}

// writeStamp appends at to the file named stamp, if any, in Unix nanoseconds.
func writeStamp(stamp string, at time.Time) error {
	if stamp == "" {
		return nil
	}
	f, err := os.OpenFile(stamp, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(f, at.UnixNano()); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// readLine reads one line a byte at a time, so nothing is read ahead of it.
func readLine(r io.Reader) (string, error) {
	var line []byte
	b := make([]byte, 1)
	for {
		n, err := r.Read(b)
		if n == 1 {
			if b[0] == '\n' {
				return strings.TrimSuffix(string(line), "\r"), nil
			}
			line = append(line, b[0])
			continue
		}
		if err == nil {
			continue
		}
		if errors.Is(err, io.EOF) && len(line) > 0 {
			return string(line), nil
		}
		return "", err
	}
}

// readSecret turns echo off, asks q and reads the answer up to Enter, then
// restores the terminal.
func readSecret(q string) (string, error) { return readRaw(q, "\r\n") }

// readRaw turns echo off, writes q and reads the answer up to Enter, and
// writes enter at Enter, then restores the terminal. Off a terminal it
// reads a line.
func readRaw(q, enter string) (string, error) {
	fd := int(os.Stdin.Fd())
	if !term.IsTerminal(fd) {
		out.WriteString(q)
		return readLine(os.Stdin)
	}
	state, err := term.MakeRaw(fd)
	if err != nil {
		return "", err
	}
	defer func() { _ = term.Restore(fd, state) }()
	out.WriteString(q)
	var line []byte
	b := make([]byte, 1)
	for {
		if _, err := os.Stdin.Read(b); err != nil {
			return "", err
		}
		switch b[0] {
		case '\r', '\n':
			if enter != "" {
				out.WriteString(enter)
			}
			return string(line), nil
		case 3: // Ctrl-C: raw mode has no signals
			return "", errors.New("interrupted")
		case 0x7f, 8:
			if len(line) > 0 {
				line = line[:len(line)-1]
			}
		default:
			line = append(line, b[0])
		}
	}
}
