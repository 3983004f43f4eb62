package tasks

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml"
)

// taskfileNames are the files go-task reads, in its order.
var taskfileNames = []string{"Taskfile.yml", "taskfile.yml", "Taskfile.yaml", "taskfile.yaml", "Taskfile.dist.yml", "taskfile.dist.yml", "Taskfile.dist.yaml", "taskfile.dist.yaml"}

// findTaskfile returns the tasks of the folder's Taskfile, run by
// "task NAME": all but the internal ones and the wildcard ones.
func findTaskfile(_ context.Context, dir string, _ Options) ([]Task, error) {
	name := firstFile(dir, taskfileNames...)
	if name == "" {
		return nil, nil
	}
	path := filepath.Join(dir, name)
	data, whole, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	if !whole {
		return nil, fmt.Errorf("tasks: %s is over %d bytes: skipped", path, MaxFileSize)
	}
	var file struct {
		Tasks yaml.MapSlice `yaml:"tasks"`
	}
	if err := yaml.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("tasks: %s: %w", path, firstLineOf(err.Error()))
	}
	c := newCollector(name, "task")
	for _, item := range file.Tasks {
		taskName, ok := item.Key.(string)
		if !ok || strings.ContainsAny(taskName, "* \t\n") || isInternal(item.Value) {
			continue
		}
		if !c.add(taskName) {
			break
		}
	}
	return c.tasks, nil
}

// isInternal reports whether a task's definition says internal: true.
func isInternal(def any) bool {
	switch d := def.(type) {
	case yaml.MapSlice:
		for _, item := range d {
			if item.Key == "internal" {
				return item.Value == true
			}
		}
	case map[string]any:
		return d["internal"] == true
	}
	return false
}

// firstLineOf is an error message's first line, as an error: the YAML
// library's messages show the source after it.
func firstLineOf(msg string) error {
	line, _, _ := strings.Cut(msg, "\n")
	return fmt.Errorf("%s", strings.TrimSpace(line))
}
