package normalize

import "strings"

// command adds one simple command: its wrappers (sudo, env, ...) with their
// options, the program as typed, and the program's arguments by its rules.
func (t *template) command(words []word) {
	i := t.wrappers(words)
	if i >= len(words) {
		return
	}
	program := words[i]
	t.keep(program)
	name := ""
	if program.literal {
		name = toolName(program.value)
	}
	t.tools = append(t.tools, name)
	t.arguments(name, words[i+1:])
}

// arguments adds the arguments of the program name by its rules.
func (t *template) arguments(name string, words []word) {
	switch name {
	case "git":
		t.git(words)
	case "npm", "pnpm", "yarn":
		t.packageManager(words)
	case "go":
		t.goTool(words)
	case "pytest", "py.test":
		t.pytest(words)
	case "python", "python3":
		if len(words) >= 2 && words[0].value == "-m" && words[1].value == "pytest" {
			t.keep(words[0])
			t.keep(words[1])
			t.pytest(words[2:])
			return
		}
		t.autoAll(words)
	default:
		t.autoAll(words)
	}
}

// wrappers are the programs that run another program, each with the short
// options of its own that take a value in the next word.
var wrappers = map[string]string{
	"sudo":    "CDghpRrTtUu",
	"doas":    "Cu",
	"env":     "CSu",
	"nohup":   "",
	"command": "",
	"exec":    "a",
	"nice":    "n",
	"builtin": "",
}

// wrappers adds the wrappers that lead words and their options and settings
// (env's NAME=value), and returns the index of the program they run.
func (t *template) wrappers(words []word) int {
	i := 0
	for i < len(words) && words[i].literal {
		valued, ok := wrappers[words[i].value]
		if !ok {
			break
		}
		t.keep(words[i])
		i++
		for i < len(words) && words[i].literal {
			w := words[i]
			switch {
			case w.value == "--":
				t.keep(w)
				return i + 1
			case strings.HasPrefix(w.value, "-"):
				t.auto(w)
				i++
				if takesValue(w.value, valued) && i < len(words) {
					t.auto(words[i])
					i++
				}
				continue
			case strings.Contains(w.value, "=") && !strings.HasPrefix(w.value, "="):
				t.setting(w)
				i++
				continue
			}
			break
		}
	}
	return i
}

// takesValue reports whether the short option flag ("-u") is one of valued,
// whose value is the next word.
func takesValue(flag, valued string) bool {
	return len(flag) == 2 && flag[0] == '-' && strings.IndexByte(valued, flag[1]) >= 0
}

// setting adds NAME=value with the value judged alone, as an assignment's is.
func (t *template) setting(w word) {
	eq := strings.IndexByte(w.text, '=')
	if eq < 0 || strings.ContainsAny(w.text[:eq], `'"\$`+"`") || !strings.HasPrefix(w.value, w.text[:eq+1]) {
		t.keep(w)
		return
	}
	name := w.text[:eq+1]
	value := word{text: w.text[eq+1:], value: w.value[len(name):], literal: true}
	t.flagValue(name, value, Slot(value.value))
}

// autoAll adds every word by the default rule.
func (t *template) autoAll(words []word) {
	for _, w := range words {
		t.auto(w)
	}
}

// isFlag reports whether w is an option: a literal word that starts with "-".
func isFlag(w word) bool { return w.literal && strings.HasPrefix(w.value, "-") && w.value != "-" }

// git adds git's arguments: its global options, the subcommand as typed, and
// the subcommand's arguments by its rule.
func (t *template) git(words []word) {
	i := 0
	for i < len(words) && isFlag(words[i]) {
		flag := words[i]
		t.auto(flag)
		i++
		if (flag.value == "-C" || flag.value == "-c") && i < len(words) {
			t.auto(words[i])
			i++
		}
	}
	if i == len(words) {
		return
	}
	sub := words[i]
	t.keep(sub)
	rest := words[i+1:]
	switch sub.value {
	case "commit":
		t.gitCommit(rest)
	case "checkout", "switch", "push", "pull", "fetch", "merge", "rebase", "branch":
		t.refs(rest)
	default:
		t.autoAll(rest)
	}
}

// gitCommit adds git commit's arguments: the message of -m, --message and a
// cluster ending in m (-am) is always a <msg> slot, typed in one word with
// its option (-mfix, --message=fix) or in the next.
func (t *template) gitCommit(words []word) {
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case !isFlag(w):
			t.auto(w)
		case w.value == "--":
			t.keep(w)
			t.autoAll(words[i+1:])
			return
		case w.value == "--message" || isShortCluster(w.value) && strings.HasSuffix(w.value, "m"):
			t.keep(w)
			if i+1 < len(words) {
				i++
				t.slot(words[i], SlotMsg)
			}
		case strings.HasPrefix(w.value, "--message="):
			flag, value, ok := splitFlagValue(w)
			if !ok {
				t.slot(w, SlotMsg)
				continue
			}
			t.flagValue(flag, value, SlotMsg)
		case strings.HasPrefix(w.value, "-m") && strings.HasPrefix(w.text, "-m"):
			t.flagValue("-m", word{text: w.text[2:], value: w.value[2:], literal: true}, SlotMsg)
		default:
			t.auto(w)
		}
	}
}

