package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
)

// An answer names an option by its whole label, by the tag or the item of a
// tagged option (dialog's "prod     the real thing"), or by a prefix only one
// option has; a prefix several share is refused with them.
func TestPickOption(t *testing.T) {
	t.Parallel()
	labels := []string{"prod     the real thing", "preview  a copy of prod", "dev      your laptop"}
	names := [][]string{{"prod", "the real thing"}, {"preview", "a copy of prod"}, {"dev", "your laptop"}}
	for _, c := range []struct {
		answer string
		want   int
		why    string
	}{
		{"prod     the real thing", 0, ""},
		{"prod", 0, ""},
		{"PROD", 0, ""},
		{"the real thing", 0, ""},
		{"prev", 1, ""},
		{"your", 2, ""},
		{"d", 2, ""},
		{"pr", -1, `"pr" names more than one option (prod     the real thing | preview  a copy of prod)`},
		{"staging", -1, `no option "staging"`},
		{"", -1, `no option ""`},
	} {
		got, why := pickOption(labels, names, c.answer)
		if got != c.want || !strings.HasPrefix(why, c.why) {
			t.Errorf("pickOption(%q) = %d, %q; want %d, %q…", c.answer, got, why, c.want, c.why)
		}
	}
	// Without other names, labels alone: an exact label wins over a prefix
	// of another.
	if got, _ := pickOption([]string{"Yes, and don't ask again", "Yes"}, nil, "Yes"); got != 1 {
		t.Errorf("pickOption(Yes) = %d, want 1", got)
	}
}

// A person's --choose reaches a dialog menu's item by its tag, a prefix of
// it, or its item, as the menu on screen reads them.
func TestChooseAnswerByTagOnADialogMenu(t *testing.T) {
	t.Parallel()
	const rev, norm = "\x1b[7m", "\x1b[27m"
	screen := "\x1b[1;1HPick a fruit:" + rev + "\x1b[2;1H                         \x1b[3;1H  " + norm + "a" + rev + "pple   " + norm + "red" + rev + "     " +
		"\x1b[4;1H  " + norm + "b" + rev + "anana  yellow   \x1b[5;1H  " + norm + "c" + rev + "herry  small    \x1b[6;1H                         " + norm + "\x1b[7;1H  <  OK  >  <Cancel>"
	for _, c := range []struct{ answer, want string }{
		{"banana", "\x1b[B\r"},
		{"cher", "\x1b[B\x1b[B\r"},
		{"yellow", "\x1b[B\r"},
		{"apple   red", "\r"},
	} {
		t.Run(c.answer, func(t *testing.T) {
			t.Parallel()
			pb, findings := playbooks.Parse("t.yaml", []byte("version: 1\nname: t\nspawn: {command: [x]}\nsettings: {match: screen, settle: 100ms}\n"))
			if pb == nil {
				t.Fatal(findings)
			}
			e := NewEngine(pb, Config{Remote: true, Rows: 8, Cols: 30})
			now := time.Unix(1_700_000_000, 0)
			e.Start(now)
			e.Output(now.Add(time.Millisecond), []byte(screen))
			for range 10 {
				now = now.Add(100 * time.Millisecond)
				e.Tick(now)
			}
			if e.asker.q == nil {
				t.Fatalf("no question opened (state %s)", e.State())
			}
			actions, _, err := e.Answer(now, ask.Answer{Choose: c.answer})
			if err != nil {
				t.Fatal(err)
			}
			var sent string
			for _, a := range actions {
				if s, ok := a.(*Send); ok {
					sent += string(s.AppendBytes(nil))
				}
			}
			if sent != c.want {
				t.Fatalf("sent %q, want %q (options %v)", sent, c.want, e.asker.q)
			}
		})
	}
}
