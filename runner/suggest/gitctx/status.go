package gitctx

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Status is the state of a repository's work tree: its branch and the files
// changed in it.
type Status struct {
	// Branch is the branch checked out, "" on a detached HEAD.
	Branch string
	// Dirty tells that a file differs from the last commit: changed in
	// the work tree or the index, or untracked.
	Dirty bool
	// Unstaged are the files changed in the work tree and not staged,
	// untracked ones included; Staged those staged for the next commit.
	// Both hold paths from the root, sorted, at most MaxChanged each.
	Unstaged, Staged []string
	// Truncated tells that there were more changed files than were kept.
	Truncated bool
}

// MaxChanged bounds the files a Status keeps of each kind.
const MaxChanged = 64

// statusEntry is a status found at a time.
type statusEntry struct {
	st Status
	at time.Time
}

// Status returns the state of the work tree of the repository whose root
// is root: the one found within the TTL, unless refresh asks for git to be
// asked again (a command just ran there and may have changed files). A
// repository with more changes than git can list within the resolver's
// bounds (its timeout, the output's size) gives what was read, Truncated.
func (r *Resolver) Status(ctx context.Context, root string, refresh bool) (Status, error) {
	now := r.now()
	if !refresh {
		r.mu.Lock()
		e, ok := r.status[root]
		r.mu.Unlock()
		if ok && now.Sub(e.at) < r.ttl && !now.Before(e.at) {
			return e.st, nil
		}
	}
	out, err := r.run(ctx, root, "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--ignore-submodules=dirty")
	if err != nil {
		return Status{}, fmt.Errorf("gitctx: the status of %s: %w%s", root, err, out.detail())
	}
	st := parseStatus(out.stdout)
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.status) >= maxCached {
		clear(r.status)
	}
	r.status[root] = statusEntry{st: st, at: now}
	return st, nil
}

// parseStatus reads the output of git status --porcelain=v2 --branch -z:
// headers ("# branch.head NAME"), changed entries ("1 XY …path",
// "2 XY …path" followed by the original path, "u XY …path") and untracked
// ones ("? path"), each ended by a NUL. A last entry cut by the output's
// bound is dropped and the status Truncated.
func parseStatus(out string) Status {
	var st Status
	entries := strings.Split(out, "\x00")
	if n := len(entries); n > 0 {
		if entries[n-1] != "" || len(out) >= maxOutput {
			st.Truncated = true
		}
		entries = entries[:n-1]
	}
	add := func(list *[]string, path string) {
		if len(*list) >= MaxChanged {
			st.Truncated = true
			return
		}
		*list = append(*list, path)
	}
	for i := 0; i < len(entries); i++ {
		e := entries[i]
		switch {
		case strings.HasPrefix(e, "# branch.head "):
			if head := strings.TrimPrefix(e, "# branch.head "); head != "(detached)" {
				st.Branch = head
			}
		case strings.HasPrefix(e, "? "):
			st.Dirty = true
			add(&st.Unstaged, e[2:])
		case strings.HasPrefix(e, "1 "), strings.HasPrefix(e, "2 "), strings.HasPrefix(e, "u "):
			fields := pathField(e[0])
			parts := strings.SplitN(e, " ", fields+1)
			if e[0] == '2' {
				i++ // the original path of a rename follows
			}
			if len(parts) != fields+1 || len(parts[1]) != 2 {
				continue
			}
			st.Dirty = true
			path, xy := parts[fields], parts[1]
			if xy[0] != '.' {
				add(&st.Staged, path)
			}
			if xy[1] != '.' {
				add(&st.Unstaged, path)
			}
		}
	}
	slices.Sort(st.Unstaged)
	slices.Sort(st.Staged)
	return st
}

// pathField is the index of the path among the space-separated fields of
// an ordinary ("1"), a renamed ("2") and an unmerged ("u") entry of git
// status --porcelain=v2.
func pathField(kind byte) int {
	switch kind {
	case '1':
		return 8
	case '2':
		return 9
	default:
		return 10
	}
}