// isShortCluster reports whether flag is one dash and letters: "-a", "-am".
func isShortCluster(flag string) bool {
	if len(flag) < 2 || flag[0] != '-' || flag[1] == '-' {
		return false
	}
	for i := 1; i < len(flag); i++ {
		c := flag[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// refs adds the arguments of a git subcommand that names branches, tags and
// remotes (checkout, switch, push, pull, fetch, merge, rebase, branch). A
// name is kept as typed, so "git checkout main" is learned as itself, even
// with a slash in it ("feature/login", "origin/main"); a hash, URL or number
// goes in its slot; a word is a <path> only when it reads as one for sure
// (".", "./x", "../x", "/x", "~/x") or follows "--".
func (t *template) refs(words []word) {
	for i, w := range words {
		switch {
		case w.literal && w.value == "--":
			t.keep(w)
			t.autoAll(words[i+1:])
			return
		case !w.literal || isFlag(w):
			t.auto(w)
		default:
			t.ref(w)
		}
	}
}

// ref adds a word that names a branch, a tag, a remote or a commit.
func (t *template) ref(w word) {
	switch s := Slot(w.value); {
	case s == SlotURL || s == SlotSHA || s == SlotNum || s == SlotMsg:
		t.slot(w, s)
	case isSurelyPath(w.value):
		t.slot(w, SlotPath)
	default:
		t.keep(w)
	}
}

// isSurelyPath reports whether s can only be a path: ".", "..", or a word
// that starts with "./", "../", "/" or "~".
func isSurelyPath(s string) bool {
	if s == "." || s == ".." {
		return true
	}
	for _, prefix := range []string{"./", "../", "/", "~"} {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// packageManager adds the arguments of npm, pnpm and yarn: the subcommand as
// typed; for install/add/remove and their kin the package names kept (a
// local folder or tarball by path and a git or tarball URL in their slots);
// for run the script name kept; any other subcommand (yarn's and pnpm's
// "yarn build" runs a script too) kept with its arguments by the default rule.
func (t *template) packageManager(words []word) {
	i := 0
	for i < len(words) && isFlag(words[i]) {
		t.auto(words[i])
		i++
	}
	if i == len(words) {
		return
	}
	sub := words[i]
	t.keep(sub)
	rest := words[i+1:]
	switch sub.value {
	case "install", "i", "add", "remove", "rm", "r", "uninstall", "un", "update", "up", "upgrade", "link", "ln":
		t.packages(rest)
	case "run", "run-script", "rum", "urn":
		t.script(rest)
	default:
		t.autoAll(rest)
	}
}

// packages adds package specs: names kept ("react", "@types/node",
// "lodash@4.17.21"), a sure path or a URL in its slot.
func (t *template) packages(words []word) {
	for _, w := range words {
		switch {
		case !w.literal || isFlag(w):
			t.auto(w)
		case Slot(w.value) == SlotURL:
			t.slot(w, SlotURL)
		case isSurelyPath(w.value):
			t.slot(w, SlotPath)
		default:
			t.keep(w)
		}
	}
}

// script adds "run"'s arguments: the script's name kept, what follows by
// the default rule.
func (t *template) script(words []word) {
	named := false
	for i, w := range words {
		switch {
		case w.literal && w.value == "--":
			t.keep(w)
			t.autoAll(words[i+1:])
			return
		case !named && !isFlag(w):
			t.keep(w)
			named = true
		default:
			t.auto(w)
		}
	}
}

// testPatternFlags are go test's flags whose value is a pattern of test
// names, written for one use: a <msg> slot.
var testPatternFlags = map[string]bool{
	"-run": true, "--run": true, "-test.run": true,
	"-bench": true, "--bench": true, "-test.bench": true,
	"-skip": true, "--skip": true, "-test.skip": true,
	"-fuzz": true, "--fuzz": true, "-test.fuzz": true,
}

// goTool adds the arguments of go: for go test, the patterns of -run,
// -bench, -skip and -fuzz are <msg> slots and the packages paths ("./..."
// is kept: it means every package of any module); any other subcommand's
// arguments by the default rule.
func (t *template) goTool(words []word) {
	if len(words) == 0 {
		return
	}
	t.keep(words[0])
	rest := words[1:]
	if words[0].value != "test" {
		t.autoAll(rest)
		return
	}
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		if !isFlag(w) {
			t.auto(w)
			continue
		}
		if testPatternFlags[w.value] {
			t.keep(w)
			if i+1 < len(rest) {
				i++
				t.slot(rest[i], SlotMsg)
			}
			continue
		}
		if flag, value, ok := splitFlagValue(w); ok && testPatternFlags[strings.TrimSuffix(flag, "=")] {
			t.flagValue(flag, value, SlotMsg)
			continue
		}
		t.auto(w)
	}
}

// pytestValued are pytest's options whose value is the next word.
var pytestValued = map[string]bool{
	"-m": true, "-n": true, "-p": true, "-c": true, "-o": true, "-W": true,
	"--maxfail": true, "--tb": true, "--durations": true, "--ignore": true, "--deselect": true,
	"--cov": true, "--rootdir": true, "--basetemp": true, "--junitxml": true, "--log-level": true,
}

// pytest adds pytest's arguments: every positional word is a <path> (a file,
// a folder or a node id such as tests/test_api.py::test_get), the
// expression of -k a <msg>, and the value of an option that takes one by the
// default rule.
func (t *template) pytest(words []word) {
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case !isFlag(w) && w.literal:
			t.slot(w, SlotPath)
		case !isFlag(w):
			t.keep(w)
		case w.value == "-k":
			t.keep(w)
			if i+1 < len(words) {
				i++
				t.slot(words[i], SlotMsg)
			}
		case pytestValued[w.value]:
			t.auto(w)
			if i+1 < len(words) {
				i++
				t.auto(words[i])
			}
		default:
			t.auto(w)
		}
	}
}
