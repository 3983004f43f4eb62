package score

import (
	"strings"

	"github.com/clai-sh/clai/runner/suggest/normalize"
)

// WorkTree is what a repository's work tree tells of the next command.
type WorkTree struct {
	// Branch is the branch checked out, "" on a detached HEAD.
	Branch string
	// Unstaged are the files changed and not staged (untracked ones
	// included), Changed those changed at all, staged or not; each as a
	// path the shell would type from its folder.
	Unstaged, Changed []string
}

// fillable are the slots the last args may fill: a path, a number or a URL
// tend to come back; a message or a hash is written for one use, so it
// stays a slot to fill by hand.
var fillable = map[string]bool{normalize.SlotPath: true, normalize.SlotNum: true, normalize.SlotURL: true}

// fill returns the command to suggest for the candidate, and the reason
// of a slot the work tree filled ("" when none did). A slot is filled
// only when something says what it surely is:
//
//   - the work tree: the one file changed and not staged fills `git add
//     <path>`; the one file changed fills an editor's (`vim <path>`) and
//     `git diff`, `git restore` or `git checkout --` of one path; the
//     branch checked out fills the one slot of `git push … <path>`;
//   - the last args, when they are known for the repository, were used
//     at least opts.MinArgsUses times and are one per slot: a path, a
//     number or a URL (see fillable).
//
// Any other slot stays, for the user to fill. A word from the work tree is
// quoted for opts.Shell; the last args are as they were typed.
func fill(c *Candidate, opts Options) (string, string) {
	if word, why := fromTree(c.Template, opts.Tree); word != "" {
		if q, ok := normalize.Quote(opts.Shell, word); ok {
			return normalize.Fill(c.Template, []string{q}), why
		}
	}
	if c.Args == nil || uses(c) < opts.MinArgsUses || len(c.Args) != normalize.SlotCount(c.Template) {
		return c.Template, ""
	}
	return fillArgs(c.Template, c.Args), ""
}

// fillArgs is template with its fillable slots filled by args, one per
// slot, as they were typed (quotes and all); the others are left to fill.
func fillArgs(template string, args []string) string {
	words := make([]string, len(args))
	for i, kind := range normalize.Slots(template) {
		if i >= len(args) {
			break
		}
		if fillable[kind] {
			words[i] = args[i]
		} else {
			words[i] = kind
		}
	}
	return normalize.Fill(template, words)
}

// editors are the programs that open the file they are given.
var editors = map[string]bool{"vim": true, "vi": true, "nvim": true, "nano": true, "emacs": true, "emacsclient": true, "code": true, "hx": true, "micro": true, "kak": true, "subl": true, "helix": true, "ed": true, "mg": true, "joe": true}

// fromTree is the word the work tree says template's one slot surely is,
// and why; "" when it says nothing sure.
func fromTree(template string, t *WorkTree) (string, string) {
	if t == nil || normalize.SlotCount(template) != 1 {
		return "", ""
	}
	// A file whose name holds a blank was typed quoted, and its template
	// took it for a message: after these commands it is a path all the
	// same.
	slot := normalize.SlotPath
	if !strings.HasSuffix(template, " "+slot) {
		if slot = normalize.SlotMsg; !strings.HasSuffix(template, " "+slot) {
			return "", ""
		}
	}
	words := strings.Fields(strings.TrimSuffix(template, slot))
	if len(words) == 0 {
		return "", ""
	}
	one := func(files []string, why string) (string, string) {
		if len(files) == 1 {
			return files[0], why
		}
		return "", ""
	}
	switch {
	case len(words) == 2 && words[0] == "git" && words[1] == "add":
		return one(t.Unstaged, "the one file changed and not staged")
	case len(words) == 1 && editors[words[0]],
		len(words) == 2 && words[0] == "git" && (words[1] == "diff" || words[1] == "restore"),
		len(words) == 3 && words[0] == "git" && words[1] == "checkout" && words[2] == "--":
		return one(t.Changed, "the one file changed in the work tree")
	case len(words) >= 2 && words[0] == "git" && words[1] == "push" && t.Branch != "" && slot == normalize.SlotPath:
		return t.Branch, "the branch checked out"
	}
	return "", ""
}
