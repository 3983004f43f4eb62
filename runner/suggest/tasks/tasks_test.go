package tasks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
)

// folder makes a temporary folder with files (name → content).
func folder(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// commands lists the tasks' commands and sources, one a line.
func commands(tasks []Task) string {
	var b strings.Builder
	for _, task := range tasks {
		fmt.Fprintf(&b, "%s (%s)\n", task.Command, task.Source)
	}
	return b.String()
}

func find(t *testing.T, dir string, opts Options) []Task {
	t.Helper()
	tasks, err := Find(t.Context(), dir, opts)
	if err != nil {
		t.Fatalf("Find: %v", err)
	}
	return tasks
}

const makefile = `# A project's Makefile.
SHELL := /bin/bash
GO ?= go
FLAGS = -a:b
VERSION ::= 1.0
export CGO_ENABLED = 0
.PHONY: all build test lint clean
.DEFAULT_GOAL := build

all: build test

build: bin/app ## build the binary
	$(GO) build -o bin/app ./cmd/app

bin/app: main.go
	$(GO) build -o $@ .

test: GOFLAGS = -race
test:: build
	$(GO) test ./...

lint fmt: ; golangci-lint run

%.o: %.c
	cc -c $<

$(OBJS): defs.h

ifeq ($(OS),Windows_NT)
windows-only:
	echo windows
endif

define HELP
fake-target: in a define block
endef

docs.html: docs.md
	pandoc $< > $@

clean:
	rm -rf bin \
	  dist
release: build \
	test
	echo release
`

func TestFindMakefile(t *testing.T) {
	t.Parallel()
	dir := folder(t, map[string]string{"Makefile": makefile})
	want := "make all (Makefile)\nmake build (Makefile)\nmake test (Makefile)\nmake lint (Makefile)\nmake fmt (Makefile)\nmake windows-only (Makefile)\nmake clean (Makefile)\nmake release (Makefile)\n"
	if got := commands(find(t, dir, Options{})); got != want {
		t.Errorf("tasks:\n%s\nwant:\n%s", got, want)
	}
}

// TestFindMakeDatabase reads the same Makefile with make -qp, when make is
// installed: the targets make knows, sorted, the same set as the heuristic
// finds but the one in a conditional that is false.
func TestFindMakeDatabase(t *testing.T) {
	t.Parallel()
	testprog.RequireProgram(t, "make", "make")
	dir := folder(t, map[string]string{"Makefile": makefile + "include extra.mk\n", "extra.mk": "from-include:\n\ttrue\n"})
	want := "make all (Makefile)\nmake build (Makefile)\nmake clean (Makefile)\nmake fmt (Makefile)\nmake from-include (Makefile)\nmake lint (Makefile)\nmake release (Makefile)\nmake test (Makefile)\n"
	if got := commands(find(t, dir, Options{MakeDatabase: true})); got != want {
		t.Errorf("tasks:\n%s\nwant:\n%s", got, want)
	}
}

// TestFindMakeDatabaseErrors runs make -qp on a Makefile make refuses, and
// a make that does not exist: errors, no tasks, no hang.
func TestFindMakeDatabaseErrors(t *testing.T) {
	t.Parallel()
	testprog.RequireProgram(t, "make", "make")
	broken := folder(t, map[string]string{"Makefile": "ifeq (a,b)\nunterminated:\n"})
	if tasks, err := Find(t.Context(), broken, Options{MakeDatabase: true}); err == nil || len(tasks) != 0 {
		t.Errorf("a broken Makefile: %v, %v", tasks, err)
	}
	dir := folder(t, map[string]string{"Makefile": "a:\n"})
	if _, err := Find(t.Context(), dir, Options{MakeDatabase: true, Make: filepath.Join(dir, "no-make")}); err == nil {
		t.Error("no error when make cannot start")
	}
	slow := folder(t, map[string]string{"Makefile": "X := $(shell sleep 30)\na:\n"})
	if _, err := Find(t.Context(), slow, Options{MakeDatabase: true, Timeout: 100 * time.Millisecond}); err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Errorf("a Makefile slower than the timeout: %v", err)
	}
}

const packageJSON = `{
  "name": "web",
  "scripts": {
    "dev": "vite",
    "pretest": "echo before",
    "test": "vitest run",
    "posttest": "echo after",
    "build": "vite build",
    "preview": "vite preview",
    "lint:fix": "eslint --fix ."
  },
  "devDependencies": {"vite": "^5"}
}`

