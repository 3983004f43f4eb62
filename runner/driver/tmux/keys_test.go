package tmux

import (
	"slices"
	"strings"
	"testing"

	"github.com/clai-sh/clai/runner/driver/keys"
)

func TestSendKeys(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"yes\r", "send-keys -t P -l -- yes ; send-keys -t P Enter"},
		{"\x1b[B\x1bOB\r", "send-keys -t P Down ; send-keys -t P Down ; send-keys -t P Enter"},
		{"\x1b", "send-keys -t P Escape"},
		{"-rf;x;;", "send-keys -t P -l -- -rf;x ; send-keys -t P -H 3b 3b"},
		{"é\x03\x00", "send-keys -t P -l -- é ; send-keys -t P C-c ; send-keys -t P -H 00"},
		{"\xff", "send-keys -t P -H ff"},
		{"\x1b[15~\x1b[Z\t", "send-keys -t P F5 ; send-keys -t P BTab ; send-keys -t P Tab"},
	} {
		if got := strings.Join(sendKeys("P", []byte(c.in)), " "); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
	if args := sendKeys("P", []byte("a;")); slices.Contains(args, "a;") {
		t.Errorf("an argument ends in ';': %q", args)
	}
}

func TestTypeKeys(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   keys.Keystrokes
		want string
	}{
		{keys.Keystrokes{Keys: []keys.Key{"down", "enter"}}, "send-keys -t P Down ; send-keys -t P Enter"},
		{keys.Keystrokes{Keys: []keys.Key{"down"}, AppCursor: true}, "send-keys -t P Down"},
		{keys.Keystrokes{Data: []byte("-a;"), Keys: []keys.Key{"ctrl-c", "space", "f12"}}, "send-keys -t P -l -- -a ; send-keys -t P -H 3b ; send-keys -t P C-c ; send-keys -t P Space ; send-keys -t P F12"},
		{keys.Keystrokes{Data: []byte("pw\r")}, "send-keys -t P -l -- pw ; send-keys -t P Enter"},
	} {
		if got := strings.Join(typeKeys("P", c.in), " "); got != c.want {
			t.Errorf("%+v:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}
