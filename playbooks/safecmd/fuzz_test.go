package safecmd_test

import (
	"path"
	"strings"
	"sync"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/pattern"
	"github.com/clai-sh/clai/playbooks/safecmd"
)

// fuzzProject is the project the fuzz target judges lines in.
const fuzzProject = "/work/proj"

// deniedEverywhere are flags that write, delete or run something, a list kept
// apart from the package's own: no word of an approved command is one, nor
// one of them with =value.
var deniedEverywhere = []string{
	"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls",
	"--output", "--ext-diff", "--textconv", "--pre", "--pre-glob", "--search-zip",
	"--compress-program", "--files0-from", "--in-place", "-toolexec", "-vettool", "--basetemp",
}

// deniedFor are, by program (and git's subcommand), flags that write,
// delete or run something in it: no word of an approved command of that
// program is one, or starts with one (-ofile).
var deniedFor = map[string][]string{
	"sort":       {"-o", "-T", "--output", "--temporary-directory"},
	"tree":       {"-o", "-R"},
	"tail":       {"-f", "-F", "--follow", "--pid", "--retry"},
	"rg":         {"-z", "--pre", "--search-zip", "--hidden", "--no-ignore"},
	"date":       {"-s", "--set", "-d"},
	"file":       {"-z", "-Z", "-C", "--compile"},
	"diff":       {"-l", "--paginate"},
	"sed":        {"-i", "--in-place", "-e", "-f"},
	"find":       {"-delete", "-exec", "-fprint", "-fls", "-ok"},
	"git branch": {"-D", "-d", "--delete", "-m", "-M", "--move", "-c", "-C", "--copy", "-f", "--force", "--set-upstream-to", "-u"},
	"git tag":    {"-d", "--delete", "-a", "-s", "-f", "--force"},
	"git log":    {"--show-signature", "--output", "--ext-diff"},
	"git show":   {"--show-signature", "--output", "--ext-diff"},
	"git diff":   {"--output", "--ext-diff", "--no-index"},
	"git grep":   {"-O", "--open-files-in-pager", "--no-index"},
}

// gitWrites are git's subcommands that write: no approved command runs one.
var gitWrites = map[string]bool{"push": true, "commit": true, "reset": true, "clean": true, "checkout": true, "config": true, "stash": true, "rm": true, "mv": true, "add": true}

// watchedDanger are the presets' danger rules whose texts an approved command
// must never match.
var watchedDanger = map[string]bool{"rm-rf-outside": true, "sudo": true, "curl-pipe-shell": true, "force-push": true, "chmod-777": true}

// dialogs frame a command as each agent's approval dialog shows it, for the
// presets' danger rules.
var dialogs = map[string]func(string) string{
	"claude-code": func(c string) string {
		return " Bash command\n\n   " + c + "\n   Run it\n\n Do you want to proceed?\n ❯ 1. Yes\n"
	},
	"codex": func(c string) string {
		return "  Would you like to run the following command?\n\n  $ " + c + "\n\n› 1. Yes, proceed (y)\n"
	},
	"gemini": func(c string) string {
		return "│ ? Shell  " + c + " │\n│ ╭──╮ │\n│ │ " + c + " │ │\n│ ╰──╯ │\n│ Allow execution of [Shell]?  │\n"
	},
}

// presetDanger loads the watched danger rules of the presets once.
var presetDanger = sync.OnceValues(func() (map[string][]*playbooks.Danger, error) {
	out := map[string][]*playbooks.Danger{}
	for name := range dialogs {
		pb, err := playbooks.LoadPreset(name)
		if err != nil {
			return nil, err
		}
		for _, d := range pb.Danger {
			if watchedDanger[d.Name] {
				out[name] = append(out[name], d)
			}
		}
	}
	return out, nil
})

// FuzzReadOnly checks what ReadOnly approves, whatever the line: it never
// panics, ProjectCode approves it too, and the line is plain simple commands
// of plain words, inside the project, that the presets' danger rules do not
// flag.
func FuzzReadOnly(f *testing.F) {
	for _, file := range []string{"refused.txt", "readonly.txt", "projectcode.txt"} {
		lines, _ := readCorpus(f, file)
		for _, l := range lines {
			f.Add(l.cmd)
		}
	}
	if _, err := presetDanger(); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(checkLine)
}

