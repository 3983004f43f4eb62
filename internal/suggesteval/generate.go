// Package suggesteval measures history suggestions the way a person would
// meet them: a seeded generator of realistic shell histories over several
// repositories, baselines computed on the same stream, and the hit rates and
// calibration of any predictor asked before each command.
package suggesteval

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"time"
)

// Step is one command of a generated history, as a shell's hook reports it.
type Step struct {
	Session string
	Shell   string
	PID     int
	// Repo is the repository the command ran in, "" outside any; Cwd is
	// the folder it ran in, under Root.
	Repo string
	Cwd  string
	Cmd  string
	Exit int
	At   time.Time
}

// project is a repository of one ecosystem and the commands of its loop.
type project struct {
	name  string
	files []string
	test  []string // the commands that test, the first the usual one
	run   []string // what else the ecosystem's work runs
}

var projects = []project{
	{name: "api", files: []string{"main.go", "server.go", "server_test.go", "store/db.go", "store/db_test.go", "go.mod"},
		test: []string{"go test ./...", "go test -run TestServer ./...", "go vet ./..."}, run: []string{"go build ./...", "make lint", "go mod tidy"}},
	{name: "web", files: []string{"src/App.tsx", "src/api.ts", "src/App.test.tsx", "package.json", "README.md"},
		test: []string{"npm test", "npm run lint", "npx tsc --noEmit"}, run: []string{"npm run dev", "npm install", "npm run build"}},
	{name: "ml", files: []string{"train.py", "model.py", "tests/test_model.py", "requirements.txt", "notebooks/eda.ipynb"},
		test: []string{"pytest -x", "pytest tests/test_model.py", "ruff check ."}, run: []string{"python train.py", "pip install -r requirements.txt", "source .venv/bin/activate"}},
}

// typos are commands mistyped: the shell did not find them (exit 127).
var typos = []string{"gti status", "got status", "sl", "mkae test", "gi tdiff", "npm tset", "pyhton train.py", "cd..", "claer"}

// Generate makes a history of n commands, the same for the same seed: work
// sessions in the three repositories under root (a Go service, a web
// front end, a Python model), each a loop of editing, testing, committing
// and pushing, with typos, cd between folders, one-off commands, noise
// (clear, ls) and gaps of minutes within a session and of hours between.
func Generate(seed uint64, root string, n int) []Step {
	g := &generator{rng: rand.New(rand.NewPCG(seed, 0x5eed)), root: root, at: time.Date(2026, 9, 1, 9, 0, 0, 0, time.UTC)}
	for len(g.out) < n {
		g.session()
	}
	return g.out[:n]
}

type generator struct {
	rng  *rand.Rand
	root string
	at   time.Time
	out  []Step
	// The session being made.
	id     string
	pid    int
	shell  string
	p      *project
	cwd    string
	edited string
	branch int
}

func (g *generator) session() {
	g.id = fmt.Sprintf("eval-%016x", g.rng.Uint64())
	g.pid = 1000 + g.rng.IntN(30000)
	g.shell = []string{"bash", "zsh", "fish"}[g.rng.IntN(3)]
	g.at = g.at.Add(time.Duration(2+g.rng.IntN(14)) * time.Hour)
	g.p = &projects[g.rng.IntN(len(projects))]
	g.edited = "" // a file of this project
	g.cwd = g.root
	g.emit("cd "+filepath.Join(g.root, g.p.name), 0)
	g.cwd = filepath.Join(g.root, g.p.name)
	g.emit("git status", 0)
	if g.rng.IntN(3) == 0 {
		g.emit("git pull", 0)
	}
	branched := g.rng.IntN(4) == 0
	if branched {
		g.branch++
		g.emit(fmt.Sprintf("git checkout -b feature/%d", g.branch), 0)
	}
	for range 3 + g.rng.IntN(6) {
		g.cycle()
	}
	switch {
	case branched:
		// A new branch's first push names it.
		g.emit(fmt.Sprintf("git push -u origin feature/%d", g.branch), 0)
	case g.rng.IntN(2) == 0:
		g.emit("git push", 0)
	}
}

// cycle is one round of work: edit, test until green, commit.
func (g *generator) cycle() {
	for range 1 + g.rng.IntN(3) {
		if g.edited == "" || g.rng.IntN(3) == 0 {
			g.edited = g.p.files[g.rng.IntN(len(g.p.files))]
		}
		g.emit("vim "+g.edited, 0)
		g.noise()
		test := g.p.test[0]
		if g.rng.IntN(4) == 0 {
			test = g.p.test[1+g.rng.IntN(len(g.p.test)-1)]
		}
		exit := 0
		if g.rng.IntN(3) == 0 {
			exit = 1
		}
		g.emit(test, exit)
		if exit == 0 {
			break
		}
	}
	if g.rng.IntN(3) == 0 {
		g.emit(g.p.run[g.rng.IntN(len(g.p.run))], 0)
	}
	g.emit("git diff", 0)
	if g.rng.IntN(2) == 0 {
		g.emit("git add -A", 0)
	} else {
		g.emit("git add "+g.edited, 0)
	}
	g.emit(fmt.Sprintf("git commit -m %q", g.message()), 0)
}

// message is a commit message: written for the change, so seldom the same
// twice, except the "wip" some people commit as a habit.
func (g *generator) message() string {
	if g.rng.IntN(6) == 0 {
		return "wip"
	}
	verbs := []string{"fix", "add a test for", "tidy", "handle the empty case in", "rename things in", "speed up", "document", "simplify"}
	topics := []string{"the handler", "the parser", "the config", "errors", "the cache", "retries", "the login", "the schema", "logging", "the CLI", "the build", "paging"}
	return verbs[g.rng.IntN(len(verbs))] + " " + topics[g.rng.IntN(len(topics))]
}

// noise adds, now and then, what people type between the real steps: a
// typo, a clear, a look around, a one-off.
func (g *generator) noise() {
	switch r := g.rng.IntN(20); {
	case r == 0:
		g.emit(typos[g.rng.IntN(len(typos))], 127)
	case r == 1:
		g.emit("clear", 0)
	case r == 2:
		g.emit("ls", 0)
	case r == 3:
		g.emit(fmt.Sprintf("curl -s https://status.example.com/v1/checks/%d", g.rng.IntN(1_000_000)), 0)
	case r == 4:
		g.emit(fmt.Sprintf("du -sh /tmp/build-%d", g.rng.IntN(1_000_000)), 0)
	}
}

func (g *generator) emit(cmd string, exit int) {
	g.at = g.at.Add(time.Duration(5+g.rng.IntN(300)) * time.Second)
	repo := ""
	if g.cwd != g.root {
		repo = g.cwd
	}
	g.out = append(g.out, Step{Session: g.id, Shell: g.shell, PID: g.pid, Repo: repo, Cwd: g.cwd, Cmd: cmd, Exit: exit, At: g.at})
}

// Repos are the folders of the repositories of a history under root.
func Repos(root string) []string {
	var out []string
	for _, p := range projects {
		out = append(out, filepath.Join(root, p.name))
	}
	return out
}
