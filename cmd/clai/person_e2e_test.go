//go:build e2e

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/clai-sh/clai/runner/ask"
)

// person plays the person at the keyboard while a run of an agent goes on,
// answering the questions the run opens on the agent's command dialogs with
// clai answer.
type person struct {
	clai string   // the clai command
	env  []string // its environment, which names the run's sessions folder
	// command returns the command of the approval dialog on a question's
	// screen, or "" when the screen shows none.
	command func(screen string) string
	// proceed is the dialog's option that runs the command.
	proceed string
	// reads is how long the person reads a dialog left to them before
	// answering, from the first question they see on it.
	reads time.Duration
}

// answer starts answering: each question opened on a command dialog is
// answered with the keys given for its command (keys), the person having
// read the dialog for p.reads, else, a dialog the
// preset should have answered, by choosing p.proceed once it has been open
// for personDelay, so that the conversation goes on. The returned stop
// function ends it and says what it answered; the map tells, at the end,
// which commands of keys got their keys.
func (p person) answer(keys map[string]string) (map[string]bool, func() []string) {
	answered := map[string]bool{}
	var (
		mu   sync.Mutex
		seen []string
	)
	done, stopped := make(chan struct{}), make(chan struct{})
	claiCmd := func(args ...string) ([]byte, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, p.clai, args...)
		cmd.Env = p.env
		return cmd.CombinedOutput()
	}
	go func() {
		defer close(stopped)
		tried := map[string]bool{}
		firstSeen := map[string]time.Time{} // command → when a question on its dialog was first seen
		for {
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
			out, err := claiCmd("sessions", "--json")
			var list []ask.Session
			if err != nil || json.Unmarshal(out, &list) != nil || len(list) != 1 || list[0].Question == nil {
				continue
			}
			q := list[0].Question
			cmd := p.command(q.Screen)
			if cmd == "" || tried[q.ID] {
				continue
			}
			if _, ok := firstSeen[cmd]; !ok {
				firstSeen[cmd] = time.Now()
			}
			k, mine := keys[cmd]
			if mine && time.Since(firstSeen[cmd]) < p.reads {
				continue
			}
			if !mine && time.Since(q.AskedAt) < personDelay {
				// Not a dialog left to the person: the preset may still
				// answer it (a rule's cooldown), as it would while a person
				// reads the question.
				continue
			}
			tried[q.ID] = true
			args := []string{"answer", "--question", q.ID, "--choose", p.proceed}
			if mine {
				args = []string{"answer", "--question", q.ID, "--keys", k}
			}
			out, err = claiCmd(args...)
			mu.Lock()
			seen = append(seen, fmt.Sprintf("%s (%s): %s %v %s", q.ID, cmd, strings.Join(args[3:], " "), err, bytes.TrimSpace(out)))
			if mine && err == nil {
				answered[cmd] = true
			}
			mu.Unlock()
		}
	}()
	stop := sync.OnceValue(func() []string {
		close(done)
		<-stopped
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	})
	return answered, stop
}

// personDelay is how long a question stays open before the person answers
// one the preset should have answered.
const personDelay = 5 * time.Second

// questionOn returns the first of qs opened on the approval dialog for cmd,
// as command reads a screen, and how many were.
func questionOn(qs []ask.Question, command func(string) string, cmd string) (*ask.Question, int) {
	var first *ask.Question
	n := 0
	for i := range qs {
		if command(qs[i].Screen) == cmd {
			if first == nil {
				first = &qs[i]
			}
			n++
		}
	}
	return first, n
}
