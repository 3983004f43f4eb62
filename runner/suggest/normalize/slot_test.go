package normalize

import (
	"strings"
	"testing"
)

func TestSlot(t *testing.T) {
	t.Parallel()
	cases := []struct{ token, want string }{
		// kept as they are
		{"", ""},
		{"git", ""},
		{"checkout", ""},
		{"main", ""},
		{"feature-x", ""},
		{"--force", ""},
		{"-v", ""},
		{"--out=dist/app", ""},
		{"FOO=1", ""},
		{"defaced", ""},   // hex letters only: a word
		{"abc123", ""},    // hex but too short for a hash
		{"y/n", ""},       // a choice
		{"Y/n/a", ""},     // a choice
		{"1.2.3", ""},     // a version
		{"v1.2", ""},      // a tag
		{"e.", ""},        // no extension
		{"host:8080", ""}, // an address
		{"user@example.com", ""},
		// numbers
		{"42", SlotNum},
		{"-3", SlotNum},
		{"+7", SlotNum},
		{"0.5", SlotNum},
		{"0x1F", SlotNum},
		{"1234567", SlotNum}, // digits only: a number, even at a hash's length
		// hashes
		{"a1b2c3d", SlotSHA},
		{"9F8E7D6C", SlotSHA},
		{"3b18e512dba79e4c8300dd08aeb37f8e728b8dad", SlotSHA},
		{"550e8400-e29b-41d4-a716-446655440000", SlotSHA},
		// URLs
		{"https://github.com/clai-sh/clai", SlotURL},
		{"HTTP://EXAMPLE.COM", SlotURL},
		{"ssh://git@host/repo.git", SlotURL},
		{"git@github.com:clai-sh/clai.git", SlotURL},
		{"https://", ""},
		// paths
		{"./...", SlotPath},
		{"../x", SlotPath},
		{".", SlotPath},
		{"~", SlotPath},
		{"~/src", SlotPath},
		{"/etc/hosts", SlotPath},
		{"src/main", SlotPath},
		{"tests/test_api.py", SlotPath},
		{"main.go", SlotPath},
		{"archive.tar.gz", SlotPath},
		{"README.md", SlotPath},
		// messages
		{"fix the bug", SlotMsg},
		{"line one\nline two", SlotMsg},
		{"tab\there", SlotMsg},
	}
	for _, c := range cases {
		if got := Slot(c.token); got != c.want {
			t.Errorf("Slot(%q) = %q, want %q", c.token, got, c.want)
		}
	}
}

// TestSlotHostile checks that odd input gives an answer, not a panic: invalid
// UTF-8, lone symbols, a very long token.
func TestSlotHostile(t *testing.T) {
	t.Parallel()
	cases := []struct{ token, want string }{
		{"\xff\xfe", ""},
		{"a/\xff", SlotPath},
		{"\xff/\xfe", SlotPath},
		{"@", ""},
		{"@:", ""},
		{"a@b:", ""},
		{"-", ""},
		{"+", ""},
		{"0x", ""},
		{".", SlotPath},
		{"/", SlotPath},
		{strings.Repeat("a1", 40), ""}, // 80 hex digits: longer than any hash
		{strings.Repeat("9", 100000), SlotNum},
	}
	for _, c := range cases {
		if got := Slot(c.token); got != c.want {
			t.Errorf("Slot(%.40q) = %q, want %q", c.token, got, c.want)
		}
	}
}
