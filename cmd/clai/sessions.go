package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/user"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/clai-sh/clai/internal/glyph"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/exitcode"
	"github.com/clai-sh/clai/runner/sessions"
)

// answerTimeout bounds how long clai answer waits for the run to take its
// answer.
const answerTimeout = 30 * time.Second

func sessionsCommand() *cli.Command {
	return &cli.Command{
		Name:  "sessions",
		Usage: "list the running sessions of this user on this machine, with their open questions",
		Description: "Each clai run registers in $XDG_RUNTIME_DIR/clai (else clai-UID in the temp folder).\n" +
			"A session that does not answer is said on stderr; a run that was killed is removed.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the sessions as a JSON array"},
		},
		Action: stopOnSignal(func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError("sessions: takes no arguments (see clai sessions --help)")
			}
			live, err := listSessions(c.Context, c.App.ErrWriter, func(ask.Session) bool { return true })
			if err != nil {
				return failure(err)
			}
			list := make([]ask.Session, len(live))
			for i, f := range live {
				list[i] = f.Session
			}
			if c.Bool("json") {
				return printSessionsJSON(c.App.Writer, list)
			}
			return printSessions(c.App.Writer, list, time.Now())
		}),
	}
}

// listSessions lists the sessions that keep holds for and that answer; each
// that does not answer is said on warn.
func listSessions(ctx context.Context, warn io.Writer, keep func(ask.Session) bool) ([]sessions.Found, error) {
	reg, err := sessions.Open("")
	if err != nil {
		return nil, err
	}
	found, err := reg.ListOnly(ctx, keep)
	if err != nil {
		return nil, err
	}
	live := found[:0]
	for _, f := range found {
		if f.Err != nil {
			fmt.Fprintf(warn, "clai: session %s (%s) does not answer: %s\n", glyph.OneLine(f.Session.ID, 40), glyph.OneLine(f.Session.Name, 40), glyph.OneLine(f.Err.Error(), 200))
			continue
		}
		live = append(live, f)
	}
	return live, nil
}

func printSessionsJSON(w io.Writer, live []ask.Session) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(live)
}

// printSessions prints one line per session: what runs, where it stands
// and its open question.
func printSessions(w io.Writer, live []ask.Session, now time.Time) error {
	if len(live) == 0 {
		_, err := fmt.Fprintln(w, "no sessions are running")
		return err
	}
	// The table is written whole, in one write: the tab writer writes each
	// cell and each padding on its own.
	var table bytes.Buffer
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSTATE\tSINCE\tPLAYBOOK\tPROGRAM\tQUESTION")
	for _, s := range live {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", glyph.OneLine(s.ID, 40), glyph.OneLine(s.Name, 24), glyph.OneLine(s.State, 12), ago(now, s.Since),
			glyph.OneLine(s.Playbook, 40), glyph.OneLine(strings.Join(s.Program, " "), 30), questionLine(s.Question))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := w.Write(table.Bytes())
	return err
}

// questionLine is an open question on one line: its id, text and options.
func questionLine(q *ask.Question) string {
	if q == nil {
		return "-"
	}
	line := glyph.OneLine(q.ID, 20) + ": " + glyph.OneLine(q.Text, 60)
	if len(q.Options) > 0 {
		labels := make([]string, len(q.Options))
		for i, o := range q.Options {
			labels[i] = glyph.OneLine(o.Label, 20)
		}
		line += " [" + strings.Join(labels, " | ") + "]"
	}
	return line
}

// ago is how long ago t was, to the second.
func ago(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return now.Sub(t).Round(time.Second).String()
}

