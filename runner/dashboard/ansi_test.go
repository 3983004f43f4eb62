package dashboard

import (
	"strings"
	"testing"
)

func TestScreenHTML(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "hello\nworld", "hello\nworld"},
		{"escaped", `<script>alert("x")</script> & 'q'`, `&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &#39;q&#39;`},
		{"escaped inside a colour", "\x1b[32m<b>ok</b>\x1b[0m", `<span class="f2">&lt;b&gt;ok&lt;/b&gt;</span>`},
		{"palette and reset", "\x1b[1;31mred\x1b[m plain", `<span class="f1 bo">red</span> plain`},
		{"bright and background", "\x1b[92;44mx", `<span class="f10 b4">x</span>`},
		{"256 colours", "\x1b[38;5;196mx\x1b[48;5;240my", `<span data-fg="#ff0000">x</span><span data-fg="#ff0000" data-bg="#585858">y</span>`},
		{"24-bit", "\x1b[38;2;1;2;3mx", `<span data-fg="#010203">x</span>`},
		{"24-bit with colons", "\x1b[38:2::10:20:30mx", `<span data-fg="#0a141e">x</span>`},
		{"reverse", "\x1b[7mbar\x1b[27m", `<span class="rv">bar</span>`},
		{"attributes off", "\x1b[1;3;4mA\x1b[22;23;24mB", `<span class="bo it ul">A</span>B`},
		{"other sequences dropped", "a\x1b[2Jb\x1b]0;title\x07c\x1b(Bd\r\x07e", "abcde"},
		{"bad parameters ignored", "\x1b[38;5;999;31mx\x1b[38;2;300;0;0my", `<span class="f1">xy</span>`},
		{"cut sequence", "x\x1b[31", "x"},
		{"invalid UTF-8", "a\xffb", "a\uFFFDb"},
	} {
		if got := screenHTML(tc.in); got != tc.want {
			t.Errorf("%s: screenHTML(%q)\n got %q\nwant %q", tc.name, tc.in, got, tc.want)
		}
	}
}

// TestScreenHTMLNeverLetsMarkupThrough: whatever the screen holds, every <
// of the output opens one of the spans screenHTML writes.
func TestScreenHTMLNeverLetsMarkupThrough(t *testing.T) {
	t.Parallel()
	inputs := []string{
		"\x1b[31m<img src=x onerror=alert(1)>",
		"\x1b[38;5;1\"><script>x</script>m",
		"\x1b]8;;javascript:alert(1)\x07link\x1b]8;;\x07",
		strings.Repeat("<", 1000),
	}
	for _, in := range inputs {
		out := screenHTML(in)
		for i := strings.IndexByte(out, '<'); i >= 0; i = strings.IndexByte(out, '<') {
			rest := out[i:]
			if !strings.HasPrefix(rest, "<span") && !strings.HasPrefix(rest, "</span>") {
				t.Fatalf("screenHTML(%q) lets markup through: %q", in, out)
			}
			out = rest[1:]
		}
		if strings.Contains(screenHTML(in), "script>") && !strings.Contains(screenHTML(in), "&lt;") {
			t.Fatalf("screenHTML(%q) = %q", in, screenHTML(in))
		}
	}
}

func TestScreenHTMLIsBounded(t *testing.T) {
	t.Parallel()
	in := strings.Repeat("\x1b[31mx\x1b[32my", maxScreenBytes)
	out := screenHTML(in)
	// Each input byte makes at most a few dozen of output.
	if len(out) > 40*maxScreenBytes {
		t.Fatalf("%d bytes of HTML from a screen cut at %d", len(out), maxScreenBytes)
	}
}
