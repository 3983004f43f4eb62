//go:build e2e

package runner_test

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/exitcode"
	"github.com/clai-sh/clai/runner/report"
)

// These tests drive the real dialog and whiptail, whose menus mark the current
// option and button by their colours alone (reverse video without colours),
// through the runner with screen matching. Each program prints what was chosen
// once it ends: `choose` must have picked the option by its label.

// menuRun runs a screen-matching playbook on the shell command sh (single quotes
// are not allowed in it) for an xterm of 24x80, or the terminal term, with the
// steps given, and returns the report and the program's output.
func menuRun(t *testing.T, term, sh, steps string) (*report.Report, string) {
	t.Helper()
	if term == "" {
		term = "xterm-256color"
	}
	pb := playbook(t, `
version: 1
name: menu
spawn:
  shell: '%s'
  env: {TERM: %s}
  size: {rows: 24, cols: 80}
settings: {match: screen, settle: 150ms, min_send_interval: 0s}
timeouts: {total: 30s, prompt: 5s}
steps:
`+steps, sh, term)
	var out syncBuffer
	rep := run(t, pb, runner.WithMirror(&out))
	return rep, out.String()
}

func TestChooseOnDialogAndWhiptail(t *testing.T) {
	t.Parallel()
	const (
		dialogMenu   = `x=$(dialog --stdout --menu "Pick a fruit" 12 40 4 apple "red fruit" banana "yellow fruit" cherry "small fruit"); echo "chose: $x"`
		whiptailMenu = `x=$(whiptail --menu "Pick a fruit" 15 50 4 1 Apple 2 Banana 3 Cherry 3>&1 1>&2 2>&3); echo "rc: $? chose: $x"`
	)
	tests := []struct {
		name, tool, term, sh, steps string
		want                        string // what the program prints last
		sent                        []string
	}{
		{
			name: "dialog menu", tool: "dialog", sh: dialogMenu,
			steps: `  - {expect: "Pick a fruit", choose: "banana"}`,
			want:  "chose: banana",
			sent:  []string{`keys down×1 toward "banana`, `choose "banana`},
		},
		{
			name: "dialog menu by its item", tool: "dialog", sh: dialogMenu,
			steps: `  - {expect: "Pick a fruit", choose: "small fruit"}`,
			want:  "chose: cherry",
			sent:  []string{`keys down×2 toward "cherry`, `choose "cherry`},
		},
		{
			name: "dialog menu in reverse video", tool: "dialog", term: "vt220", sh: dialogMenu,
			steps: `  - {expect: "Pick a fruit", choose: "cherry"}`,
			want:  "chose: cherry",
			sent:  []string{`keys down×2 toward "cherry`, `choose "cherry`},
		},
		{
			name: "dialog radiolist", tool: "dialog",
			sh:    `x=$(dialog --stdout --radiolist "Pick" 12 40 4 apple red on banana yellow off cherry small off); echo "chose: $x"`,
			steps: `  - {expect: "Pick", choose: "cherry"}`,
			want:  "chose: cherry",
			sent:  []string{`keys down×2 toward "cherry`, `keys space ticks "cherry`, `choose "cherry`},
		},
		{
			name: "dialog checklist", tool: "dialog",
			sh: `x=$(dialog --stdout --checklist "Pick" 12 40 4 apple red off banana yellow off cherry small on); echo "chose: $x"`,
			steps: `  - {expect: "Pick", choose: "banana"}
  - {choose: "apple"}
  - {keys: [enter]}`,
			want: "chose: apple banana cherry",
			sent: []string{`keys down×1 toward "banana`, `keys space ticks "banana`, `keys up×1 toward "apple`, `keys space ticks "apple`, "keys enter"},
		},
		{
			name: "dialog yes/no buttons", tool: "dialog",
			sh:    `dialog --yesno "Really?" 10 40; echo "rc: $?"`,
			steps: `  - {expect: "Really?", choose: "No"}`,
			want:  "rc: 1",
			sent:  []string{`keys right×1 toward "No"`, `choose "No"`},
		},
		{
			name: "dialog menu Cancel button", tool: "dialog",
			sh:    `dialog --menu "Pick a fruit" 12 40 4 apple "red fruit" banana "yellow fruit"; echo "rc: $?"`,
			steps: `  - {expect: "Pick a fruit", choose: "Cancel"}`,
			want:  "rc: 1",
			sent:  []string{`keys right×1 toward "Cancel"`, `choose "Cancel"`},
		},
		{
			name: "whiptail menu by the label after its tag", tool: "whiptail", sh: whiptailMenu,
			steps: `  - {expect: "Pick a fruit", choose: "Cherry"}`,
			want:  "rc: 0 chose: 3",
			sent:  []string{`keys down×2 toward "3 Cherry"`, `choose "3 Cherry"`},
		},
		{
			name: "whiptail menu in reverse video", tool: "whiptail", term: "vt220", sh: whiptailMenu,
			steps: `  - {expect: "Pick a fruit", choose: "Banana"}`,
			want:  "rc: 0 chose: 2",
			sent:  []string{`keys down×1 toward "2 Banana"`, `choose "2 Banana"`},
		},
		{
			// The focus is on the list: no button is lit until Tab brings it.
			name: "whiptail Cancel button", tool: "whiptail", sh: whiptailMenu,
			steps: `  - {expect: "Pick a fruit", choose: "Cancel"}`,
			want:  "rc: 1 chose: ",
			sent:  []string{`keys tab toward "Cancel"`, `keys right×1 toward "Cancel"`, `choose "Cancel"`},
		},
		{
			name: "whiptail radiolist", tool: "whiptail",
			sh:    `x=$(whiptail --radiolist "Pick" 12 40 4 apple red on banana yellow off cherry small off 3>&1 1>&2 2>&3); echo "chose: $x"`,
			steps: `  - {expect: "Pick", choose: "banana"}`,
			want:  "chose: banana",
			sent:  []string{`keys down×1 toward "banana`, `keys space ticks "banana`, `choose "banana`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			testprog.RequireProgram(t, tt.tool, tt.tool)
			rep, out := menuRun(t, tt.term, tt.sh, tt.steps+"\n  - expect: eof\n")
			wantOutcome(t, rep, engine.Done, 0)
			if !strings.Contains(out, tt.want+"\r\n") {
				t.Errorf("the program's output lacks %q:\n%q", tt.want, lastBytes(out, 300))
			}
			s := sent(rep)
			if len(s) != len(tt.sent) {
				t.Fatalf("sent %q, want %q", s, tt.sent)
			}
			for i := range s {
				if !strings.HasPrefix(s[i], tt.sent[i]) {
					t.Fatalf("sent %q, want %q", s, tt.sent)
				}
			}
		})
	}
}

// A label that is no option of the menu hands over to a person, and the reason
// lists the options and buttons that were on screen.
func TestChooseOnDialogSaysWhatItSaw(t *testing.T) {
	t.Parallel()
	testprog.RequireProgram(t, "dialog", "dialog")
	rep, out := menuRun(t, "", `dialog --menu "Pick a fruit" 12 40 4 apple "red fruit" banana "yellow fruit"`, `
  - {expect: "Pick a fruit", choose: "durian"}
`)
	wantOutcome(t, rep, engine.Manual, exitcode.Manual)
	if s := sent(rep); len(s) != 0 {
		t.Fatalf("sent %q, want nothing", s)
	}
	const want = `choose "durian": no such option on screen (options: apple   red fruit | banana  yellow fruit; buttons: <OK> | <Cancel>)`
	if !strings.Contains(rep.Reason, want) {
		t.Fatalf("reason %q, want it to hold %q\n%q", rep.Reason, want, lastBytes(out, 300))
	}
}

// lastBytes returns the end of s, at most n bytes.
func lastBytes(s string, n int) string {
	return s[max(0, len(s)-n):]
}
