package playbooks

import (
	"fmt"
	"strings"

	"github.com/clai-sh/clai/playbooks/diag"
)

// TmuxSessionName returns an error for a name tmux cannot give a session: tmux
// changes a : or . in it to _, so the session clai started could not be found
// again to be ended. Lint checks the name written in spawn.tmux.session, and
// clai run the name it becomes once ${VAR} is expanded.
func TmuxSessionName(name string) error {
	if strings.ContainsAny(name, ":.") {
		return fmt.Errorf("%q holds : or ., which tmux does not keep in a session name", name)
	}
	return nil
}

// Refusals lists what in the playbook cannot run as written although each part
// of it is well formed: what needs the screen that its match mode does not give.
// Lint reports these findings and clai run refuses a playbook that has any,
// from this one list, so the two never disagree.
func (pb *Playbook) Refusals() diag.List {
	var out diag.List
	if pb.Settings.Match == MatchScreen {
		return nil
	}
	if t := pb.Spawn.Tmux; t != nil {
		at := pb.Settings.MatchPos
		if at.Line == 0 {
			at = t.Pos
		}
		out = append(out, diag.Diagnostic{Pos: at, Severity: diag.Error, Rule: "needs-screen",
			Message: "settings.match: stream cannot read a tmux pane: clai reads the pane as a screen",
			Hint:    "remove settings.match: with spawn.tmux clai matches on the screen by itself"})
	}
	for _, a := range pb.Actions() {
		if a.Kind == ActChoose {
			out = append(out, diag.Diagnostic{Pos: a.Pos, Severity: diag.Error, Rule: "needs-screen",
				Message: "choose needs settings.match: screen, to see the menu",
				Hint:    "add settings: {match: screen}: choose finds the option and the marker on the rendered screen"})
		}
	}
	return out
}
