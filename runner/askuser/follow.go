package askuser

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clai-sh/clai/internal/lazyre"
)

// ProjectDir is the folder where Claude Code keeps the transcripts of the
// sessions it runs in the working folder dir: under configDir (its
// CLAUDE_CONFIG_DIR, else ~/.claude), projects/ and dir with every character
// but a letter or a digit turned into "-". A name longer than Claude Code
// keeps whole ends in a hash of dir; the folder is then found by the part
// kept (see Transcripts).
func ProjectDir(configDir, dir string) string {
	return filepath.Join(configDir, "projects", projectName(dir))
}

// maxProjectName is how much of a project's name Claude Code keeps before it
// adds a hash.
const maxProjectName = 200

var notAlnum = &lazyre.Regexp{Expr: `[^a-zA-Z0-9]`}

func projectName(dir string) string { return notAlnum.Get().ReplaceAllString(dir, "-") }

// sessionID is the shape of a session's id, the name of its transcript.
var sessionID = &lazyre.Regexp{Expr: `^[0-9a-fA-F-]{8,64}$`}

// Transcripts finds the transcript to follow: the session's, when its id is
// known, else the newest one changed at or after since in the project's
// folder. It returns "" while there is none.
func Transcripts(configDir, dir, session string, since time.Time) (string, error) {
	folders := []string{ProjectDir(configDir, dir)}
	if name := projectName(dir); len(name) > maxProjectName {
		long, _ := filepath.Glob(filepath.Join(configDir, "projects", globEscape(name[:maxProjectName])+"-*"))
		folders = append(long, folders...)
	}
	if session != "" {
		if !sessionID.Get().MatchString(session) {
			return "", fmt.Errorf("session id %q is not one", session)
		}
		for _, f := range folders {
			path := filepath.Join(f, session+".jsonl")
			if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
				return path, nil
			}
		}
		return "", nil
	}
	var newest string
	var newestAt time.Time
	for _, f := range folders {
		entries, err := os.ReadDir(f)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".jsonl") || !e.Type().IsRegular() {
				continue
			}
			info, err := e.Info()
			if err != nil || info.ModTime().Before(since) {
				continue
			}
			if newest == "" || info.ModTime().After(newestAt) {
				newest, newestAt = filepath.Join(f, e.Name()), info.ModTime()
			}
		}
	}
	return newest, nil
}

func globEscape(s string) string {
	return strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`).Replace(s)
}

// MaxLine bounds a transcript line the follower reads: a longer one (a big
// tool result) is skipped up to its end, never held whole.
const MaxLine = 4 << 20

// follower reads a transcript's new lines as it grows: a line is handed on
// once its newline is written, a partial one waits for the rest.
type follower struct {
	path    string
	offset  int64
	partial []byte
	// skipping is set while the rest of a line longer than MaxLine is read
	// and dropped.
	skipping bool
	buf      []byte
}

// errGone is returned when the transcript is no longer there.
var errGone = errors.New("the transcript is gone")

// read hands each complete new line to each, and returns once it has read
// what was written so far. A transcript that shrank (rewritten) is read
// again from its start.
func (f *follower) read(each func([]byte)) error {
	file, err := os.Open(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return errGone
	}
	if err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	if st.Size() < f.offset {
		f.offset, f.partial, f.skipping = 0, f.partial[:0], false
	}
	if _, err := file.Seek(f.offset, io.SeekStart); err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	if f.buf == nil {
		f.buf = make([]byte, 64<<10)
	}
	for {
		n, err := file.Read(f.buf)
		f.offset += int64(n)
		f.take(f.buf[:n], each)
		if err == io.EOF || n == 0 {
			return nil
		}
		if err != nil {
			return fmt.Errorf("transcript: %w", err)
		}
	}
}

// take splits data into lines, keeping a partial line for later.
func (f *follower) take(data []byte, each func([]byte)) {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			f.keep(data)
			return
		}
		if !f.keep(data[:i]) {
			f.skipping = false
		} else if len(f.partial) > 0 {
			each(f.partial)
		}
		f.partial = f.partial[:0]
		data = data[i+1:]
	}
}

// keep adds part of a line to the partial line, unless the line is too long:
// then it drops it and skips the rest. It reports whether the line is kept.
func (f *follower) keep(part []byte) bool {
	if f.skipping {
		return false
	}
	if len(f.partial)+len(part) > MaxLine {
		f.partial, f.skipping = f.partial[:0], true
		return false
	}
	f.partial = append(f.partial, part...)
	return true
}
