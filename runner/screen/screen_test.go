package screen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/golden"
)

// The recordings below are of real programs in tmux (120x40,
// TERM=xterm-256color): the .cast is the program's output, each NN-label.txt
// what `tmux capture-pane -p` showed after step NN.
const recordings = "../../testdata/screens"

type castEvent struct {
	t    float64
	kind string // "o" output, "i" input, "m" marker
	data string
}

type capture struct {
	file  string
	until float64 // feed "o" events strictly before this cast time
}

// inputReply matches "i" events that are the terminal's answers to the
// program's queries rather than keys.
var inputReply = regexp.MustCompile(`^(?s:\x1bP.*|\x1b\].*|\x1b\[[?>]?[\d;]*[cRn]|\x1b\[\?[\d;]*\$y|\x1b\[[IO])$`)

func loadCast(t testing.TB, path string) []castEvent {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	sc.Scan() // header
	var evs []castEvent
	for sc.Scan() {
		var raw [3]any
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		evs = append(evs, castEvent{raw[0].(float64), raw[1].(string), raw[2].(string)})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return evs
}

// loadCaptures reads steps.json and places each capture on the cast's clock.
// steps.json runs on the recorder's clock, 50-85 ms ahead of the cast's, so
// its times cannot be used as they are: the k-th "keys" step is the k-th
// "i" event that is not a terminal reply, which gives the offset; a capture
// shows the output up to its own time minus that offset and never past the
// next key sent after it.
func loadCaptures(t testing.TB, path string, evs []castEvent) []capture {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var steps []struct {
		Kind string  `json:"kind"`
		File string  `json:"file"`
		T    float64 `json:"t"`
	}
	if err := json.Unmarshal(b, &steps); err != nil {
		t.Fatal(err)
	}
	var keyT []float64
	for _, e := range evs {
		if e.kind == "i" && !inputReply.MatchString(e.data) {
			keyT = append(keyT, e.t)
		}
	}
	var offset []float64
	for _, s := range steps {
		if s.Kind == "keys" {
			if len(offset) == len(keyT) {
				t.Fatalf("%s: more keys steps than key events in the cast", path)
			}
			offset = append(offset, s.T-keyT[len(offset)])
		}
	}
	if len(offset) != len(keyT) || len(offset) == 0 {
		t.Fatalf("%s: %d keys steps, %d key events", path, len(offset), len(keyT))
	}
	var caps []capture
	nkeys := 0
	for _, s := range steps {
		switch s.Kind {
		case "keys":
			nkeys++
		case "snap":
			until := s.T - offset[min(nkeys, len(offset)-1)]
			if nkeys < len(keyT) {
				until = min(until, keyT[nkeys])
			} else {
				until = math.Inf(1)
			}
			caps = append(caps, capture{s.File, until})
		}
	}
	return caps
}

// normCapture applies Text's rules to a tmux capture.
func normCapture(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\u00a0", " "), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

type replayed struct {
	file, got, want string
}

// replay feeds a recording into a 40x120 screen and returns, for every
// capture, the rendered text and the normalised capture.
func replay(t testing.TB, name string) ([]replayed, *Screen) {
	t.Helper()
	dir := filepath.Join(recordings, name)
	evs := loadCast(t, filepath.Join(dir, name+".cast"))
	caps := loadCaptures(t, filepath.Join(dir, "steps.json"), evs)
	s := New(40, 120)
	var out []replayed
	i := 0
	for _, c := range caps {
		for ; i < len(evs) && evs[i].t < c.until; i++ {
			if evs[i].kind == "o" {
				s.Write([]byte(evs[i].data))
			}
		}
		want, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, replayed{c.file, s.Text(), normCapture(string(want))})
	}
	for ; i < len(evs); i++ {
		if evs[i].kind == "o" {
			s.Write([]byte(evs[i].data))
		}
	}
	return out, s
}

// Every capture of the four recordings renders exactly as tmux showed it
// (DECISION.md: 53 of 53 screens).
func TestRecordingsMatchCaptures(t *testing.T) {
	for _, name := range []string{"claude-onboarding-to-prompt", "create-vite-scaffold", "inquirer-demo", "git-add-p"} {
		t.Run(name, func(t *testing.T) {
			shots, _ := replay(t, name)
			if len(shots) == 0 {
				t.Fatal("no captures")
			}
			for _, r := range shots {
				if r.got != r.want {
					t.Errorf("%s differs from the capture:%s", r.file, golden.Diff(r.want, r.got))
				}
			}
		})
	}
}

// The screens a playbook will match first, spelled out.
func TestKeyScreens(t *testing.T) {
	cases := []struct {
		recording, file string
		lines           []string // must appear as whole lines
	}{
		{"claude-onboarding-to-prompt", "01-theme-picker.txt", []string{
			" Choose the text style that looks best with your terminal",
			" ❯ 2. Dark mode ✔",
			"   3. Light mode",
		}},
		{"claude-onboarding-to-prompt", "02-theme-down.txt", []string{
			" ❯ 3. Light mode",
		}},
		{"claude-onboarding-to-prompt", "05-trust-dialog.txt", []string{
			" ❯ 1. Yes, I trust this folder",
			"   2. No, exit",
		}},
		{"claude-onboarding-to-prompt", "06-trust-down.txt", []string{
			"   1. Yes, I trust this folder",
			" ❯ 2. No, exit",
		}},
		{"claude-onboarding-to-prompt", "08-main-prompt.txt", []string{
			"❯", // "❯" + U+00A0, trimmed
		}},
		{"create-vite-scaffold", "04-select-framework.txt", []string{
			"◆  Select a framework:",
			"│  ● Vanilla",
			"│  ○ React",
		}},
		{"create-vite-scaffold", "06-framework-down2.txt", []string{
			"│  ● React",
		}},
	}
	byRec := map[string][]replayed{}
	for _, c := range cases {
		shots, ok := byRec[c.recording]
		if !ok {
			shots, _ = replay(t, c.recording)
			byRec[c.recording] = shots
		}
		var found *replayed
		for i := range shots {
			if shots[i].file == c.file {
				found = &shots[i]
			}
		}
		if found == nil {
			t.Fatalf("%s/%s: no such capture", c.recording, c.file)
		}
		if found.got != found.want {
			t.Errorf("%s/%s differs from the capture:%s", c.recording, c.file, golden.Diff(found.want, found.got))
		}
		lines := strings.Split(found.got, "\n")
		for _, want := range c.lines {
			if !containsLine(lines, want) {
				t.Errorf("%s/%s: no line %q in\n%s", c.recording, c.file, want, found.got)
			}
		}
	}
}

func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}

