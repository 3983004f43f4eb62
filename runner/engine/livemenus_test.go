package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// No screen recorded from a real program shows two dialogs that take keys,
// but those recorded for that (named "…two-dialogs…" or "…at-once…"): the check that hands
// over when two do (twoDialogs) must not stop a run on the screens the
// presets and examples answer every day (a numbered list of tips above an
// input line is no menu).
func TestRecordedScreensShowAtMostOneLiveDialog(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../testdata/screens/*/*.txt")
	if err != nil || len(files) < 50 {
		t.Fatalf("screens: %d, %v", len(files), err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := 1
		if name := filepath.Base(f); strings.Contains(name, "two-dialogs") || strings.Contains(name, "at-once") {
			want = 2
		}
		if live := liveMenus(b); len(live) > want || want == 2 && len(live) != 2 {
			for _, m := range live {
				t.Errorf("%s: %s", f, m.describe())
			}
		}
	}
}
