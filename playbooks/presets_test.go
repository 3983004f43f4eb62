package playbooks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
)

// recordedTests names, for the presets whose tests are all recordings, the
// file under testdata/screens that each test's output must be, or the cast it
// replays.
var recordedTests = map[string]map[string]string{
	"codex": {
		"leaves sign-in to a person":                           "codex-0.169.0/01-sign-in.txt",
		"trusts the project folder by label":                   "codex-0.169.0/04-trust-folder.txt",
		"approves git status by label":                         "codex-0.169.0/08-approve-git-status.txt",
		"refuses sudo":                                         "codex-0.169.0/09-approve-sudo.txt",
		"leaves npm install to a person":                       "codex-0.169.0/13-approve-npm-install.txt",
		"leaves npm install to a person with run_project_code": "codex-0.169.0/13-approve-npm-install.txt",
		"leaves edits to a person":                             "codex-0.169.0/11-approve-edit.txt",
		"the recorded approvals":                               "codex-0.169.0/approvals.cast",
		"trusts the project folder by label (0.171.0)":         "codex-0.171.0/01-trust-folder.txt",
		"leaves find -delete to a person":                      "codex-0.171.0/04-approve-find-delete.txt",
		"leaves git branch -D to a person":                     "codex-0.171.0/07-approve-git-branch-D.txt",
		"approves ls of the project by label":                  "codex-0.171.0/09-approve-ls-first.txt",
		"approves ls of the project asked again":               "codex-0.171.0/10-approve-ls-second.txt",
		"refuses rm -rf outside the project":                   "codex-0.171.0/11-approve-rm-rf-outside.txt",
		"the recorded session (0.171.0)":                       "codex-0.171.0/session.cast",
	},
	"gemini": {
		"trusts the project folder by label":          "gemini-0.61.0/01-trust-folder.txt",
		"leaves authentication to a person":           "gemini-0.61.0/03-auth-method.txt",
		"leaves go test to a person":                  "gemini-0.61.0/08-approve-go-test.txt",
		"approves go test once with run_project_code": "gemini-0.61.0/08-approve-go-test.txt",
		"refuses sudo":                                                    "gemini-0.61.0/06-approve-sudo.txt",
		"leaves npm install to a person":                                  "gemini-0.61.0/09-approve-npm-install.txt",
		"approves a new file in the project":                              "gemini-0.61.0/11-approve-write-file.txt",
		"approves an edit in the project":                                 "gemini-0.61.0/13-approve-edit.txt",
		"the recorded approvals":                                          "gemini-0.61.0/approvals.cast",
		"the recorded approvals without run_project_code":                 "gemini-0.61.0/approvals.cast",
		"leaves find -delete to a person":                                 "gemini-0.61.0/16-approve-find-delete.txt",
		"leaves git branch -D to a person":                                "gemini-0.61.0/17-approve-git-branch-delete.txt",
		"approves git ls-files once":                                      "gemini-0.61.0/18-approve-git-ls-files.txt",
		"approves git ls-files below its first result":                    "gemini-0.61.0/19-approve-git-ls-files-again.txt",
		"refuses rm -rf outside the project":                              "gemini-0.61.0/20-approve-rm-rf-outside.txt",
		"leaves the prompt after the cancelled rm -rf alone":              "gemini-0.61.0/21-script-done.txt",
		"hands over on the trust dialog and an approval at once":          "gemini-0.61.0/22-trust-and-approval-at-once.txt",
		"leaves find -delete below the answered trust dialog to a person": "gemini-0.61.0/26-approval-below-answered-trust.txt",
		"leaves ls outside the project to a person":                       "gemini-0.61.0/27-approve-ls-outside.txt",
		"leaves ls outside the project asked again to a person":           "gemini-0.61.0/28-approve-ls-outside-again.txt",
		"the recorded clean-up":                                           "gemini-0.61.0/cleanup.cast",
		"the recorded trust dialog and approval":                          "gemini-0.61.0/trust-and-approval.cast",
	},
}

// TestPresetTestsAreRecordedScreens checks that every test of these presets
// feeds what the program drew: a recorded cast, or an output that is the
// recorded screen, trailing blank lines aside, at the size it was recorded.
func TestPresetTestsAreRecordedScreens(t *testing.T) {
	for preset, screens := range recordedTests {
		pb, err := playbooks.LoadPreset(preset)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, tt := range pb.Tests {
			file, ok := screens[tt.Name]
			if !ok {
				t.Errorf("%s: test %q is not a recorded screen", preset, tt.Name)
				continue
			}
			seen[tt.Name] = true
			if tt.Cast != "" {
				if want := "../../testdata/screens/" + file; tt.Cast != want {
					t.Errorf("%s: test %q replays %s, want %s", preset, tt.Name, tt.Cast, want)
				}
				continue
			}
			data, err := os.ReadFile(filepath.Join("..", "testdata", "screens", file))
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.TrimRight(string(data), "\n"); tt.Output != want {
				t.Errorf("%s: test %q: output is not %s as recorded", preset, tt.Name, file)
			}
			if tt.Size == nil || tt.Size.Rows != 40 || tt.Size.Cols != 120 {
				t.Errorf("%s: test %q: size %v, want 40x120 as recorded", preset, tt.Name, tt.Size)
			}
		}
		for name := range screens {
			if !seen[name] {
				t.Errorf("%s: no test %q", preset, name)
			}
		}
	}
}
