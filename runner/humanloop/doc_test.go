package humanloop_test

import (
	"os"
	"strings"
	"testing"
)

// TestTheEmbeddingPageShowsTheExample: docs/embedding.md shows ExampleRun
// as the compiled example is, so that the page's code always builds.
func TestTheEmbeddingPageShowsTheExample(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile("../../docs/embedding.md")
	if err != nil {
		t.Fatal(err)
	}
	_, example, ok := strings.Cut(string(src), "func ExampleRun() {")
	if !ok {
		t.Fatal("example_test.go has no ExampleRun")
	}
	example = "func ExampleRun() {" + example
	if !strings.Contains(string(page), "```go\n"+example+"```\n") {
		t.Fatalf("docs/embedding.md does not show ExampleRun as example_test.go has it:\n%s", example)
	}
	if lines := strings.Count(example, "\n"); lines >= 30 {
		t.Errorf("ExampleRun is %d lines: an embedder's run with notifications and a channel takes fewer than 30", lines)
	}
}