// Claude Code asks for DA1 twice and for DECRQM 2026 at start-up.
func TestRecordingReplies(t *testing.T) {
	_, s := replay(t, "claude-onboarding-to-prompt")
	want := primaryDA + "\x1b[?2026;0$y" + primaryDA
	if got := string(s.Replies()); got != want {
		t.Errorf("Replies() = %q, want %q", got, want)
	}
	if got := s.Replies(); got != nil {
		t.Errorf("second Replies() = %q, want nil", got)
	}
}

func TestReplies(t *testing.T) {
	cases := []struct {
		name, setup, query, want string
	}{
		{"CPR at origin", "", "\x1b[6n", "\x1b[1;1R"},
		{"CPR after move", "\x1b[5;17H", "\x1b[6n", "\x1b[5;17R"},
		{"CPR after text", "ab\r\ncdef", "\x1b[6n", "\x1b[2;5R"},
		{"DECXCPR", "\x1b[3;4H", "\x1b[?6n", "\x1b[?3;4;1R"},
		{"DSR status", "", "\x1b[5n", "\x1b[0n"},
		{"DA1", "", "\x1b[c", primaryDA},
		{"DA1 with 0", "", "\x1b[0c", primaryDA},
		{"DA1 other param ignored", "", "\x1b[1c", ""},
		{"DA2", "", "\x1b[>c", secondaryDA},
		{"DA2 with 0", "", "\x1b[>0c", secondaryDA},
		{"DECRQM 2026 not recognised", "", "\x1b[?2026$p", "\x1b[?2026;0$y"},
		{"DECRQM 2026 stays unrecognised when set", "\x1b[?2026h", "\x1b[?2026$p", "\x1b[?2026;0$y"},
		{"DECRQM 2048 not recognised", "\x1b[?2048h", "\x1b[?2048$p", "\x1b[?2048;0$y"},
		{"DECRQM DECCKM reset", "", "\x1b[?1$p", "\x1b[?1;2$y"},
		{"DECRQM DECCKM set", "\x1b[?1h", "\x1b[?1$p", "\x1b[?1;1$y"},
		{"DECRQM DECCKM set beside an unknown mode", "\x1b[?2048;1h", "\x1b[?1$p", "\x1b[?1;1$y"},
		{"DECRQM autowrap set by default", "", "\x1b[?7$p", "\x1b[?7;1$y"},
		{"DECRQM bracketed paste", "\x1b[?2004h", "\x1b[?2004$p", "\x1b[?2004;1$y"},
		{"DECRQM alt screen", "\x1b[?1049h", "\x1b[?1049$p", "\x1b[?1049;1$y"},
		{"DECRQM ANSI LNM", "", "\x1b[20$p", "\x1b[20;2$y"},
		{"DECRQM ANSI unknown", "", "\x1b[4$p", "\x1b[4;0$y"},
		{"OSC 10 foreground", "", "\x1b]10;?\x07", "\x1b]10;rgb:ffff/ffff/ffff\x07"},
		{"OSC 11 background", "", "\x1b]11;?\x1b\\", "\x1b]11;rgb:0000/0000/0000\x07"},
		{"OSC 12 cursor", "", "\x1b]12;?\x07", "\x1b]12;rgb:ffff/ffff/ffff\x07"},
		{"OSC 11 after set", "\x1b]11;rgb:12/34/56\x07", "\x1b]11;?\x07", "\x1b]11;rgb:1212/3434/5656\x07"},
		{"XTVERSION unanswered", "", "\x1b[>0q", ""},
		{"kitty keyboard query unanswered", "", "\x1b[?u", ""},
		{"query split across writes", "", "\x1b[", ""}, // completed below
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := New(24, 80)
			s.Write([]byte(c.setup))
			if got := s.Replies(); got != nil {
				t.Fatalf("setup %q replied %q", c.setup, got)
			}
			s.Write([]byte(c.query))
			if c.name == "query split across writes" {
				if got := s.Replies(); got != nil {
					t.Fatalf("half a query replied %q", got)
				}
				s.Write([]byte("6n"))
				c.want = "\x1b[1;1R"
			}
			if got := string(s.Replies()); got != c.want {
				t.Errorf("Replies() = %q, want %q", got, c.want)
			}
			if got := s.Replies(); got != nil {
				t.Errorf("Replies() not drained: %q", got)
			}
		})
	}
}

