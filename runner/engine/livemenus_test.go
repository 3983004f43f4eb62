package engine

import (
	"os"
	"path/filepath"
	"testing"
)

// No screen recorded from a real program shows two dialogs that take keys,
// but those recorded for that: the check that hands over when two do
// (twoDialogs) must not stop a run on the screens the presets and examples
// answer every day (a numbered list of tips above an input line is no menu).
func TestRecordedScreensShowAtMostOneLiveDialog(t *testing.T) {
	t.Parallel()
	two := map[string]string{
		// Gemini CLI started with a prompt in a folder it does not trust.
		"gemini-0.61.0/22-trust-and-approval-at-once.txt": "both at once",
		// The same after the trust dialog was answered: it stays drawn,
		// stale, above the approval (TestAnsweredDialogAboveTakesNoKey).
		"gemini-0.61.0/26-approval-below-answered-trust.txt": "one answered",
	}
	files, err := filepath.Glob("../../testdata/screens/*/*.txt")
	if err != nil || len(files) < 50 {
		t.Fatalf("screens: %d, %v", len(files), err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(filepath.Dir(f)) + "/" + filepath.Base(f)
		want := 1
		if two[name] != "" {
			want = 2
		}
		if live := liveMenus(b); len(live) > want || want == 2 && len(live) != 2 {
			for _, m := range live {
				t.Errorf("%s: %s", f, m.describe())
			}
		}
	}
}