func TestFindPackageJSON(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"npm", map[string]string{"package.json": packageJSON},
			"npm run dev (package.json)\nnpm run test (package.json)\nnpm run build (package.json)\nnpm run preview (package.json)\nnpm run lint:fix (package.json)\n"},
		{"pnpm by lockfile", map[string]string{"package.json": `{"scripts":{"a":"x"}}`, "pnpm-lock.yaml": ""}, "pnpm run a (package.json)\n"},
		{"yarn by lockfile", map[string]string{"package.json": `{"scripts":{"a":"x"}}`, "yarn.lock": ""}, "yarn run a (package.json)\n"},
		{"bun by lockfile", map[string]string{"package.json": `{"scripts":{"a":"x"}}`, "bun.lockb": ""}, "bun run a (package.json)\n"},
		{"the field over the lockfile", map[string]string{"package.json": `{"packageManager":"pnpm@9.1.0","scripts":{"a":"x"}}`, "yarn.lock": ""}, "pnpm run a (package.json)\n"},
		{"no scripts", map[string]string{"package.json": `{"name":"x"}`}, ""},
		{"null scripts", map[string]string{"package.json": `{"scripts":null}`}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := commands(find(t, folder(t, c.files), Options{})); got != c.want {
				t.Errorf("tasks:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

const taskfile = `version: '3'
vars:
  NAME: app
tasks:
  default:
    cmds: [task --list]
  build:
    desc: Build it
    cmds:
      - go build ./...
  test: go test ./...
  internal-helper:
    internal: true
    cmds: [echo hidden]
  deploy-*:
    cmds: ["echo {{index .MATCH 0}}"]
  docs:serve:
    cmds: [mkdocs serve]
`

func TestFindTaskfile(t *testing.T) {
	t.Parallel()
	dir := folder(t, map[string]string{"Taskfile.yml": taskfile})
	want := "task default (Taskfile.yml)\ntask build (Taskfile.yml)\ntask test (Taskfile.yml)\ntask docs:serve (Taskfile.yml)\n"
	if got := commands(find(t, dir, Options{})); got != want {
		t.Errorf("tasks:\n%s\nwant:\n%s", got, want)
	}
}

const justfile = `# A justfile.
set shell := ["bash", "-c"]
set dotenv-load
alias t := test
export RUST_LOG := "info"
version := "1.0"
image:="app"

default:
    just --list

# Build in a mode.
build mode="debug": fmt
    cargo build --profile {{mode}}

@test *args:
    cargo test {{args}}

serve port="8080:80":
    echo {{port}}

_private-helper:
    echo hidden

[private]
also-private:
    echo hidden

[group('ci')]
ci: build test

fmt:
    cargo fmt
`

func TestFindJustfile(t *testing.T) {
	t.Parallel()
	dir := folder(t, map[string]string{"justfile": justfile})
	want := "just default (justfile)\njust build (justfile)\njust test (justfile)\njust serve (justfile)\njust ci (justfile)\njust fmt (justfile)\n"
	if got := commands(find(t, dir, Options{})); got != want {
		t.Errorf("tasks:\n%s\nwant:\n%s", got, want)
	}
}

// TestFindAll reads a folder with every kind of file: Makefile first, then
// package.json, Taskfile and justfile.
func TestFindAll(t *testing.T) {
	t.Parallel()
	dir := folder(t, map[string]string{
		"Makefile":     "test:\n\tgo test ./...\n",
		"package.json": `{"scripts":{"test":"vitest"}}`,
		"Taskfile.yml": "version: '3'\ntasks:\n  test: go test\n",
		"justfile":     "test:\n    cargo test\n",
	})
	want := "make test (Makefile)\nnpm run test (package.json)\ntask test (Taskfile.yml)\njust test (justfile)\n"
	if got := commands(find(t, dir, Options{})); got != want {
		t.Errorf("tasks:\n%s\nwant:\n%s", got, want)
	}
	if got := commands(find(t, t.TempDir(), Options{})); got != "" {
		t.Errorf("an empty folder has tasks: %s", got)
	}
}

// TestFindHostile reads files that are broken, binary, huge or shaped to
// hurt: each gives an error or fewer tasks, never a panic or a hang, and
// the good files beside it still count.
func TestFindHostile(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("target-x:\n\ttrue\n", MaxFileSize/16+100) // over the bound: read up to it
	many := strings.Builder{}
	for i := range MaxTasks + 50 {
		fmt.Fprintf(&many, "t%d:\n", i)
	}
	laughs := "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\ntasks:\n  ok: echo\n  boom: *g\n"
	cases := []struct {
		name    string
		files   map[string]string
		want    int  // tasks
		wantErr bool // an error is expected
	}{
		{"binary Makefile", map[string]string{"Makefile": "\x00\xff\xfe:\x00\n\t\x01\n:::\n=:\n"}, 0, false},
		{"huge Makefile", map[string]string{"Makefile": huge}, 1, false},
		{"many targets", map[string]string{"Makefile": many.String()}, MaxTasks, false},
		{"open define", map[string]string{"Makefile": "define X\na:\n"}, 0, false},
		{"broken package.json", map[string]string{"package.json": `{"scripts": {"a": `, "justfile": "ok:\n"}, 1, true},
		{"scripts not an object", map[string]string{"package.json": `{"scripts": ["a"]}`}, 0, true},
		{"deep package.json", map[string]string{"package.json": strings.Repeat("[", 100000)}, 0, true},
		{"huge package.json", map[string]string{"package.json": `{"scripts":{"a":"` + strings.Repeat("x", MaxFileSize) + `"}}`}, 0, true},
		{"broken Taskfile", map[string]string{"Taskfile.yml": "tasks: [\n"}, 0, true},
		{"tasks not a map", map[string]string{"Taskfile.yml": "tasks: 3\n"}, 0, true},
		{"billion laughs", map[string]string{"Taskfile.yml": laughs}, 2, false},
		{"binary justfile", map[string]string{"justfile": "\x00:\n\xff\xfe\n@:\n:=\n"}, 0, false},
		{"a folder named Makefile", map[string]string{"Makefile/.keep": ""}, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, content := range c.files {
				path := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			tasks, err := Find(t.Context(), dir, Options{})
			if len(tasks) != c.want || (err != nil) != c.wantErr {
				t.Errorf("%d tasks, error %v; want %d tasks, an error: %v", len(tasks), err, c.want, c.wantErr)
			}
		})
	}
}
