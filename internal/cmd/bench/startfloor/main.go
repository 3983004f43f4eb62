// Command startfloor is the floor of the bench's start-up workload (W0): the
// least a program that drives a terminal program must do to answer a prompt
// the program writes at once. It opens a pseudo-terminal, starts the program
// on it, reads until the output ends with the prompt, types the answer and
// waits for the program to exit.
//
//	startfloor PROMPT ANSWER PROGRAM [ARG...]
//
// It is a binary of its own, apart from the bench, so that its start-up is
// that of a small Go program and not the bench's.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"

	cpty "github.com/creack/pty"
)

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: startfloor PROMPT ANSWER PROGRAM [ARG...]")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3:]); err != nil {
		fmt.Fprintln(os.Stderr, "startfloor:", err)
		os.Exit(1)
	}
}

// run starts argv on a terminal, answers prompt with answer once, and waits
// for argv to exit.
func run(prompt, answer string, argv []string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	tty, err := cpty.StartWithSize(cmd, &cpty.Winsize{Rows: 24, Cols: 80})
	if err != nil {
		return err
	}
	defer tty.Close()
	buf := make([]byte, 4096)
	var tail []byte
	answered := false
	for {
		n, err := tty.Read(buf)
		tail = append(tail, buf[:n]...)
		if !answered && bytes.HasSuffix(tail, []byte(prompt)) {
			if _, err := tty.Write([]byte(answer + "\r")); err != nil {
				return err
			}
			answered = true
		}
		if len(tail) > 4096 {
			tail = tail[len(tail)-len(prompt):]
		}
		if err != nil {
			break
		}
	}
	if err := cmd.Wait(); err != nil {
		return err
	}
	if !answered {
		return errors.New("the program ended before it prompted")
	}
	return nil
}
