// Command prompter asks questions in a terminal, like an installer or a
// scaffolder, and echoes each answer as "got: ANSWER".
//
//	prompter -q "Project name: " -q "Continue? [y/n] " [-secret 2] [-after SEQ] [-stamp FILE]
//
// Question N given by -secret (1-based) is read with echo off, the way a
// password prompt does it: echo is turned off before the question is printed,
// so an answer sent after the question is never echoed. -after writes SEQ after
// each question in a write of its own, a moment later, as Node's readline
// follows its prompt with an escape sequence (bracketed paste on, a cursor
// move). -stamp appends to FILE, for each answer, the time its last byte was
// read, in Unix nanoseconds, a line each. It exits 0 after the last answer and 3 if input ends early.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
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
	flag.Parse()
	if len(qs) == 0 {
		qs = questions{"Name: "}
	}
	for i, q := range qs {
		var answer string
		var err error
		if i+1 == *secret {
			answer, err = readSecret(q)
		} else {
			fmt.Print(q)
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
		fmt.Printf("got: %s\n", answer)
	}
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
	_, _ = os.Stdout.WriteString(seq)
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
func readSecret(q string) (string, error) {
	fd := int(os.Stdin.Fd())
	if !term.IsTerminal(fd) {
		fmt.Print(q)
		return readLine(os.Stdin)
	}
	state, err := term.MakeRaw(fd)
	if err != nil {
		return "", err
	}
	defer func() { _ = term.Restore(fd, state) }()
	fmt.Print(q)
	var line []byte
	b := make([]byte, 1)
	for {
		if _, err := os.Stdin.Read(b); err != nil {
			return "", err
		}
		switch b[0] {
		case '\r', '\n':
			fmt.Print("\r\n")
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