func TestRepliesAccumulateInOrder(t *testing.T) {
	s := New(24, 80)
	s.Write([]byte("\x1b[c"))
	s.Write([]byte("hi\x1b[6n\x1b[?2026$p"))
	want := primaryDA + "\x1b[1;3R" + "\x1b[?2026;0$y"
	if got := string(s.Replies()); got != want {
		t.Errorf("Replies() = %q, want %q", got, want)
	}
}

// The library answers these on an io.Pipe that blocks until read; Screen must
// answer or drop every one of them itself.
func TestQueriesNeverBlock(t *testing.T) {
	queries := []string{
		"\x1b[c", "\x1b[0c", "\x1b[>c", "\x1b[>0c", "\x1b[=c", "\x1b[5n", "\x1b[6n", "\x1b[?6n",
		"\x1b[?2026$p", "\x1b[2$p", "\x1b[?2048h", "\x1b[?2027h", "\x1b[?1004h",
		"\x1b]10;?\x07", "\x1b]11;?\x07", "\x1b]12;?\x07", "\x1b]4;1;?\x07",
		"\x1b[>0q", "\x1b[?u", "\x1bP$qm\x1b\\", "\x1bP+q544e\x1b\\", "\x1b[14t", "\x1b[18t",
		"\x1bZ", "\x1b[?996n", "\x1b[?1;2c",
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s := New(24, 80)
		for _, q := range queries {
			s.Write([]byte(q))
		}
		s.Resize(30, 100) // with 2048 on, the library would report the size
		_ = s.Replies()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("a query blocked Write")
	}
}

