package hookproto

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// record is one spool record of a command, as a hook writes it.
func record(t *testing.T, e Event) []byte {
	t.Helper()
	b, err := AppendSpoolCommand(nil, e)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// parseAll parses data, returning the events, the bytes used and the stats.
func parseAll(data []byte) ([]Event, int, SpoolStats) {
	var got []Event
	used, st := ParseSpool(data, func(e Event) { got = append(got, e) })
	return got, used, st
}

func TestSpoolRoundTrip(t *testing.T) {
	t.Parallel()
	in := []Event{
		{Shell: "zsh", Session: "d-0123456789abcdef", PID: 42, TSMillis: 1700000000000, Exit: 0, DurationMS: 12, Cwd: "/home/ü",
			Cmd: "echo \"it's\" | grep -v '\"x\"'\nls <a> & b"},
		{Shell: "fish", Session: "l-7-00aa", PID: 7, Exit: 130, DurationMS: UnknownDuration, Cwd: "/", Cmd: "printf 'clai1\\0'"},
		{Shell: "zsh", PID: 1, Cmd: strings.Repeat("é", 4000), DurationMS: 3},
	}
	var data []byte
	for _, e := range in {
		data = append(data, record(t, e)...)
	}
	got, used, st := parseAll(data)
	if used != len(data) || st != (SpoolStats{Events: 3}) {
		t.Fatalf("used %d of %d bytes, %+v", used, len(data), st)
	}
	for i := range in {
		in[i].V, in[i].Type = Version, TypeCommand
	}
	if !reflect.DeepEqual(got, in) {
		t.Errorf("read\n%+v\nwant\n%+v", got, in)
	}
}

func TestSpoolRecordRefusesNUL(t *testing.T) {
	t.Parallel()
	if b, err := AppendSpoolCommand([]byte("x"), Event{Cmd: "a\x00b"}); err == nil || string(b) != "x" {
		t.Errorf("a NUL in a field: %q, %v", b, err)
	}
}

// bashRecord is a record as the bash hook writes it: what `history 1`
// printed in its last field.
func bashRecord(history string) []byte {
	return []byte("clai1\x00bash-history\x00bash\x00d-1\x0099\x001700000000123\x002\x0040\x00/tmp\x00" + history + "\x00\n")
}

func TestSpoolBashHistory(t *testing.T) {
	t.Parallel()
	for history, want := range map[string]string{
		"  12  ls -l\n":                   "ls -l",
		" 1007* echo a\nb  c\n":           "echo a\nb  c",
		"    3    indented  \n":           "  indented  ",
		"100000  x\xffy\n":                "x\uFFFDy",
		"    9  cat <<EOF\nbody\nEOF\n\n": "cat <<EOF\nbody\nEOF\n",
	} {
		got, _, st := parseAll(bashRecord(history))
		if len(got) != 1 || st.Events != 1 {
			t.Fatalf("%q: %+v %+v", history, got, st)
		}
		e := got[0]
		if e.Cmd != want || e.Shell != "bash" || e.Exit != 2 || e.DurationMS != 40 || e.TSMillis != 1700000000123 || e.PID != 99 {
			t.Errorf("%q read as %+v, want the command %q", history, e, want)
		}
	}
}

// A command bash ran without its history growing is taken only if new.
func TestSpoolBashHistorySameIsIfNew(t *testing.T) {
	t.Parallel()
	rec := bytes.Replace(bashRecord("   12  git status\n"), []byte("bash-history"), []byte("bash-history-same"), 1)
	got, _, st := parseAll(append(bashRecord("   12  git status\n"), rec...))
	if st.Events != 2 || got[0].IfNew || !got[1].IfNew || got[1].Cmd != "git status" {
		t.Errorf("%+v %+v", got, st)
	}
}

func TestSpoolWaitsForAnUnfinishedRecord(t *testing.T) {
	t.Parallel()
	whole := record(t, Event{Shell: "zsh", Session: "s", Cmd: "make test"})
	first := record(t, Event{Shell: "zsh", Session: "s", Cmd: "git status"})
	for cut := 1; cut < len(whole); cut++ {
		data := append(append([]byte(nil), first...), whole[:cut]...)
		got, used, st := parseAll(data)
		if used != len(first) || len(got) != 1 || st != (SpoolStats{Events: 1}) {
			t.Fatalf("cut at %d: used %d (want %d), %+v", cut, used, len(first), st)
		}
	}
}

func TestSpoolSkipsWhatIsNoRecord(t *testing.T) {
	t.Parallel()
	good := record(t, Event{Shell: "fish", Session: "s", Cmd: "make lint"})
	newer := []byte("clai2\x00command\x00fish\x00s\x001\x000\x000\x000\x00/\x00new\x00\n")
	badNumber := []byte("clai1\x00command\x00fish\x00s\x00x\x000\x000\x000\x00/\x00bad pid\x00\n")
	badType := []byte("clai1\x00telnet\x00fish\x00s\x001\x000\x000\x000\x00/\x00bad type\x00\n")
	extraField := []byte("clai1\x00command\x00fish\x00s\x001\x000\x000\x000\x00/\x00a\x00b\x00\n")
	blank := record(t, Event{Shell: "fish", Session: "s", Cmd: "  \n "})
	for name, tc := range map[string]struct {
		data []byte
		want SpoolStats
	}{
		"garbage first":     {append([]byte("garbage\nmore garbage\x00\n"), good...), SpoolStats{Events: 1, Bad: 1}},
		"newer format":      {append(newer, good...), SpoolStats{Events: 1, Newer: 1}},
		"bad number":        {append(badNumber, good...), SpoolStats{Events: 1, Bad: 1}},
		"unknown type":      {append(badType, good...), SpoolStats{Events: 1, Bad: 1}},
		"an eleventh field": {append(extraField, good...), SpoolStats{Events: 1, Bad: 1}},
		"blank command":     {append(blank, good...), SpoolStats{Events: 1}},
	} {
		got, used, st := parseAll(tc.data)
		if used != len(tc.data) || st != tc.want || len(got) != 1 || got[0].Cmd != "make lint" {
			t.Errorf("%s: used %d of %d, %+v (want %+v), events %+v", name, used, len(tc.data), st, tc.want, got)
		}
	}
}

func TestSpoolBoundsARecord(t *testing.T) {
	t.Parallel()
	good := record(t, Event{Shell: "zsh", Session: "s", Cmd: "ls"})
	long := record(t, Event{Shell: "zsh", Session: "s", Cmd: strings.Repeat("x", MaxLine+1)})
	got, used, st := parseAll(append(long, good...))
	if used != len(long)+len(good) || st != (SpoolStats{Events: 1, TooLong: 1}) || len(got) != 1 {
		t.Errorf("a command over MaxLine: used %d, %+v", used, st)
	}
	// A record that never ends is not kept waiting past any record's size.
	endless := append([]byte("clai1\x00command\x00zsh\x00s\x001\x000\x000\x000\x00/\x00"), strings.Repeat("y", MaxLine+recordOverhead)...)
	got, used, st = parseAll(endless)
	if st.Bad != 1 || st.Events != 0 || len(got) != 0 || used != len(endless) {
		t.Errorf("an endless record: used %d of %d, %+v", used, len(endless), st)
	}
	// A record after it is read.
	got, used, st = parseAll(append(endless, good...))
	if st.Bad != 1 || st.Events != 1 || len(got) != 1 || used != len(endless)+len(good) {
		t.Errorf("an endless record, then one: used %d of %d, %+v", used, len(endless)+len(good), st)
	}
}

// spoolAt is a Spool of the runtime folder dir on a clock the test moves.
func spoolAt(t *testing.T, dir string, now *time.Time) *Spool {
	t.Helper()
	s := &Spool{Dir: dir, Settle: time.Second, Now: func() time.Time { return *now }}
	if err := s.Prepare(); err != nil {
		t.Fatal(err)
	}
	return s
}

// take runs s.Take and returns the commands read.
func take(t *testing.T, s *Spool) ([]string, SpoolStats) {
	t.Helper()
	var cmds []string
	st, err := s.Take(func(e Event) { cmds = append(cmds, e.Cmd) })
	if err != nil {
		t.Fatal(err)
	}
	return cmds, st
}

func appendTo(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestSpoolTakeReadsEachRecordOnce(t *testing.T) {
	t.Parallel()
	dir, now := t.TempDir(), time.Unix(1700000000, 0)
	s := spoolAt(t, dir, &now)
	path, err := SpoolFile(dir, "d-00112233")
	if err != nil {
		t.Fatal(err)
	}
	appendTo(t, path, record(t, Event{Shell: "zsh", Session: "d-00112233", Cmd: "git status"}))
	appendTo(t, path, record(t, Event{Shell: "zsh", Session: "d-00112233", Cmd: "make test"}))
	if cmds, _ := take(t, s); !reflect.DeepEqual(cmds, []string{"git status", "make test"}) {
		t.Fatalf("first take: %q", cmds)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the spool file is still there after it was taken: %v", err)
	}
	// The shell appends again: a new file, read once.
	appendTo(t, path, record(t, Event{Shell: "zsh", Session: "d-00112233", Cmd: "make lint"}))
	for i := range 3 {
		cmds, _ := take(t, s)
		if want := []string{"make lint"}; i == 0 && !reflect.DeepEqual(cmds, want) || i > 0 && cmds != nil {
			t.Fatalf("take %d: %q", i+1, cmds)
		}
		now = now.Add(2 * time.Second)
	}
	if left, _ := os.ReadDir(filepath.Join(dir, takenFolder)); len(left) != 0 {
		t.Errorf("files taken are not removed once settled: %v", left)
	}
}

func TestSpoolTakeReadsARecordFinishedAfterTheFileWasTaken(t *testing.T) {
	t.Parallel()
	dir, now := t.TempDir(), time.Unix(1700000000, 0)
	s := spoolAt(t, dir, &now)
	path, _ := SpoolFile(dir, "d-1")
	rec := record(t, Event{Shell: "fish", Session: "d-1", Cmd: "go test ./..."})
	// A shell opened the file and wrote half a record when the daemon took
	// it; it writes the rest into the file taken.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(rec[:10]); err != nil {
		t.Fatal(err)
	}
	if cmds, st := take(t, s); cmds != nil || st != (SpoolStats{}) {
		t.Fatalf("half a record was read: %q %+v", cmds, st)
	}
	if _, err := f.Write(rec[10:]); err != nil {
		t.Fatal(err)
	}
	now = now.Add(500 * time.Millisecond)
	if cmds, _ := take(t, s); !reflect.DeepEqual(cmds, []string{"go test ./..."}) {
		t.Fatalf("the record finished later: %q", cmds)
	}
	// One never finished counts as bad once the file settled.
	if _, err := f.Write(rec[:20]); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Second)
	if cmds, st := take(t, s); cmds != nil || st != (SpoolStats{Bad: 1}) {
		t.Errorf("an unfinished record at the end: %q %+v", cmds, st)
	}
}

