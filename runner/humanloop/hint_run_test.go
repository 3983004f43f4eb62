package humanloop_test

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/runner/humanloop"
	"github.com/clai-sh/clai/runner/sessions"
)

// A headless run that waits for answers from elsewhere says on its notices,
// once for each question, which session waits, the clai answer command for
// it (each option's, or a text's) and the running dashboard's address
// without its token; quiet, it says nothing of the kind. The commands'
// wording as clai run prints them is tested in cmd/clai.
func TestHeadlessRunSaysWhereToAnswer(t *testing.T) {
	iso := isolate(t)
	reg, err := sessions.Open(iso.sessions)
	if err != nil {
		t.Fatal(err)
	}
	const address, token = "http://127.0.0.1:4000/", "d4shb0ard-t0ken"
	dash, err := reg.AnnounceDashboard(address + "?token=" + token)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dash.Close() })
	pb := parsePlaybook(t, deployPlaybook, prompterCommand(t, "-q", "Project name: ", "-q", "Deploy where? [staging/prod] "))
	for _, quiet := range []bool{false, true} {
		r := iso.startRun(t, pb, humanloop.Options{Headless: true, Quiet: quiet, Remote: true})
		s, _ := r.waitQuestion(t, "q1")
		r.answer(t, "q1", "demo", "")
		r.answer(t, "q2", "", "prod")
		r.waitDone(t)
		got := r.notices.String()
		if quiet {
			if strings.Contains(got, "waits for an answer") {
				t.Errorf("a quiet run said where to answer:\n%s", got)
			}
			continue
		}
		for _, want := range []string{
			"clai: session " + s.ID + " (deploy) waits for an answer to q1: Project name:\n",
			"clai:   clai answer " + s.ID + " --question q1 TEXT   (a line of text",
			"clai:   clai answer " + s.ID + " --question q2 --choose staging\n",
			"clai:   clai answer " + s.ID + " --question q2 --choose prod\n",
			"clai:   or on the dashboard: " + address + "\n",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("the notices lack %q:\n%s", want, got)
			}
		}
		for _, q := range []string{"q1", "q2"} {
			if n := strings.Count(got, "waits for an answer to "+q+":"); n != 1 {
				t.Errorf("said %d times where to answer %s:\n%s", n, q, got)
			}
		}
		if strings.Contains(got+r.shown.String()+r.log.String(), token) {
			t.Errorf("the dashboard's token is in the run's output:\n%s", got)
		}
		if out := r.shown.String(); !strings.Contains(out, "got: demo\r\n") || !strings.Contains(out, "got: prod\r\n") {
			t.Errorf("the program got:\n%s", out)
		}
	}
}
