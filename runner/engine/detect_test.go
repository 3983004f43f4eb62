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
