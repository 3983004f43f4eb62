package tmux

import (
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/clai-sh/clai/runner/driver/keys"
)

// sendKeys turns bytes typed into the pane into tmux commands (see commands.text).
func sendKeys(target string, b []byte) []string {
	c := commands{target: target}
	c.text(b)
	return c.args
}

// typeKeys turns keystrokes into tmux commands: their Data as sendKeys does, then
// each key by its tmux name, so tmux encodes it as the pane's program asked.
func typeKeys(target string, k keys.Keystrokes) []string {
	c := commands{target: target}
	c.text(k.Data)
	for _, key := range k.Keys {
		c.add("", key.Tmux())
	}
	return c.args
}

// commands builds a tmux command list of send-keys commands to one pane, joined
// with ";" to run as one.
type commands struct {
	target string
	args   []string
}

// add adds a send-keys command with an optional flag.
func (c *commands) add(flag string, words ...string) {
	if len(c.args) > 0 {
		c.args = append(c.args, ";")
	}
	c.args = append(c.args, "send-keys", "-t", c.target)
	if flag != "" {
		c.args = append(c.args, flag)
	}
	c.args = append(c.args, words...)
}

// text adds commands that type b: runs of text literally (send-keys -l), the
// sequences a terminal sends for a key (what a person types: an arrow key, Enter)
// by the key's name, and anything else byte for byte (-H).
func (c *commands) text(b []byte) {
	var run strings.Builder
	flush := func() {
		// tmux takes an argument that ends in ";" for the end of a command: such
		// semicolons go byte for byte.
		t := strings.TrimRight(run.String(), ";")
		if t != "" {
			c.add("-l", "--", t)
		}
		if semis := run.Len() - len(t); semis > 0 {
			c.add("-H", strings.Fields(strings.Repeat("3b ", semis))...)
		}
		run.Reset()
	}
	for i := 0; i < len(b); {
		if key, n := keys.Read(b[i:]); n > 0 {
			flush()
			c.add("", key.Tmux())
			i += n
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 || r < 0x20 {
			flush()
			c.add("-H", hex.EncodeToString(b[i:i+1]))
			i++
			continue
		}
		run.Write(b[i : i+n])
		i += n
	}
	flush()
}
