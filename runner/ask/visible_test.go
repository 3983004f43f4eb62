package ask

import "testing"

// What a person could not read is made visible, the rest is left as it is.
func TestVisible(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"v1.2.3\r":      "v1.2.3⏎",
		"a\tb\x1bc\n":   "a⇥b␛c␤",
		"x\u202ey":      `x\u202Ey`,
		"\u009b2J":      `\u009B2J`,
		"prod 👍":        "prod 👍",
		"bad \xff byte": "bad \uFFFD byte",
	} {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
	if got := VisibleBlock("a\r\nb\rc"); got != "a\nb⏎c" {
		t.Errorf("VisibleBlock = %q", got)
	}
}
