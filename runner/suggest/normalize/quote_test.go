package normalize

import (
	"os/exec"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
)

// TestQuoteReadsBackAsTheValue has each real shell print the quoted word.
func TestQuoteReadsBackAsTheValue(t *testing.T) {
	values := []string{"main.go", "src/App.tsx", "new file.txt", "it's", `back\slash`, `end\`, "$HOME", "~/x", "a;b", "*.go", "-n", "tab\there", "ünïcode", "{a,b}", "(x)", "=ls", "%self", "a=b"}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			path := testprog.RequireProgram(t, shell, shell)
			for _, v := range values {
				q, ok := Quote(shell, v)
				if !ok {
					t.Fatalf("%s: %q not quoted", shell, v)
				}
				out, err := exec.CommandContext(t.Context(), path, "-c", "printf '%s' "+q).Output()
				if err != nil || string(out) != v {
					t.Errorf("%s: %s prints %q (%v), want %q", shell, q, out, err, v)
				}
			}
		})
	}
	if _, ok := Quote("bash", "nul\x00"); ok {
		t.Error("a NUL byte cannot be quoted")
	}
}