// checkLine is FuzzReadOnly's check of one line.
func checkLine(t *testing.T, line string) {
	v := safecmd.ReadOnly(line, fuzzProject)
	pc := safecmd.ProjectCode(line, fuzzProject)
	switch {
	case !v.OK && v.Reason == "", !pc.OK && pc.Reason == "":
		t.Fatalf("%q refused without a reason", line)
	case v.OK && !pc.OK:
		t.Fatalf("ReadOnly approves %q, ProjectCode refuses it: %s", line, pc.Reason)
	case pc.OK:
		checkApproved(t, line)
	}
	if v.OK {
		checkDanger(t, line)
	}
}

// checkApproved checks an approved line on its own: it parses, holds simple
// commands only, and every word after quote removal is plain.
func checkApproved(t *testing.T, line string) {
	t.Helper()
	for i := 0; i < len(line); i++ {
		if line[i] < 0x20 || line[i] > 0x7E {
			t.Fatalf("approved %q holds the byte %#x", line, line[i])
		}
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		t.Fatalf("approved %q does not parse: %v", line, err)
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Redirect, *syntax.CmdSubst, *syntax.ParamExp, *syntax.ArithmExp, *syntax.ProcSubst,
			*syntax.ExtGlob, *syntax.Assign, *syntax.Subshell, *syntax.Block, *syntax.FuncDecl,
			*syntax.DeclClause, *syntax.TimeClause, *syntax.CoprocClause, *syntax.ArithmCmd, *syntax.TestClause:
			t.Fatalf("approved %q holds a %T", line, n)
		case *syntax.SglQuoted:
			if n.Dollar {
				t.Fatalf("approved %q holds $'…'", line)
			}
		case *syntax.DblQuoted:
			if n.Dollar {
				t.Fatalf("approved %q holds $\"…\"", line)
			}
		case *syntax.Stmt:
			if n.Background || n.Negated || n.Coprocess || n.Disown {
				t.Fatalf("approved %q holds a statement run in the background or negated", line)
			}
		case *syntax.CallExpr:
			checkWords(t, line, n.Args)
		}
		return true
	})
}

// checkWords checks the words of one approved command after quote removal.
func checkWords(t *testing.T, line string, args []*syntax.Word) {
	t.Helper()
	var prog string
	dashDash := false
	for i, w := range args {
		fields, err := expand.Fields(&expand.Config{}, w)
		if err != nil || len(fields) != 1 {
			t.Fatalf("approved %q: a word expands to %q (%v)", line, fields, err)
		}
		v := fields[0]
		switch {
		case i == 0:
			prog = v
		case i == 1 && prog == "git":
			if strings.HasPrefix(v, "-") || gitWrites[v] {
				t.Fatalf("approved %q runs git %s", line, v)
			}
			prog += " " + v
			continue
		}
		for c := range strings.SplitSeq(v, "/") {
			if c == ".." {
				t.Fatalf("approved %q has the word %q with a .. component", line, v)
			}
			if strings.HasPrefix(strings.ToLower(c), ".env") {
				t.Fatalf("approved %q names %q", line, v)
			}
		}
		if strings.HasPrefix(v, "/") {
			if c := path.Clean(v); c != fuzzProject && !strings.HasPrefix(c, fuzzProject+"/") {
				t.Fatalf("approved %q has the path %q outside %s", line, v, fuzzProject)
			}
		}
		for _, d := range deniedEverywhere {
			if v == d || strings.HasPrefix(v, d+"=") {
				t.Fatalf("approved %q has the word %q", line, v)
			}
		}
		if v == "--" {
			dashDash = true // after it, words are not flags
		}
		if i > 0 && !dashDash {
			for _, d := range deniedFor[prog] {
				if v == d || strings.HasPrefix(v, d+"=") || (len(d) == 2 && strings.HasPrefix(v, d)) {
					t.Fatalf("approved %q has the word %q, %s's %s", line, v, prog, d)
				}
			}
		}
	}
}

// checkDanger checks that no watched danger rule of a preset flags a line
// ReadOnly approves, in the preset's dialog.
func checkDanger(t *testing.T, line string) {
	t.Helper()
	rules, _ := presetDanger()
	for preset, frame := range dialogs {
		text := frame(line)
		for _, d := range rules[preset] {
			if matches(d.Match, text) {
				t.Fatalf("ReadOnly approves %q, which the %s preset's danger rule %s flags", line, preset, d.Name)
			}
		}
	}
}

// matches reports whether a pattern of m matches text.
func matches(m *pattern.Matcher, text string) bool {
	for _, p := range m.Patterns {
		if _, _, ok := p.Groups(text); ok {
			return true
		}
	}
	return false
}
