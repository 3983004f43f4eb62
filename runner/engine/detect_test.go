package engine

import "testing"

// TestDetectPromptShapes: the shapes real programs ask in, and output that only
// looks like them.
func TestDetectPromptShapes(t *testing.T) {
	t.Parallel()
	prompts := []string{
		// npm init (the bytes as the stream shows them, with the cursor move after).
		"package name: (npminit-demo) ",
		"version: (1.0.0) ",
		"entry point: (index.js) ",
		"Is this OK? (yes) ",
		"description: ",
		// Node's readline with an empty default, Yeoman and Inquirer.
		"name: () ",
		"? Your project name (demo) ",
		"? What's your favorite food? (Croissant) ",
		// Installers.
		"Path [/usr/local]: ",
		"Installation directory [/opt/app] ",
		"Enter the number of workers [4]: ",
		"Continue? [Y/n] ",
		"Overwrite? [y/N]",
		"Do you accept the license? (yes/no) ",
		"Proceed (y/n)?",
		"(1/2) Stage this hunk [y,n,q,a,d,j,J,g,/,e,?]? ",
		"Enter passphrase (empty for no passphrase): ",
		"Command (m for help): ",
		"Country Name (2 letter code) [AU]:",
		"Password:",
		"user@host:~$ ",
		"(Pdb) ",
		"(gdb) ",
		"> ",
	}
	for _, p := range prompts {
		if got := detectPrompt([]byte("some output before\r\n" + p)); got == "" {
			t.Errorf("%q is a prompt; the detector saw none", p)
		}
	}
	outputs := []string{
		"answer=[y]",
		"answer=[y]\n",
		"selected=[/usr/local]",
		"Compiled 12 files (3 warnings)",
		"Downloading (2.3 MB)",
		"done (0.4s)",
		"Building [3/10]",
		"Progress [=====>     ]",
		"progress [50%]",
		"compiling 12 packages",
		"(node:1234) ExperimentalWarning: fetch is an experimental feature",
		"Wrote to /tmp/demo/package.json",
		"",
	}
	for _, o := range outputs {
		if got := detectPrompt([]byte("some output before\r\n" + o)); got != "" {
			t.Errorf("%q is output; the detector saw the prompt %q", o, got)
		}
	}
}

// TestDetectPromptMarkedLines: a marked line counts as a menu only with
// another entry of its list next to it. Claude Code marks its transcript so,
// and leaves it on screen at its exit: the user's message ("❯ run the tests")
// and its own replies ("● SCRIPT-DONE") are no menu.
func TestDetectPromptMarkedLines(t *testing.T) {
	t.Parallel()
	// Claude Code 2.1.197 after /exit (testdata/screens/claude-code-2.1.197-permissions/09-after-exit.txt).
	exited := "❯ run the tests\n\n● I'll run npm test.\n\n● Bash(npm test)\n  ⎿  > proj@1.0.0 test\n     > echo tested > tested.txt\n\n● SCRIPT-DONE\n\n✻ Cogitated for 0s\n\n" +
		"────────────────────────────────────────────────────────────────────────────────\n❯ \n────────────────────────────────────────────────────────────────────────────────\n" +
		"  ? for shortcuts · ← for agents                              ● high · /effort\n\nResume this session with:\nclaude --resume 13eae1ee-302f-4efc-90fe-50dfa23fec5c\n\n\n"
	notMenus := map[string]string{
		"the exit screen":            exited,
		"the user's message, last":   "● SCRIPT-DONE\n\n❯ run the tests\n",
		"the input line as typed":    "──────────\n❯ run the tests\n──────────\n  ? for shortcuts\n",
		"a reply with its tool call": "● Bash(npm test)\n  ⎿  > proj@1.0.0 test\n",
	}
	for name, screen := range notMenus {
		if got := detectPrompt([]byte(screen)); got != "" {
			t.Errorf("%s: the detector saw the prompt %q in\n%s", name, got, screen)
		}
	}
	menus := map[string]string{
		"a marker list, marked first":      "Pick one\n❯ Yes\n  No\n",
		"a marker list, marked last":       "Pick one\n  Yes\n› No\n",
		"radio buttons":                    "Framework\n● React\n○ Vue\n",
		"radio buttons side by side":       "Framework\n● React / ○ Vue\n",
		"a numbered menu":                  "Do you want to proceed?\n❯ 1. Yes\n  2. No\n",
		"a numbered entry alone":           "Do you want to proceed?\n❯ 1. Yes\n",
		"the trust dialog":                 " Quick safety check: Is this a project you created or one you trust?\n\n ❯ 1. Yes, I trust this folder\n   2. No, exit\n\n Enter to confirm · Esc to cancel\n",
		"a marker list in a box":           "╭────────╮\n│ Pick   │\n│ ❯ Yes  │\n│   No   │\n╰────────╯\n",
		"marked entries one above another": "Pick\n❯ Yes\n❯ No\n",
	}
	for name, screen := range menus {
		if got := detectPrompt([]byte(screen)); got == "" {
			t.Errorf("%s: the detector saw no prompt in\n%s", name, screen)
		}
	}
}
