package engine

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/pattern"
)

// viewPlaybook is a playbook of the given match mode, with one rule whose
// pattern the view tests look for.
func viewPlaybook(t *testing.T, mode string) *playbooks.Playbook {
	t.Helper()
	pb, findings := playbooks.Parse("view.yaml", []byte(`version: 1
name: view
spawn: {command: [prog]}
settings: {match: `+mode+`}
rules:
  - {name: name, match: "Name:", line: "bob"}
`))
	if pb == nil {
		t.Fatalf("playbook: %v", findings)
	}
	return pb
}

// show gives v output with lines ended by "\n": stripped to the stream, to
// the screen as a terminal sends it, with "\r\n".
func show(v view, out string) {
	v.add([]byte(out))
	if s, ok := v.(screenOnly); ok {
		s.write([]byte(strings.ReplaceAll(out, "\n", "\r\n")))
	}
}

// look marks a screen as matched now, as the engine does before it matches;
// a stream has nothing to mark.
func look(v view) {
	if s, ok := v.(screenOnly); ok {
		s.look()
	}
}

// asAnswered reports whether clai answered v as it stands, as the engine
// asks it: a stream never is, an answer emptied it.
func asAnswered(v view) bool {
	s, ok := v.(screenOnly)
	return ok && s.asAnswered()
}

// findIn returns where m's first fresh match in v starts, or -1.
func findIn(v view, m *pattern.Matcher) int {
	var l locs
	h, ok := v.find(&l, m, v.text())
	if !ok {
		return -1
	}
	return h.start
}

// Each view finds what was shown since the last answer, and not what was
// shown before it: the stream has dropped it, the screen still shows it but
// marks it stale. What is shown after the answer is found again.
func TestViewFindsWhatIsFreshSinceTheAnswer(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"stream", "screen"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			pb := viewPlaybook(t, mode)
			m := pb.Rules[0].Match
			v := newView(pb, 5, 40)
			show(v, "hello\nName: ")
			look(v)
			if at := findIn(v, m); at != len("hello\n") {
				t.Fatalf("the question is found at %d, want %d in %q", at, len("hello\n"), v.text())
			}
			if asAnswered(v) {
				t.Fatal("the view counts as answered before any answer")
			}
			v.answered(true)
			look(v)
			if at := findIn(v, m); at >= 0 {
				t.Fatalf("the answered question is found again at %d in %q", at, v.text())
			}
			if mode == "screen" && !asAnswered(v) {
				t.Error("the screen, unchanged since the answer, does not count as answered")
			}
			show(v, "bob\nName: ")
			look(v)
			if asAnswered(v) {
				t.Error("the view counts as answered after it showed more")
			}
			at := findIn(v, m)
			if at < 0 {
				t.Fatalf("the question asked again is not found in %q", v.text())
			}
			if text := string(v.text()); text[at:] != "Name: " {
				t.Errorf("found %q, want the question asked again, at the end of %q", text[at:], text)
			}
		})
	}
}

// A person's answer at the terminal makes what was shown stale in both views,
// as clai's does; only clai's makes the screen count as answered as it stands
// (the prompt detector then waits for the program's reaction).
func TestViewPersonsAnswer(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"stream", "screen"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			pb := viewPlaybook(t, mode)
			v := newView(pb, 5, 40)
			show(v, "Name: ")
			look(v)
			v.answered(false)
			if at := findIn(v, pb.Rules[0].Match); at >= 0 {
				t.Fatalf("the question the person answered is found at %d in %q", at, v.text())
			}
			if asAnswered(v) {
				t.Error("a person's answer counts as clai's")
			}
		})
	}
}

// The stream's window drops what an answer used up, and what came before it;
// a deny drops what was shown before the dangerous text.
func TestStreamViewConsumes(t *testing.T) {
	t.Parallel()
	pb := viewPlaybook(t, "stream")
	m := pb.Rules[0].Match
	v := newView(pb, 5, 40)
	show(v, "Name: a\nName: b\n")
	first := findIn(v, m)
	v.consume(first + len("Name:"))
	if got := string(v.text()); got != " a\nName: b\n" {
		t.Fatalf("window after consume %q", got)
	}
	if at := findIn(v, m); at != len(" a\n") {
		t.Fatalf("next match at %d, want %d", at, len(" a\n"))
	}
	v.denied()
	if at := findIn(v, m); at >= 0 {
		t.Fatalf("a match shown before the dangerous text is found after a deny, at %d", at)
	}
}

// A screen counts the copies of a rule's text: the rule's text appears when
// there is a copy more than before, and a rule re-armed sees its copies as new.
func TestScreenViewCountsCopies(t *testing.T) {
	t.Parallel()
	pb := viewPlaybook(t, "screen")
	r := pb.Rules[0]
	v := newScreenView(5, 40)
	show(v, "Name: ")
	v.count(pb.Rules, v.text())
	if !v.appeared(r) {
		t.Fatal("the first copy did not appear")
	}
	v.count(pb.Rules, v.text())
	if v.appeared(r) {
		t.Fatal("the same copy appeared twice")
	}
	v.rearm(r)
	v.count(pb.Rules, v.text())
	if !v.appeared(r) {
		t.Fatal("a re-armed rule does not see its copy")
	}
	show(v, "x\nName: ")
	v.count(pb.Rules, v.text())
	if !v.appeared(r) {
		t.Fatal("a second copy below the first did not appear")
	}
}

// A screen keeps what a match used up in sight, but no longer fresh: the
// next match is found below it, and once all copies are used up none is,
// until the program shows another. A deny makes all the screen shows stale,
// what it is written next is fresh.
func TestScreenViewConsumes(t *testing.T) {
	t.Parallel()
	pb := viewPlaybook(t, "screen")
	m := pb.Rules[0].Match
	v := newScreenView(6, 40)
	show(v, "Name: a\nName: b\n")
	v.look()
	first := findIn(v, m)
	if first != 0 {
		t.Fatalf("first match at %d in %q", first, v.text())
	}
	v.consume(first + len("Name:"))
	second := findIn(v, m)
	if second != len("Name: a\n") {
		t.Fatalf("after consuming the first copy, a match at %d, want %d in %q", second, len("Name: a\n"), v.text())
	}
	v.consume(second + len("Name:"))
	if at := findIn(v, m); at >= 0 {
		t.Fatalf("a used-up copy is found again at %d in %q", at, v.text())
	}
	if got := string(v.text()); got != "Name: a\nName: b" {
		t.Errorf("the screen shows %q, want what was used up still in sight", got)
	}
	show(v, "Name: c\n")
	v.look()
	if at := findIn(v, m); at != len("Name: a\nName: b\n") {
		t.Fatalf("the new copy is found at %d in %q", at, v.text())
	}
	v.denied()
	if at := findIn(v, m); at >= 0 {
		t.Fatalf("a copy shown before the deny is found at %d in %q", at, v.text())
	}
	show(v, "Name: d")
	v.look()
	if at := findIn(v, m); at != len("Name: a\nName: b\nName: c\n") {
		t.Fatalf("the copy shown after the deny is found at %d in %q", at, v.text())
	}
}
