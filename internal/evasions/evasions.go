// Package evasions reads the corpus of drawings that hide a dangerous
// command from a reader of raw bytes while a person sees it on the screen
// (runner/stream's testdata/evasions.txt), for the stripper's tests and the
// engine's danger tests alike.
package evasions

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Drawing is one drawing of the corpus and its name.
type Drawing struct {
	Name, Drawn string
}

// Read reads the corpus at path: a drawing a line, as a Go string literal,
// then a tab and its name; a line that starts with "#" is a note. A corpus
// with no drawing is an error.
func Read(path string) ([]Drawing, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var list []Drawing
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		quoted, name, ok := strings.Cut(line, "\t")
		drawn, err := strconv.Unquote(quoted)
		if !ok || err != nil || name == "" {
			return nil, fmt.Errorf("%s:%d: want a Go string, a tab and a name: %q", path, n, line)
		}
		list = append(list, Drawing{Name: name, Drawn: drawn})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, errors.New(path + " holds no drawing")
	}
	return list, nil
}