func TestAppCursor(t *testing.T) {
	s := New(24, 80)
	if s.AppCursor() {
		t.Fatal("AppCursor on a new screen")
	}
	s.Write([]byte("\x1b[?1h"))
	if !s.AppCursor() {
		t.Fatal("AppCursor off after ESC[?1h")
	}
	s.Write([]byte("\x1b[?1l"))
	if s.AppCursor() {
		t.Fatal("AppCursor on after ESC[?1l")
	}
	s.Write([]byte("\x1b[?25;1h")) // among other modes
	if !s.AppCursor() {
		t.Fatal("AppCursor off after ESC[?25;1h")
	}
	s.Write([]byte("\x1bc")) // RIS resets it
	if s.AppCursor() {
		t.Fatal("AppCursor on after RIS")
	}
	s.Write([]byte("\x1b[1h")) // ANSI mode 1 is not DECCKM
	if s.AppCursor() {
		t.Fatal("AppCursor on after ANSI ESC[1h")
	}
}

func TestVersion(t *testing.T) {
	s := New(24, 80)
	if v := s.Version(); v != 0 {
		t.Fatalf("new screen Version() = %d", v)
	}
	step := func(out string, changes bool) {
		t.Helper()
		before := s.Version()
		s.Write([]byte(out))
		if got := s.Changed(before); got != changes {
			t.Errorf("after %q: Changed = %v, want %v (text %q)", out, got, changes, s.Text())
		}
		if changes && s.Version() != before+1 {
			t.Errorf("after %q: Version %d, want %d", out, s.Version(), before+1)
		}
	}
	step("hello", true)
	step("", false)
	step("\x1b[1;1H", false)            // cursor move
	step("\x1b[31m\x1b[1m", false)      // colours only
	step("\x1b[1;1H\x1b[32mh", false)   // same character, other colour
	step("\x1b[1;1H\x1b[7mh", true)     // same character in reverse video
	step("\x1b[1;1H\x1b[7mh", false)    // the same again
	step("\x1b[1;1H\x1b[27;44mh", true) // on a blue background
	step("\x1b[1;1H\x1b[44;1mh", false) // bold on the same background
	step("\x1b[1;1H\x1b[0mh", true)     // back to the default background
	step("\x1b[?25l\x1b[?1h", false)    // modes
	step("\x1b]0;title\x07", false)     // window title
	step("\x1b[1;6H   ", false)         // blanks after the text: trimmed
	step("\x1b[6n", false)              // query
	step(" world", true)
	step("\x1b[2J", true)        // cleared
	step("\x1b[2J\x1b[H", false) // cleared again
	step("\u00a0", false)        // no-break space is blank
	step("\x1b[Hx", true)
	step("\x1b[H\x1b[2Kx", false) // erased and redrawn within one Write
	step("\r\n\r\n", false)

	v := s.Version()
	if s.Changed(v) {
		t.Error("Changed(Version()) is true")
	}
	s.Resize(24, 80)
	if s.Changed(v) {
		t.Error("Resize to the same size changed the version")
	}
	s.Resize(30, 100)
	if s.Changed(v) {
		t.Errorf("Resize that keeps the text changed the version: %q", s.Text())
	}
	s.Write([]byte("\x1b[H\x1b[2J"))
	if !s.Changed(v) {
		t.Error("clearing the screen did not change the version")
	}
}

