// Package cmdcorpus reads the files of shell commands the tests of the
// suggestion engine take their commands from.
package cmdcorpus

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Read reads a file of commands: a command a line, a line that starts with
// "q:" Go-quoted (for a command of several lines or odd bytes), a line that
// starts with "#" a note.
func Read(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var lines []string
	for n, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "q:"):
			unquoted, err := strconv.Unquote(line[2:])
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, n+1, err)
			}
			lines = append(lines, unquoted)
		default:
			lines = append(lines, line)
		}
	}
	return lines, nil
}
