package pattern

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/pace"
)

// adversarial is a pattern and a text on which trying a match at each place its
// first literal appears, to the end of the text each time, costs the square of
// the text.
type adversarial struct {
	name, src string
	text      []byte
	// path is the fast path the pattern takes: "segments" or "anchored".
	path string
}

// forcePushPattern is the claude-code preset's force-push danger pattern, as
// the preset's file writes it.
func forcePushPattern(t testing.TB) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "presets", "claude-code.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^  - name: force-push\n    match: \{regex: '([^']+)'\}$`).FindSubmatch(src)
	if m == nil {
		t.Fatal("the claude-code preset has no force-push danger rule written as {regex: '…'}")
	}
	return string(m[1])
}

// adversarials returns the adversarial cases, with texts of about n bytes.
func adversarials(t testing.TB, n int) []adversarial {
	rep := func(s string) []byte { return bytes.Repeat([]byte(s), max(1, n/len(s))) }
	return []adversarial{
		{"x.* on x", `x.*y`, rep("x"), "anchored"},
		{"force-push on git push", forcePushPattern(t), rep("git push "), "anchored"},
		{"(?s)x.* on x and newlines", `(?s)x.*y`, rep("x\n"), "anchored"},
		{"a bounded run after each x", `x.{1,3}y`, rep("x"), "anchored"},
		{"a run of words on x", `x\w*:`, rep("x"), "segments"},
		{"a run to the end on x", `x\w*$`, append(rep("x"), '!'), "segments"},
		{"a prompt's shape on its own prefix", `Enter code (?P<code>\d+) \[\d+\]: $`, append(rep("Enter code 1"), " [2]: !"...), "segments"},
		{"a literal repeated", `ab+c`, rep("ab"), "segments"},
		{"a class run on digits", `1\d+ files`, rep("1"), "segments"},
	}
}

// compiledPattern compiles src with its fast paths, and without the search for
// its required literal first: the fast paths themselves are measured.
func compiledPattern(t testing.TB, src string) *Pattern {
	t.Helper()
	p := &Pattern{Kind: Regex, Source: src}
	p.setRegexp(regexp.MustCompile(src))
	return p
}

// findWork finds as FindInto does on the pattern's fast path, and says how many
// bytes that examined.
func findWork(t testing.TB, p *Pattern, path string, text []byte) ([]int, int) {
	t.Helper()
	switch {
	case path == "segments" && p.segments != nil:
		return p.segments.findWork(text, nil)
	case path == "anchored" && p.segments == nil && p.anchored != nil:
		return p.findAnchored(text)
	}
	t.Fatalf("%s does not take the %s path; the test proves nothing", p.Source, path)
	return nil, 0
}

// TestFastPathsDoLinearWork counts the bytes each fast path examines on texts
// where trying every place its literal appears would cost the square of the
// text: at most a few times the text, and the match regexp finds.
func TestFastPathsDoLinearWork(t *testing.T) {
	t.Parallel()
	const n = 16 << 10
	for _, c := range adversarials(t, n) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := compiledPattern(t, c.src)
			got, work := findWork(t, p, c.path, c.text)
			if want := p.Regexp.FindSubmatchIndex(c.text); !slices.Equal(got, want) {
				t.Fatalf("found %v, regexp %v", got, want)
			}
			if limit := (attemptBudget+2)*len(c.text) + minAttemptBudget; work > limit {
				t.Fatalf("examined %d bytes of a %d-byte text, more than %d", work, len(c.text), limit)
			}
		})
	}
}

// TestFastPathsKeepPaceWithRegexp times FindInto against regexp on the same large
// adversarial texts (64 KiB of x for x.*y, 128 KiB of "git push " for the
// preset's force-push pattern): within a generous factor of regexp, where
// trying every place would take thousands of times as long.
func TestFastPathsKeepPaceWithRegexp(t *testing.T) {
	t.Parallel()
	cases := adversarials(t, 64<<10)
	cases[1].text = bytes.Repeat([]byte("git push "), (128<<10)/len("git push "))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := compiledPattern(t, c.src)
			if got, want := p.FindInto(c.text, nil), p.Regexp.FindSubmatchIndex(c.text); !slices.Equal(got, want) {
				t.Fatalf("found %v, regexp %v", got, want)
			}
			pace.Within(t, 20, 20*time.Millisecond, 3*time.Minute,
				func() { p.Regexp.FindSubmatchIndex(c.text) }, func() { p.FindInto(c.text, nil) })
		})
	}
}

// BenchmarkAdversarial runs FindInto and regexp on the adversarial texts.
func BenchmarkAdversarial(b *testing.B) {
	for _, c := range adversarials(b, 64<<10) {
		p := compiledPattern(b, c.src)
		b.Run(strings.ReplaceAll(c.name, " ", "_")+"/clai", func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				p.FindInto(c.text, nil)
			}
		})
		b.Run(strings.ReplaceAll(c.name, " ", "_")+"/regexp", func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				p.Regexp.FindSubmatchIndex(c.text)
			}
		})
	}
}
