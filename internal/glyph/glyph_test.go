package glyph_test

import (
	"testing"

	"github.com/clai-sh/clai/internal/glyph"
)

func TestBlankAndInvisible(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		r                rune
		blank, invisible bool
	}{
		{' ', false, false},
		{'a', false, false},
		{'é', false, false},
		{'世', false, false},
		{'\u00a0', true, false}, // no-break space
		{'\u2003', true, false}, // em space
		{'\u3000', true, false}, // ideographic space
		{'\u3164', true, false}, // Hangul filler
		{'\u2800', true, false}, // braille blank
		{'\u200b', false, true}, // zero-width space
		{'\u200d', false, true}, // zero-width joiner
		{'\u00ad', false, true}, // soft hyphen
		{'\u202e', false, true}, // right-to-left override
		{'\u2066', false, true}, // left-to-right isolate
		{'\ufeff', false, true}, // byte order mark
		{'\ufe0f', false, true}, // variation selector 16
		{'\u034f', false, true}, // combining grapheme joiner
	} {
		if got := glyph.Blank(c.r); got != c.blank {
			t.Errorf("Blank(%U) = %v, want %v", c.r, got, c.blank)
		}
		if got := glyph.Invisible(c.r); got != c.invisible {
			t.Errorf("Invisible(%U) = %v, want %v", c.r, got, c.invisible)
		}
	}
	if !glyph.Plain("rm -rf / é 世") || glyph.Plain("rm\u200b -rf /") || glyph.Plain("rm\u2003-rf /") {
		t.Error("Plain disagrees with Blank and Invisible")
	}
}

func TestOneLineLeavesNoControlForTheTerminal(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"", 10, "-"},
		{"git push", 10, "git push"},
		{"a\nb\rc\x1b[2Jd", 20, "a b c [2Jd"},
		{"x\u2028y\u202ez\u2066w\u0085", 20, "x y z w "},
		{"abcdef", 5, "abcd…"},
		{"héllo wörld", 6, "héllo…"},
	} {
		if got := glyph.OneLine(c.in, c.max); got != c.want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}