func TestSpoolTakeGoesOnWhereAnEarlierDaemonStopped(t *testing.T) {
	t.Parallel()
	dir, now := t.TempDir(), time.Unix(1700000000, 0)
	first := spoolAt(t, dir, &now)
	path, _ := SpoolFile(dir, "d-2")
	appendTo(t, path, record(t, Event{Shell: "zsh", Session: "d-2", Cmd: "one"}))
	if cmds, _ := take(t, first); len(cmds) != 1 {
		t.Fatal(cmds)
	}
	// The daemon stops before its file settled; a record came late.
	left, _ := os.ReadDir(filepath.Join(dir, takenFolder))
	if len(left) != 1 {
		t.Fatalf("taken: %v", left)
	}
	appendTo(t, filepath.Join(dir, takenFolder, left[0].Name()), record(t, Event{Shell: "zsh", Session: "d-2", Cmd: "two"}))
	next := spoolAt(t, dir, &now)
	if cmds, _ := take(t, next); !reflect.DeepEqual(cmds, []string{"two"}) {
		t.Errorf("the next daemon read %q, want what the first had not", cmds)
	}
}

func TestSpoolTakeReadsWhatWasLeftInTheOrderItWasTaken(t *testing.T) {
	t.Parallel()
	dir, now := t.TempDir(), time.Unix(1700000000, 0)
	s := spoolAt(t, dir, &now)
	// Eight files a daemon took, one after another, and left unread; they
	// are written in another order, and a name of no daemon's is among them.
	var want []string
	for _, i := range []int{5, 2, 7, 0, 3, 6, 1, 4} {
		// Sequence numbers 9 and 10 share a time: by name, 10 comes first.
		name := fmt.Sprintf("d-3.%d.%d.0", 1700000000000000000+int64(i/2), i+5)
		appendTo(t, filepath.Join(dir, takenFolder, name), record(t, Event{Shell: "fish", Session: "d-3", Cmd: fmt.Sprintf("step %d", i)}))
	}
	appendTo(t, filepath.Join(dir, takenFolder, "d-3.notes"), record(t, Event{Shell: "fish", Session: "d-3", Cmd: "not a taken file"}))
	for i := range 8 {
		want = append(want, fmt.Sprintf("step %d", i))
	}
	if cmds, _ := take(t, s); !reflect.DeepEqual(cmds, want) {
		t.Errorf("read %q, want %q", cmds, want)
	}
}

