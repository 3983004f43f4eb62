package learned

import (
	"fmt"
	"testing"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/suggest/tasks"
)

func TestAppendTasks(t *testing.T) {
	t.Parallel()
	found := []tasks.Task{
		{Name: "test", Command: "make test", Source: "Makefile"},
		{Name: "build", Command: "make build", Source: "Makefile"},
		{Name: "lint", Command: "npm run lint", Source: "package.json"},
		{Name: "dev", Command: "npm run dev", Source: "package.json"},
	}
	learned := []ask.Suggestion{{Text: "make build", Confidence: 1, Count: 2, Source: "answers"}}
	for _, tc := range []struct {
		name string
		q    ask.Question
		out  []ask.Suggestion
		want string
	}{
		{"a command asked", ask.Question{Text: "Which command should I run?"}, nil,
			"[{make test false 0 0 tasks} {make build false 0 0 tasks} {npm run lint false 0 0 tasks}]"},
		{"after people's answer", ask.Question{Text: "Script to run:"}, learned,
			"[{make build false 1 2 answers} {make test false 0 0 tasks} {npm run lint false 0 0 tasks}]"},
		{"no command asked", ask.Question{Text: "Project name:"}, nil, "[]"},
		{"options naming tasks", ask.Question{Text: "Pick one", Options: []ask.Option{{Label: "Lint"}, {Label: "deploy"}, {Label: "make test"}}}, nil,
			"[{Lint true 0 0 tasks} {make test true 0 0 tasks}]"},
	} {
		got := appendTasks(tc.out, tc.q, found)
		if s := fmt.Sprint(got); s != tc.want && !(tc.want == "[]" && len(got) == 0) {
			t.Errorf("%s: %s, want %s", tc.name, s, tc.want)
		}
	}
}