func TestText(t *testing.T) {
	cases := []struct {
		name, out, want string
	}{
		{"empty", "", ""},
		{"trailing blanks and rows", "a  \r\n\r\n  b \r\n\r\n", "a\n\n  b"},
		{"cursor jumps draw spaces", "Welcome\x1b[9Gto\x1b[12GClaude", "Welcome to Claude"},
		{"no-break space", "\u276f\u00a0\r\n1\u00a02", "\u276f\n1 2"},
		{"wide characters", "日本語|\r\nok", "日本語|\nok"},
		{"colours dropped", "\x1b[31mred\x1b[0m \x1b[1mbold", "red bold"},
		{"utf-8 split", "\xe2\x9d", ""}, // completed below
		{"overwrite", "abcdef\rXY", "XYcdef"},
		{"line wrap", strings.Repeat("x", 22) + "y", strings.Repeat("x", 20) + "\nxxy"},
		{"alt screen", "main\x1b[?1049halt\x1b[?1049l", "main"},
		{"tab", "a\tb", "a       b"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := New(5, 20)
			s.Write([]byte(c.out))
			if c.name == "utf-8 split" {
				s.Write([]byte("\xaf ok"))
				c.want = "\u276f ok"
			}
			if got := s.Text(); got != c.want {
				t.Errorf("Text() = %q, want %q", got, c.want)
			}
		})
	}
}

func TestCursor(t *testing.T) {
	s := New(24, 80)
	if r, c := s.Cursor(); r != 0 || c != 0 {
		t.Fatalf("Cursor() = %d,%d on a new screen", r, c)
	}
	s.Write([]byte("\x1b[5;17H"))
	if r, c := s.Cursor(); r != 4 || c != 16 {
		t.Errorf("Cursor() = %d,%d, want 4,16", r, c)
	}
	s.Write([]byte("\r\nab"))
	if r, c := s.Cursor(); r != 5 || c != 2 {
		t.Errorf("Cursor() = %d,%d, want 5,2", r, c)
	}
}

func TestResize(t *testing.T) {
	s := New(0, -1)
	if r, c := s.Size(); r != DefaultRows || c != DefaultCols {
		t.Fatalf("New(0, -1).Size() = %d,%d", r, c)
	}
	s.Write([]byte("0123456789"))
	s.Resize(3, 5)
	if r, c := s.Size(); r != 3 || c != 5 {
		t.Fatalf("Size() = %d,%d after Resize(3, 5)", r, c)
	}
	if got := s.Text(); got != "01234" {
		t.Errorf("Text() = %q after shrinking", got)
	}
	s.Write([]byte("\x1b[3;1Hbott"))
	if !strings.HasSuffix(s.Text(), "\nbott") {
		t.Errorf("Text() = %q, want the last row written", s.Text())
	}
	s.Resize(40, 120)
	s.Write([]byte("\x1b[40;100Hfar"))
	if r, c := s.Cursor(); r != 39 || c != 102 {
		t.Errorf("Cursor() = %d,%d after growing", r, c)
	}
}

// A flood of output keeps memory bounded: no scrollback is kept.
func TestFlood(t *testing.T) {
	s := New(24, 80)
	line := bytes.Repeat([]byte("x"), 79)
	line = append(line, '\r', '\n')
	for range 3000 {
		s.Write(line)
	}
	if n := s.emu.ScrollbackLen(); n > 1 {
		t.Errorf("scrollback holds %d lines", n)
	}
	if got := strings.Count(s.Text(), "\n"); got != 22 {
		t.Errorf("Text() has %d newlines, want 22", got)
	}
}