func TestSpoolTakeMakesAgainTheFoldersRemoved(t *testing.T) {
	t.Parallel()
	dir, now := t.TempDir(), time.Unix(1700000000, 0)
	s := spoolAt(t, dir, &now)
	if err := os.RemoveAll(filepath.Join(dir, takenFolder)); err != nil {
		t.Fatal(err)
	}
	path, _ := SpoolFile(dir, "d-4")
	appendTo(t, path, record(t, Event{Shell: "zsh", Session: "d-4", Cmd: "make"}))
	if cmds, _ := take(t, s); !reflect.DeepEqual(cmds, []string{"make"}) {
		t.Fatalf("with the taken folder removed: %q", cmds)
	}
	if err := os.RemoveAll(filepath.Join(dir, SpoolFolder)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Take(func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if err := PrepareSpool(dir); err != nil {
		t.Errorf("the spool folder was not made again: %v", err)
	}
}

func TestSpoolTakeLeavesAFolderTurnedIntoALinkAlone(t *testing.T) {
	t.Parallel()
	dir, now := t.TempDir(), time.Unix(1700000000, 0)
	s := spoolAt(t, dir, &now)
	victim := t.TempDir()
	appendTo(t, filepath.Join(victim, "thesis.tex"), []byte("\\section{One}\n"))
	if err := os.Remove(filepath.Join(dir, SpoolFolder)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, SpoolFolder)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Take(func(Event) {}); err == nil || !strings.Contains(err.Error(), SpoolFolder) {
		t.Errorf("Take of a spool folder that is a link: %v", err)
	}
	if _, err := os.Stat(filepath.Join(victim, "thesis.tex")); err != nil {
		t.Errorf("the file in the folder linked to: %v", err)
	}
}

func TestSpoolTakeRefusesLinksAndFIFOsAndBoundsAFile(t *testing.T) {
	t.Parallel()
	dir, now := t.TempDir(), time.Unix(1700000000, 0)
	s := spoolAt(t, dir, &now)
	secret := filepath.Join(t.TempDir(), "elsewhere")
	appendTo(t, secret, record(t, Event{Shell: "zsh", Session: "x", Cmd: "not yours"}))
	if err := os.Symlink(secret, filepath.Join(dir, SpoolFolder, "d-link")); err != nil {
		t.Fatal(err)
	}
	// FIFOs, in the spool and left among the files taken, are not waited on.
	for _, fifo := range []string{filepath.Join(dir, SpoolFolder, "d-fifo"), filepath.Join(dir, takenFolder, "d-fifo.1.1.0")} {
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	big, _ := SpoolFile(dir, "d-big")
	rec := record(t, Event{Shell: "zsh", Session: "d-big", Cmd: strings.Repeat("z", 100<<10)})
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for ; n*len(rec) <= MaxSpoolFile+len(rec); n++ {
		if _, err := f.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	_ = f.Close()
	cmds, st := take(t, s)
	if want := MaxSpoolFile / len(rec); len(cmds) != want || st.TooLong != 1 {
		t.Errorf("a file of %d records read %d (want %d), %+v", n, len(cmds), want, st)
	}
	// Read again as it settles, it is not counted again.
	for range 2 {
		now = now.Add(time.Second)
		if cmds, st := take(t, s); len(cmds) != 0 || st.TooLong != 0 {
			t.Errorf("read again: %d commands, %+v", len(cmds), st)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, SpoolFolder, "d-link")); err != nil {
		t.Errorf("the link was moved: %v", err)
	}
	if _, err := os.Stat(secret); err != nil {
		t.Errorf("the file the link names: %v", err)
	}
}

func TestSpoolFileRefusesAnOddSession(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"", ".", "..", ".hidden", "a/b", "a b", strings.Repeat("a", 200)} {
		if p, err := SpoolFile("/run/clai", id); err == nil {
			t.Errorf("session %q has the spool file %s", id, p)
		}
	}
	if p, err := SpoolFile("/run/clai", "d-0a"); err != nil || p != "/run/clai/shell-spool/d-0a" {
		t.Errorf("%s %v", p, err)
	}
}

func TestSpoolRefusesAFolderOthersMayEnter(t *testing.T) {
	t.Parallel()
	open := t.TempDir()
	if err := os.Mkdir(filepath.Join(open, SpoolFolder), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(open, SpoolFolder), 0o777); err != nil {
		t.Fatal(err)
	}
	linked := t.TempDir()
	if err := os.Symlink(t.TempDir(), filepath.Join(linked, SpoolFolder)); err != nil {
		t.Fatal(err)
	}
	for name, dir := range map[string]string{"mode 0777": open, "a link": linked} {
		if err := (&Spool{Dir: dir}).Prepare(); err == nil || !strings.Contains(err.Error(), SpoolFolder) {
			t.Errorf("a spool folder of %s: %v", name, err)
		}
	}
}

// A record a shell left unfinished costs only itself: the whole record
// written after it is read, wherever the first one stopped.
func TestSpoolAnUnfinishedRecordCostsOnlyItself(t *testing.T) {
	t.Parallel()
	whole := record(t, Event{Shell: "zsh", Session: "s", Cwd: "/work", Cmd: "make test"})
	bash := bashRecord("   12  git status\n")
	for name, partial := range map[string][]byte{
		"bash, after its first printf":     bash[:bytes.Index(bash, []byte("   12"))],
		"bash, after the history line":     bash[:len(bash)-2],
		"zsh, at a field's end":            whole[:bytes.Index(whole, []byte("/"))],
		"zsh, within a field":              whole[:len(whole)-5],
		"bash, within its first field":     bash[:3],
		"a record of a newer format, half": []byte("clai2\x00command\x00zsh\x00s\x00"),
	} {
		data := append(append([]byte(nil), partial...), whole...)
		got, used, st := parseAll(data)
		if used != len(data) || len(got) != 1 || got[0].Cmd != "make test" || st.Events != 1 {
			t.Errorf("%s: used %d of %d, %+v, events %+v", name, used, len(data), st, got)
		}
	}
}

func TestSpoolSkipsARecordOfANewerFormatWhole(t *testing.T) {
	t.Parallel()
	good := record(t, Event{Shell: "fish", Session: "s", Cmd: "make lint"})
	newer := []byte("clai2\x00command\x00fish\x00s\x001\x000\x000\x000\x00/\x00new\x00field\x00\n")
	data := append(append(append([]byte(nil), newer...), newer...), good...)
	got, used, st := parseAll(data)
	if used != len(data) || st != (SpoolStats{Events: 1, Newer: 2}) || len(got) != 1 {
		t.Errorf("used %d of %d, %+v", used, len(data), st)
	}
}

// failingCommit is a commit that fails while fail is set and keeps the
// commands it committed.
type failingCommit struct {
	fail  bool
	calls int
	cmds  []string
}

func (c *failingCommit) commit(events []Event) error {
	c.calls++
	if c.fail {
		return errors.New("database or disk is full (13)")
	}
	for _, e := range events {
		c.cmds = append(c.cmds, e.Cmd)
	}
	return nil
}

func TestSpoolKeepsWhatACommitFailedOnUntilItSucceeds(t *testing.T) {
	t.Parallel()
	dir, now := t.TempDir(), time.Unix(1700000000, 0)
	s := spoolAt(t, dir, &now)
	const n = 2*SpoolBatch + 7
	var want []string
	for i, session := range []string{"d-aa", "d-bb"} {
		path, err := SpoolFile(dir, session)
		if err != nil {
			t.Fatal(err)
		}
		var data []byte
		for j := range n {
			cmd := fmt.Sprintf("make t%d-%d", i, j)
			want = append(want, cmd)
			data = append(data, record(t, Event{Shell: "zsh", Session: session, PID: 1, Cmd: cmd})...)
		}
		appendTo(t, path, data)
	}
	c := &failingCommit{fail: true}
	// Past the settle time, twice over: a file whose events were never
	// committed is not removed however long it waits.
	for range 2 {
		st, err := s.TakeBatches(c.commit)
		var ce *CommitError
		if !errors.As(err, &ce) || ce.Events != SpoolBatch || st.Events != 0 {
			t.Fatalf("a failing commit: %+v, %v", st, err)
		}
		now = now.Add(time.Hour)
	}
	if c.calls != 2 {
		t.Fatalf("a failing commit was tried %d times, want once a take", c.calls)
	}
	if events, bytes := s.Pending(); events != 2*n || bytes == 0 {
		t.Fatalf("pending %d events (%d bytes), want %d", events, bytes, 2*n)
	}
	// The disk has room again: every command arrives once, in order, and
	// the spool is empty once the files settled.
	c.fail = false
	st, err := s.TakeBatches(c.commit)
	if err != nil || st.Events != 2*n {
		t.Fatalf("once commits succeed: %+v, %v", st, err)
	}
	now = now.Add(time.Hour)
	if st, err := s.TakeBatches(c.commit); err != nil || st.Events != 0 {
		t.Fatalf("a take after: %+v, %v", st, err)
	}
	if !slices.Equal(c.cmds, want) {
		t.Fatalf("committed %d commands, want the %d written once each in order", len(c.cmds), len(want))
	}
	for _, folder := range []string{SpoolFolder, takenFolder} {
		if names, err := readNames(filepath.Join(dir, folder)); err != nil || len(names) != 0 {
			t.Errorf("%s holds %v, %v", folder, names, err)
		}
	}
	if events, _ := s.Pending(); events != 0 {
		t.Errorf("%d events still pending", events)
	}
}

func TestSpoolAFailedCommitLeavesTheFileForTheNextDaemon(t *testing.T) {
	t.Parallel()
	dir, now := t.TempDir(), time.Unix(1700000000, 0)
	first := spoolAt(t, dir, &now)
	path, _ := SpoolFile(dir, "d-aa")
	appendTo(t, path, append(record(t, Event{Shell: "zsh", Session: "d-aa", Cmd: "git pull"}),
		record(t, Event{Shell: "zsh", Session: "d-aa", Cmd: "make"})...))
	if _, err := first.TakeBatches((&failingCommit{fail: true}).commit); err == nil {
		t.Fatal("a failing commit was no error")
	}
	// The daemon stops; the next one reads the file it left.
	next := spoolAt(t, dir, &now)
	if cmds, st := take(t, next); !slices.Equal(cmds, []string{"git pull", "make"}) || st.Events != 2 {
		t.Fatalf("the next daemon read %q, %+v", cmds, st)
	}
}
