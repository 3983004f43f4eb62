package hookproto

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/clai-sh/clai/internal/glyph"
	"github.com/clai-sh/clai/internal/peer"
)

// SuggestPath is the daemon's HTTP path for suggestions.
const SuggestPath = "/suggest"

// Limits of a suggestion request.
const (
	DefaultLimit = 5
	MaxLimit     = 50
)

// Suggestion is a command to run next, with why.
type Suggestion struct {
	Command    string   `json:"command"`
	Template   string   `json:"template"`
	Confidence float64  `json:"confidence"`
	Score      float64  `json:"score"`
	Reasons    []string `json:"reasons"`
}

// SuggestRequest is the body of POST /suggest.
type SuggestRequest struct {
	Session string `json:"session"`
	Cwd     string `json:"cwd"`
	LastCmd string `json:"last_cmd"`
	Limit   int    `json:"limit"`
	// Shell is the asking shell (bash, zsh, fish), whose syntax every
	// suggestion must parse in; "" is the shell the session's hooks named.
	Shell string `json:"shell,omitempty"`
}

// SuggestReply is the answer of POST /suggest.
type SuggestReply struct {
	Suggestions []Suggestion `json:"suggestions"`
	// Context is what the suggestions were drawn from.
	Context SuggestContext `json:"context"`
}

// SuggestContext is what a shell's suggestions were drawn from.
type SuggestContext struct {
	// RepoKey is the repository's key, "" outside one.
	RepoKey string `json:"repo_key"`
	// Previous is the template of the shell's last command, "" when
	// unknown.
	Previous string `json:"previous"`
	// Branch is the branch checked out and Dirty whether the work tree
	// differs from the last commit; both absent when not known.
	Branch string `json:"branch,omitempty"`
	Dirty  *bool  `json:"dirty,omitempty"`
	// Sources name the evidence there was: "repo_transitions",
	// "global_transitions", "repo_frequency", "global_frequency",
	// "project_tasks", "work_tree".
	Sources []string `json:"sources"`
}

// ErrNotRunning is the error of a request no daemon answers: no socket, or
// nobody serving it.
var ErrNotRunning = errors.New("the suggestion daemon is not running")

// NotServed reports whether err, of a connection to the daemon's socket,
// says that nobody serves it: no socket, or nobody listening.
func NotServed(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED)
}

// DefaultSuggestWait bounds a whole suggestion request: the daemon answers
// in milliseconds, or holds a prompt.
const DefaultSuggestWait = 10 * time.Second

// maxSuggestReply bounds the reply Suggest reads: MaxLimit suggestions of
// commands of 16 KiB at most, with their reasons, fit many times over.
const maxSuggestReply = 4 << 20

// Suggest asks the daemon at t for the next commands of a shell, giving up
// when ctx ends, or after DefaultSuggestWait when ctx has no deadline. It
// talks only to a daemon of this user: a socket served by another is
// refused. A daemon that does not answer at all is ErrNotRunning; a refusal
// is an error with the daemon's reason.
func Suggest(ctx context.Context, t Transport, req SuggestRequest) (SuggestReply, error) {
	var reply SuggestReply
	body, err := json.Marshal(req)
	if err != nil {
		return reply, err
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(DefaultSuggestWait)
	}
	conn, err := t.Dial(time.Until(deadline))
	if NotServed(err) {
		return reply, fmt.Errorf("%w (no one serves %s)", ErrNotRunning, t)
	}
	if err != nil {
		return reply, fmt.Errorf("daemon at %s: %w", t, err)
	}
	defer conn.Close()
	defer context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })()
	if err := peer.Check(conn, os.Getuid()); err != nil {
		return reply, fmt.Errorf("daemon at %s: %w", t, err)
	}
	if err := conn.SetDeadline(deadline); err != nil {
		return reply, fmt.Errorf("daemon at %s: %w", t, err)
	}
	if _, err := conn.Write(postRequest(SuggestPath, "application/json", body)); err != nil {
		return reply, fmt.Errorf("daemon at %s: %w", t, err)
	}
	status, data, err := readResponse(bufio.NewReader(io.LimitReader(conn, maxSuggestReply+1)), maxSuggestReply)
	if err != nil {
		if ctx.Err() != nil {
			err = context.Cause(ctx)
		}
		return reply, fmt.Errorf("daemon at %s: reply: %w", t, err)
	}
	if status != 200 {
		var refusal struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &refusal) != nil || refusal.Error == "" {
			refusal.Error = strings.TrimSpace(string(data))
		}
		return reply, fmt.Errorf("daemon at %s: %d: %s", t, status, glyph.OneLine(refusal.Error, 200))
	}
	if err := json.Unmarshal(data, &reply); err != nil {
		return reply, fmt.Errorf("daemon at %s: reply: %w", t, err)
	}
	return reply, nil
}

// maxShown is how many characters of a command, or of its reasons, a line
// of WriteSuggestions shows.
const maxShown = 200

// WriteSuggestions prints reply as clai suggest does: as indented JSON, or
// one suggestion a line (the command, its confidence and its reasons) with
// no control character that could reach the terminal.
func WriteSuggestions(w io.Writer, reply SuggestReply, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(reply)
	}
	if len(reply.Suggestions) == 0 {
		_, err := fmt.Fprintln(w, "no suggestions yet: the daemon learns from the commands the shell hooks send (clai init)")
		return err
	}
	// One write for the table: the tab writer writes each cell on its own.
	var table bytes.Buffer
	tw := tabwriter.NewWriter(&table, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "COMMAND\tCONFIDENCE\tREASONS")
	for _, x := range reply.Suggestions {
		fmt.Fprintf(tw, "%s\t%.0f%%\t%s\n", glyph.OneLine(x.Command, maxShown), 100*x.Confidence, glyph.OneLine(strings.Join(x.Reasons, "; "), maxShown))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := w.Write(table.Bytes())
	return err
}
