package tmux

import (
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// keyNames are the byte sequences of keys a terminal sends, by the name tmux gives
// them. tmux encodes a named key the way the pane's program asked for (cursor keys in
// application mode, for one), which clai cannot see through capture-pane.
var keyNames = map[string]string{
	"\r": "Enter", "\t": "Tab", "\x1b": "Escape", "\x7f": "BSpace",
	"\x1b[A": "Up", "\x1b[B": "Down", "\x1b[C": "Right", "\x1b[D": "Left",
	"\x1bOA": "Up", "\x1bOB": "Down", "\x1bOC": "Right", "\x1bOD": "Left",
	"\x1b[H": "Home", "\x1b[F": "End", "\x1bOH": "Home", "\x1bOF": "End",
	"\x1b[1~": "Home", "\x1b[4~": "End", "\x1b[2~": "IC", "\x1b[3~": "DC",
	"\x1b[5~": "PPage", "\x1b[6~": "NPage", "\x1b[Z": "BTab",
	"\x1bOP": "F1", "\x1bOQ": "F2", "\x1bOR": "F3", "\x1bOS": "F4",
	"\x1b[15~": "F5", "\x1b[17~": "F6", "\x1b[18~": "F7", "\x1b[19~": "F8",
	"\x1b[20~": "F9", "\x1b[21~": "F10", "\x1b[23~": "F11", "\x1b[24~": "F12",
}

// sendKeys turns bytes clai types into tmux commands: runs of text as send-keys -l
// (typed literally), known keys by name, and anything else byte for byte (-H). The
// commands are joined with ";" to run as one command list.
func sendKeys(target string, b []byte) []string {
	var args []string
	add := func(flag string, words ...string) {
		if len(args) > 0 {
			args = append(args, ";")
		}
		args = append(args, "send-keys", "-t", target)
		if flag != "" {
			args = append(args, flag)
		}
		args = append(args, words...)
	}
	var text strings.Builder
	flush := func() {
		// tmux takes an argument that ends in ";" for the end of a command: such
		// semicolons go byte for byte.
		t := strings.TrimRight(text.String(), ";")
		if t != "" {
			add("-l", "--", t)
		}
		if semis := text.Len() - len(t); semis > 0 {
			add("-H", strings.Fields(strings.Repeat("3b ", semis))...)
		}
		text.Reset()
	}
	for i := 0; i < len(b); {
		if name, n := key(b[i:]); n > 0 {
			flush()
			add("", name)
			i += n
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 || r < 0x20 {
			flush()
			add("-H", hex.EncodeToString(b[i:i+1]))
			i++
			continue
		}
		text.Write(b[i : i+n])
		i += n
	}
	flush()
	return args
}

// key returns the name of the key b starts with and its length, or 0.
func key(b []byte) (string, int) {
	if b[0] == 0x1b {
		// The longest sequence first: ESC alone is Escape only when nothing
		// known follows.
		for n := min(len(b), 5); n >= 1; n-- {
			if name, ok := keyNames[string(b[:n])]; ok {
				return name, n
			}
		}
		return "", 0
	}
	if name, ok := keyNames[string(b[:1])]; ok {
		return name, 1
	}
	if c := b[0]; c >= 1 && c <= 26 {
		return "C-" + string(rune('a'+c-1)), 1
	}
	return "", 0
}
