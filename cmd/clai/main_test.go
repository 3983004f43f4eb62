package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/clai-sh/clai/internal/golden"
	"github.com/clai-sh/clai/runner/cast"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"clai": func() { os.Exit(runProcess()) },
	})
}

// TestScripts runs the CLI scripts in testdata/script. $REPO is the repository root,
// so scripts can lint the bundled examples and fixtures.
func TestScripts(t *testing.T) {
	t.Parallel()
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:           filepath.Join("testdata", "script"),
		UpdateScripts: golden.Update(),
		Setup: func(env *testscript.Env) error {
			env.Setenv("REPO", repo)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"castout": castOutput},
	})
}

// castOutput is the scripts' command "castout FILE": it prints the output a
// recording holds, its "o" events joined, JSON-escaped as the recording writes
// it. The terminal may deliver one write of the program in several reads (the
// line discipline turns "\n" into "\r\n" apart from the text before it), so a
// script checks the output this way, not one event's text.
func castOutput(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: castout FILE")
	}
	rec, err := cast.OpenReader(ts.MkAbs(args[0]))
	ts.Check(err)
	defer rec.Close()
	var out strings.Builder
	for ev, err := range rec.All() {
		ts.Check(err)
		if ev.Kind == cast.KindOutput {
			out.WriteString(ev.Data)
		}
	}
	enc := json.NewEncoder(ts.Stdout())
	enc.SetEscapeHTML(false)
	ts.Check(enc.Encode(out.String()))
}