func BenchmarkReplayClaude(b *testing.B) {
	name := "claude-onboarding-to-prompt"
	evs := loadCast(b, filepath.Join(recordings, name, name+".cast"))
	var out [][]byte
	for _, e := range evs {
		if e.kind == "o" {
			out = append(out, []byte(e.data))
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		s := New(40, 120)
		for _, p := range out {
			s.Write(p)
		}
		_ = s.Text()
	}
}

// A UTF-8 character inside a control string does not end it, even when one of
// its bytes is 0x9C (the 8-bit String Terminator): Claude Code sets the window
// title to "✳ Claude Code" (E2 9C B3), which used to print " Claude Code" at
// the cursor. The string may straddle writes, and queries still get answers.
func TestControlStringsKeepUTF8(t *testing.T) {
	cases := []struct {
		name   string
		writes []string
		text   string
	}{
		{"OSC title, BEL", []string{"❯ \x1b]0;✳ Claude Code\x07ok"}, "❯ ok"},
		{"OSC title, ST", []string{"a\x1b]2;✳ x\x1b\\b"}, "ab"},
		{"split inside the character", []string{"\x1b]0;\xe2\x9c", "\xb3 Claude Code\x07", "done"}, "done"},
		{"DCS", []string{"\x1bP1$r✳ q\x1b\\x"}, "x"},
		{"APC", []string{"\x1b_✳ y\x1b\\z"}, "z"},
		{"text after a cancelled string", []string{"\x1b]0;a\x18✳"}, "✳"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := New(3, 40)
			for _, w := range c.writes {
				s.Write([]byte(w))
			}
			if got := s.Text(); got != c.text {
				t.Errorf("text %q, want %q", got, c.text)
			}
		})
	}
	s := New(3, 40)
	s.Write([]byte("\x1b]0;✳ Claude Code\x07\x1b]11;?\x07"))
	if got := string(s.Replies()); got != "\x1b]11;rgb:0000/0000/0000\x07" {
		t.Errorf("OSC 11 after a title: reply %q", got)
	}
}

// Live Claude Code 2.1.197 sessions that clai drove (80x24): the screen just
// before each of clai's answers, cut at its clai-send marker in the cast,
// renders as tmux showed the same bytes.
func TestClaudePermissionScreens(t *testing.T) {
	dir := filepath.Join(recordings, "claude-code-2.1.197-permissions")
	cases := []struct {
		cast   string
		answer int // the screen before clai's answer number answer (1-based); 0: the last screen
		file   string
	}{
		{"rm-rf-outside", 1, "01-theme-picker.txt"},
		{"rm-rf-outside", 2, "02-security-notes.txt"},
		{"rm-rf-outside", 3, "03-trust-dialog.txt"},
		{"rm-rf-outside", 4, "04-bash-npm-test.txt"},
		{"rm-rf-outside", 5, "05-bash-rm-rf-outside.txt"},
		{"rm-rf-outside", 6, "06-after-refusal.txt"},
		{"rm-rf-outside", 7, "07-bash-npm-test-again.txt"},
		{"rm-rf-outside", 8, "08-script-done.txt"},
		{"rm-rf-outside", 0, "09-after-exit.txt"},
		{"curl-pipe-shell", 4, "10-curl-pipe-shell.txt"},
		{"sudo", 4, "11-sudo.txt"},
		{"chmod-777", 4, "12-chmod-777.txt"},
		{"force-push", 4, "13-force-push.txt"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			s := New(24, 80)
			answers := 0
			for _, e := range loadCast(t, filepath.Join(dir, c.cast+".cast")) {
				if e.kind == "m" && e.data == "clai-send" {
					if answers++; answers == c.answer {
						break
					}
				}
				if e.kind == "o" {
					s.Write([]byte(e.data))
				}
			}
			if c.answer > answers {
				t.Fatalf("%s.cast has %d answers, want %d", c.cast, answers, c.answer)
			}
			want, err := os.ReadFile(filepath.Join(dir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Text(); got != normCapture(string(want)) {
				t.Errorf("differs from the capture:%s", golden.Diff(normCapture(string(want)), got))
			}
		})
	}
}
