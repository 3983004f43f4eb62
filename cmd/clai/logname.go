package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// maxLogStem is how many bytes of the playbook's name a log file's name keeps.
const maxLogStem = 64

// logPath is the default log file of a run of the playbook name in dir: the name
// made safe for a file name, the time and the process id.
func logPath(dir, name string, now time.Time, pid int) string {
	return filepath.Join(dir, fmt.Sprintf("%s-%s-%d.jsonl", logStem(name), now.Format("20060102-150405"), pid))
}

// logStem turns a playbook name into the start of a file name whatever it holds:
// letters, digits, '.', '_' and '-' are kept, anything else (a separator, a
// space, a control character) becomes '-', a leading '.' too (no hidden file,
// no ".."), and the result is cut to maxLogStem bytes on a character boundary.
func logStem(name string) string {
	var b strings.Builder
	for i, r := range name {
		keep := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '.' && i > 0
		if r == utf8.RuneError || !keep {
			r = '-'
		}
		if b.Len()+utf8.RuneLen(r) > maxLogStem {
			break
		}
		b.WriteRune(r)
	}
	if b.Len() == 0 {
		return "playbook"
	}
	return b.String()
}
