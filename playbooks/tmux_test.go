package playbooks_test

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/diag"
)

// spawn.tmux matches on the screen with no setting: a pane can only be read as
// a screen. A preset whose match mode is the default stream does not change that.
func TestTmuxMatchesOnTheScreen(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"version: 1\nname: x\nspawn: {tmux: {target: \"work:0.1\"}}\n",
		"version: 1\nname: x\nspawn: {tmux: {session: s}, command: [top]}\nsettings: {match: screen}\n",
		"version: 1\nname: x\nextends: aider\nspawn: {tmux: {target: \"work:0.1\"}}\n",
	} {
		if pb := mustParse(t, src); pb.Settings.Match != playbooks.MatchScreen {
			t.Errorf("%s: match %q, want screen", src, pb.Settings.Match)
		}
	}
	if pb := mustParse(t, "version: 1\nname: x\nspawn: {command: [top]}\n"); pb.Settings.Match != playbooks.MatchStream {
		t.Errorf("without tmux: match %q, want stream", pb.Settings.Match)
	}
}

func TestTmuxWithStreamIsAnError(t *testing.T) {
	t.Parallel()
	src := "version: 1\nname: x\nspawn: {tmux: {target: \"work:0.1\"}}\nsettings:\n  match: stream\n"
	pb, findings := playbooks.Parse("pane.yaml", []byte(src))
	if pb != nil || len(findings) != 1 {
		t.Fatalf("want one finding, got %v", findings)
	}
	f := findings[0]
	if f.Severity != diag.Error || f.Rule != "needs-screen" || f.Pos.Line != 5 || f.Pos.Col != 10 ||
		!strings.Contains(f.Message, "stream cannot read a tmux pane") || f.Hint == "" {
		t.Fatalf("finding %s (hint %q)", f, f.Hint)
	}
}