func answerCommand() *cli.Command {
	wait := new(waitValue)
	return &cli.Command{
		Name:      "answer",
		Usage:     "answer the open question of a running session",
		ArgsUsage: "[SESSION] TEXT | [SESSION] --choose LABEL | [SESSION] --keys KEY…",
		Description: "Types TEXT and Enter, picks an option by its label (--choose; repeated, the options\n" +
			"of a question that takes several), or types keys\n" +
			"(--keys, repeatable; a value may hold several, separated by spaces) as the answer to\n" +
			"the open question of SESSION: its id, or a prefix of its name that only it has. SESSION\n" +
			"may be left out when exactly one question is open on this machine. The answer goes\n" +
			"the way the playbook's own do, and is refused, never typed, if the question closed or\n" +
			"the screen changed meanwhile. With --wait, a session with no open question (or not\n" +
			"the one --question names) is watched until its next question opens, which is then\n" +
			"answered: --wait waits 30s, --wait=2m as long as given. Exit codes: 0 typed, 5 refused\n" +
			"(the reason on stderr; also a run that ended while --wait waited), 1 no such session,\n" +
			"2 usage, 124 --wait ran out.",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "choose", Usage: "pick the option `LABEL` (as choose: does); repeated, the options of a question that takes several"},
			&cli.StringSliceFlag{Name: "keys", Usage: "type the keys `KEY` (repeatable; names as the playbook's keys: takes them)"},
			&cli.StringFlag{Name: "question", Usage: "answer only the question `ID` (as clai sessions shows it); refused if it is no longer open"},
			&cli.GenericFlag{Name: "wait", Value: wait, Usage: "when no question is open, wait for the next one and answer it: --wait for 30s, --wait=`DURATION` (2m) for longer"},
		},
		Action: stopOnSignal(func(c *cli.Context) error {
			target, a, err := parseAnswer(c)
			if err != nil {
				return err
			}
			s, ok, err := registeredSession(target, a.Question, wait.d > 0)
			if err != nil {
				return failure(err)
			}
			if !ok {
				live, err := listSessions(c.Context, c.App.ErrWriter, mayMatch(target))
				if err != nil {
					return failure(err)
				}
				if s, err = pickSession(live, target, a.Question, wait.d > 0); err != nil {
					return err
				}
			}
			client := sessions.NewClient(s.socket)
			var sent ask.Sent
			if wait.d > 0 {
				sent, err = answerWhenOpen(c.Context, client, s.session, a, wait.d)
			} else {
				if a.Question == "" {
					a.Question = s.session.Question.ID
				}
				ctx, cancel := context.WithTimeout(c.Context, answerTimeout)
				defer cancel()
				sent, err = client.Answer(ctx, a)
			}
			if a.Question == "" {
				a.Question = sent.Question
			}
			var refusal *ask.Refusal
			var coded *exitError
			if errors.As(err, &coded) {
				return err
			} else if errors.As(err, &refusal) {
				return &exitError{code: exitcode.Refused, err: fmt.Errorf("session %s (%s)%s: %s (%s)", glyph.OneLine(s.session.ID, 40), glyph.OneLine(s.session.Name, 40), questionPart(a.Question), glyph.OneLine(refusal.Reason, 200), glyph.OneLine(refusal.Code, 20))}
			} else if err != nil {
				return failure(err)
			}
			_, err = fmt.Fprintf(c.App.Writer, "session %s (%s), question %s: sent %q\n", glyph.OneLine(s.session.ID, 40), glyph.OneLine(s.session.Name, 40), glyph.OneLine(sent.Question, 40), sent.Sent)
			return err
		}),
	}
}

// questionPart names the question id in a message, "" for none.
func questionPart(id string) string {
	if id == "" {
		return ""
	}
	return ", question " + glyph.OneLine(id, 40)
}

// parseAnswer reads the answer and the session it is for (empty: the one
// with the only open question) from the command line.
func parseAnswer(c *cli.Context) (target string, a ask.Answer, err error) {
	// A text that starts with "-" follows "--": clai answer deploy -- -1.
	args := c.Args().Slice()
	if i := slices.Index(args, "--"); i >= 0 {
		args = slices.Delete(args, i, i+1)
	}
	a = ask.Answer{Question: c.String("question"), Channel: ask.ChannelCLI, By: userName()}
	choices, keys := c.StringSlice("choose"), splitKeys(c.StringSlice("keys"))
	switch {
	case c.IsSet("choose") && c.IsSet("keys"):
		return "", a, usageError("answer: give --choose or --keys, not both")
	case c.IsSet("choose") && slices.Contains(choices, ""):
		return "", a, usageError("answer: --choose needs the option's label")
	case c.IsSet("keys") && len(keys) == 0:
		return "", a, usageError("answer: --keys needs at least one key")
	case c.IsSet("choose") || c.IsSet("keys"):
		if len(args) > 1 {
			return "", a, usageError("answer: with --choose or --keys, give at most the session (got %d arguments)", len(args))
		}
		if len(args) == 1 {
			target = args[0]
		}
		a.Keys = keys
		if len(choices) == 1 {
			a.Choose = choices[0]
		} else {
			a.Choices = choices
		}
	default:
		switch len(args) {
		case 1:
			a.Text = &args[0]
		case 2:
			target, a.Text = args[0], &args[1]
		default:
			return "", a, usageError("answer: give [SESSION] TEXT, or --choose LABEL, or --keys KEY… (see clai answer --help)")
		}
	}
	return target, a, nil
}

