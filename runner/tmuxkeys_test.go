//go:build e2e

package runner_test

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/driver"
	"github.com/clai-sh/clai/runner/driver/keys"
	"github.com/clai-sh/clai/runner/driver/tmux"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/questions"
)

// keysByName is a tmux pane that notes the keys typed into it, and fails the test
// when an answer reaches it as bytes instead.
type keysByName struct {
	*tmux.Pane
	t *testing.T

	mu    sync.Mutex
	typed []keys.Key
}

func (p *keysByName) Write(b []byte) (int, error) {
	p.t.Errorf("the tmux driver was given bytes %q, not keys", b)
	return p.Pane.Write(b)
}

func (p *keysByName) Type(k keys.Keystrokes) error {
	p.mu.Lock()
	p.typed = append(p.typed, k.Keys...)
	p.mu.Unlock()
	return p.Pane.Type(k)
}

// A keys action reaches a tmux pane as named keys, which tmux encodes as the
// program asked: in application cursor mode, ESC O B for down, although clai,
// reading the pane through capture-pane, cannot see that mode.
func TestRunTypesKeysIntoTmuxByName(t *testing.T) {
	t.Parallel()
	sock := testprog.TmuxServer(t)
	pb := playbook(t, `
version: 1
name: tmux-keys
spawn:
  tmux: {session: clai-test}
  shell: 'stty raw -echo; printf "\033[?1hPick one\r\n"; head -c 4 | od -An -c'
  size: {rows: 10, cols: 60}
settings: {match: screen, settle: 100ms}
steps:
  - {expect: "Pick one", keys: [down, enter]}
  - expect: {regex: '033\s+O\s+B\s+\\r'}
`)
	var pane *keysByName
	start := func(ctx context.Context, s runner.Spawn) (driver.Driver, error) {
		p, err := tmux.Start(ctx, tmux.Options{Session: s.TmuxSession, Argv: s.Argv, Rows: int(s.Rows), Cols: int(s.Cols), Socket: sock})
		if err != nil {
			return nil, err
		}
		pane = &keysByName{Pane: p, t: t}
		return pane, nil
	}
	rep := run(t, pb, runner.WithStarter(start))
	wantOutcome(t, rep, engine.Done, 0)
	pane.mu.Lock()
	defer pane.mu.Unlock()
	if want := []keys.Key{"down", "enter"}; !slices.Equal(pane.typed, want) {
		t.Errorf("keys typed %q, want %q", pane.typed, want)
	}
}

// A pane's program works in the pane's folder, which is not clai's: the
// question sources are told the pane's folder (Claude Code's transcripts are
// named after it).
func TestPaneFolderIsTheProgramsFolder(t *testing.T) {
	t.Parallel()
	sock := testprog.TmuxServer(t)
	folder, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pb := playbook(t, `
version: 1
name: tmux-folder
spawn:
  tmux: {session: clai-folder}
  shell: 'printf "ready\n"; read x'
  size: {rows: 10, cols: 60}
steps:
  - {expect: ready, line: ok}
  - expect: eof
`)
	start := func(ctx context.Context, s runner.Spawn) (driver.Driver, error) {
		// A person's pane, opened in its own folder, as clai would attach to.
		return tmux.Start(ctx, tmux.Options{Session: s.TmuxSession, Argv: s.Argv, Rows: int(s.Rows), Cols: int(s.Cols), Socket: sock, Dir: folder})
	}
	dirs := make(chan string, 1)
	source := func(ctx context.Context, q questions.Session) { dirs <- q.Dir() }
	rep := run(t, pb, runner.WithStarter(start), runner.WithQuestions(source))
	wantOutcome(t, rep, engine.Done, 0)
	if got := <-dirs; got != folder {
		t.Errorf("the question sources were told the folder %q, want the pane's %q", got, folder)
	}
}
