package stream

import (
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// TestRuneWidthAsTheScreen checks runeWidth against the width the screen
// emulator's escape-sequence library gives the same character (its first
// grapheme cluster, by grapheme width), for every character and every byte
// that is no character alone.
func TestRuneWidthAsTheScreen(t *testing.T) {
	t.Parallel()
	var b [utf8.UTFMax]byte
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		c := b[:utf8.EncodeRune(b[:], r)]
		if _, want := ansi.FirstGraphemeCluster(c, ansi.GraphemeWidth); runeWidth(c) != want {
			t.Fatalf("%U: runeWidth %d, the screen's %d", r, runeWidth(c), want)
		}
	}
	for i := 0x80; i < 0x100; i++ {
		c := []byte{byte(i)}
		if _, want := ansi.FirstGraphemeCluster(c, ansi.GraphemeWidth); runeWidth(c) != want {
			t.Fatalf("byte %#x: runeWidth %d, the screen's %d", i, runeWidth(c), want)
		}
	}
}
