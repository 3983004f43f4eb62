package engine

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLastCharsCutsOnACharacterBoundary(t *testing.T) {
	t.Parallel()
	for _, char := range []string{"é", "€", "😀"} {
		for pad := range 4 {
			s := strings.Repeat("x", pad) + strings.Repeat(char, 40)
			for n := range len(s) + 2 {
				got := lastChars(s, n)
				if !utf8.ValidString(got) || !strings.HasSuffix(s, got) {
					t.Fatalf("lastChars(%q, %d) = %q: not a valid end of the text", s, n, got)
				}
				if want := min(n, len(s)); len(got) > want || len(got) < want-(len(char)-1) {
					t.Fatalf("lastChars(%q, %d) = %d bytes, want %d less what a cut character leaves", s, n, len(got), want)
				}
			}
		}
	}
	// Bytes that are no UTF-8 are kept as they are, and skip at most a
	// character's worth.
	if got := lastChars("ab\x80\x80\x80\x80\x80cd", 6); got != "\x80cd" {
		t.Errorf("lastChars over continuation bytes = %q", got)
	}
}

func TestRecentOutputKeepsTheNewestBytes(t *testing.T) {
	t.Parallel()
	var r recentOutput
	var all bytes.Buffer
	for i := range 5000 {
		chunk := bytes.Repeat([]byte{byte('a' + i%26)}, 1+i%700)
		r.add(chunk)
		all.Write(chunk)
		got := r.text()
		if len(got) < min(all.Len(), recentKeep) || !strings.HasSuffix(all.String(), got) {
			t.Fatalf("after %d bytes, kept %d bytes that are not the newest", all.Len(), len(got))
		}
		if cap(r.buf) > 2*recentKeep {
			t.Fatalf("the buffer grew to %d bytes, past twice the %d it keeps", cap(r.buf), recentKeep)
		}
	}
	r.add(bytes.Repeat([]byte("z"), 3*recentKeep))
	if got := r.text(); got != strings.Repeat("z", recentKeep) {
		t.Errorf("after a large write kept %d bytes", len(got))
	}
}