// splitKeys splits each --keys value at white space.
func splitKeys(values []string) []string {
	var keys []string
	for _, v := range values {
		keys = append(keys, strings.Fields(v)...)
	}
	return keys
}

// userName is who answers: the user clai runs as.
func userName() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}

// picked is the session an answer goes to.
type picked struct {
	session ask.Session
	socket  string
}

// pickSession finds the session to answer: target's id, or the only
// session whose name starts with target; without target, the only session
// with an open question (with question, the one whose open question it is,
// else the only session; with wait and none open, the only session). An
// answer needs an open question unless question names one or it waits.
func pickSession(live []sessions.Found, target, question string, wait bool) (picked, error) {
	var candidates []sessions.Found
	switch {
	case target != "":
		candidates = matchSessions(live, target)
		if len(candidates) == 0 {
			return picked{}, failure(fmt.Errorf("no running session has the id %q or a name starting with it (see clai sessions)", target))
		}
	case question != "":
		candidates = withQuestion(live, question)
		if len(candidates) == 0 {
			candidates = live
		}
		if len(candidates) == 0 {
			return picked{}, &exitError{code: exitcode.Refused, err: fmt.Errorf("no question %s is open on this machine: no session is running", question)}
		}
	default:
		candidates = withQuestion(live, "")
		if len(candidates) == 0 && wait {
			candidates = live
		}
		if len(candidates) == 0 && wait {
			return picked{}, failure(errors.New("no session is running (see clai sessions)"))
		}
		if len(candidates) == 0 {
			return picked{}, &exitError{code: exitcode.Refused, err: errors.New("no question is open on this machine (see clai sessions)")}
		}
	}
	if len(candidates) > 1 {
		names := make([]string, len(candidates))
		for i, f := range candidates {
			names[i] = f.Session.ID + " (" + f.Session.Name + ")"
		}
		return picked{}, usageError("answer: %d sessions fit, name one: %s", len(candidates), strings.Join(names, ", "))
	}
	if len(candidates) == 0 {
		return picked{}, failure(errors.New("no session is running (see clai sessions)"))
	}
	f := candidates[0]
	if question == "" && !wait && f.Session.Question == nil {
		return picked{}, &exitError{code: exitcode.Refused, err: fmt.Errorf("session %s (%s) has no open question", f.Session.ID, f.Session.Name)}
	}
	return picked{session: f.Session, socket: f.Socket}, nil
}

// registeredSession is the session whose id is target, found by its entry
// alone, when an answer names the session by its id and the question too
// (and waits for none): then nothing need be asked of the session before the
// answer, which it refuses if that question is not open. ok is false when
// the session must be asked (a name, no question, --wait) or no entry has
// that id.
func registeredSession(target, question string, wait bool) (s picked, ok bool, err error) {
	if target == "" || question == "" || wait {
		return picked{}, false, nil
	}
	reg, err := sessions.Open("")
	if err != nil {
		return picked{}, false, err
	}
	found, err := reg.Registered(func(s ask.Session) bool { return s.ID == target })
	if err != nil || len(found) != 1 {
		return picked{}, false, err
	}
	return picked{session: found[0].Session, socket: found[0].Socket}, true, nil
}

// mayMatch holds for the sessions matchSessions may pick for target (every
// session when target is empty), by what never changes of a session: its id
// and name. So clai answer asks only those how they stand, not every session
// on the machine.
func mayMatch(target string) func(ask.Session) bool {
	return func(s ask.Session) bool {
		return target == "" || s.ID == target || strings.HasPrefix(s.Name, target)
	}
}

// matchSessions is the session with id target, else those whose name starts
// with target.
func matchSessions(live []sessions.Found, target string) []sessions.Found {
	var byName []sessions.Found
	for _, f := range live {
		if f.Session.ID == target {
			return []sessions.Found{f}
		}
		if strings.HasPrefix(f.Session.Name, target) {
			byName = append(byName, f)
		}
	}
	return byName
}

// withQuestion is the sessions with an open question (with the id
// question, if not empty).
func withQuestion(live []sessions.Found, question string) []sessions.Found {
	var open []sessions.Found
	for _, f := range live {
		if q := f.Session.Question; q != nil && (question == "" || q.ID == question) {
			open = append(open, f)
		}
	}
	return open
}
