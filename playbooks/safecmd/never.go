package safecmd

import (
	"fmt"
	"strings"
)

// neverWords are flags that write, delete or run something in some program of
// the allow-list. A word that is one (or one with =value) is refused wherever
// it stands, even as text (grep -e -delete) or after --, so that no reading of
// the line by any program takes it as that flag.
var neverWords = []string{
	"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls",
	"--output", "--ext-diff", "--textconv", "--pre", "--pre-glob", "--search-zip",
	"--compress-program", "--temporary-directory", "--files0-from", "--in-place",
	"--exec", "-toolexec", "-vettool", "--config", "--eval", "--script-shell",
	"--open-files-in-pager", "--basetemp",
}

// never says why the word v of a command of p is refused wherever it stands,
// or "": in the words of p's own refusals when it has one for that flag.
func (p *compiled) never(v string) string {
	for _, n := range neverWords {
		if v != n && !strings.HasPrefix(v, n+"=") {
			continue
		}
		if why, ok := p.refused[n]; ok {
			return fmt.Sprintf("%s: %s %s", p.full, n, why)
		}
		return fmt.Sprintf("%s: %s, which writes, deletes or runs something in some program", p.full, n)
	}
	return ""
}
