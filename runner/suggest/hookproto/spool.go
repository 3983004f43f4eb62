package hookproto

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/clai-sh/clai/internal/rundir"
)

// The spool is how the shell hooks hand commands to the daemon without
// starting a program at each prompt: a hook appends one record to its shell's
// spool file with the shell's own printf, and the daemon takes the files and
// reads them. A hook appends only while the daemon's socket is there, so
// that nothing piles up while no daemon runs.
//
// A record is ten fields, each ended by a NUL byte, then a newline:
//
//	clai1 TYPE SHELL SESSION PID TS_MS EXIT DURATION_MS CWD CMD
//
// TYPE is command, for a command line as typed, or bash-history, for what
// bash's `history 1` prints of it (a number before it and a newline after
// it, which the reader takes off), or bash-history-same when bash ran a
// command its history did not grow by (see Event.IfNew). TS_MS is 0 when
// the shell has no clock and DURATION_MS -1 when it could not measure. No
// field holds a NUL byte: no bash or fish string can, and the zsh hook takes
// them out.

// Folders of the spool, in the runtime folder: the files the hooks append
// to, and the files the daemon took from there and is reading.
const (
	SpoolFolder = "shell-spool"
	takenFolder = "shell-spool-taken"
)

// Spool record types.
const (
	spoolMagic       = "clai1"
	spoolCommand     = "command"
	spoolBashHistory = "bash-history"
	spoolBashSame    = "bash-history-same"
	spoolFields      = 10
)

// MaxSpoolFile bounds what is read of one spool file: what a file holds
// beyond it is dropped.
const MaxSpoolFile = 16 << 20

// DefaultSpoolSettle is how long a spool file the daemon took is watched for
// a record a shell was still writing when it was taken.
const DefaultSpoolSettle = 2 * time.Second

// SpoolFile is the spool file of the shell session id in the runtime folder
// dir. A session id that is no valid one, or that starts with a dot, has
// none.
func SpoolFile(dir, session string) (string, error) {
	if !validSessionID([]byte(session)) || strings.HasPrefix(session, ".") {
		return "", fmt.Errorf("spool file of session %q: not a valid session id", session)
	}
	return filepath.Join(dir, SpoolFolder, session), nil
}

// AppendSpoolCommand appends e, a command event, to buf as one spool record
// of type command, as the zsh and fish hooks write it. A field holding a NUL
// byte is an error, and buf is returned unchanged.
func AppendSpoolCommand(buf []byte, e Event) ([]byte, error) {
	fields := []string{spoolMagic, spoolCommand, e.Shell, e.Session, strconv.Itoa(e.PID), strconv.FormatInt(e.TSMillis, 10),
		strconv.Itoa(e.Exit), strconv.FormatInt(e.DurationMS, 10), e.Cwd, e.Cmd}
	for _, f := range fields {
		if strings.IndexByte(f, 0) >= 0 {
			return buf, errors.New("spool record: a field holds a NUL byte")
		}
	}
	for _, f := range fields {
		buf = append(append(buf, f...), 0)
	}
	return append(buf, '\n'), nil
}

// SpoolStats counts what reading spool records took and skipped.
type SpoolStats struct {
	// Events is how many events were read.
	Events int
	// TooLong counts the records of a command longer than MaxLine, and the
	// bytes of a file beyond MaxSpoolFile (one each file).
	TooLong int
	// Bad counts what was no record: garbled bytes, skipped up to the next
	// record, and a record a shell never finished.
	Bad int
	// Newer counts the records of a newer format.
	Newer int
}

func (s *SpoolStats) add(o SpoolStats) {
	s.Events += o.Events
	s.TooLong += o.TooLong
	s.Bad += o.Bad
	s.Newer += o.Newer
}

// ParseSpool reads the whole records at the start of data, calling emit for
// each command; it returns how many bytes they took, which leaves out a
// record not yet finished at the end. Garbled bytes are skipped up to the
// next record, and a record of a newer format as a whole. It takes linear
// time: each place a record may start holds a NUL, so the search from one
// never passes the tenth place after it.
func ParseSpool(data []byte, emit func(Event)) (used int, st SpoolStats) {
	return parseSpool(data, func(e Event) bool { emit(e); return true })
}

// parseSpool is ParseSpool, but stops after a record whose event emit
// answers false: used then ends with that record.
func parseSpool(data []byte, emit func(Event) bool) (used int, st SpoolStats) {
	for used < len(data) {
		rec := data[used:]
		fields, n, kind := splitRecord(rec)
		switch kind {
		case unfinished:
			// Unless it is longer than any record can be, the rest comes
			// later.
			if len(rec) <= MaxLine+recordOverhead {
				return used, st
			}
			st.Bad++
			used += resync(rec)
			continue
		case garbled:
			st.Bad++
			used += n
			continue
		case newer:
			st.Newer++
			used += n
			continue
		}
		used += n
		e, err := spoolEvent(fields)
		switch {
		case errors.Is(err, ErrTooLong):
			st.TooLong++
		case err != nil:
			st.Bad++
		case strings.TrimSpace(e.Cmd) == "":
		default:
			st.Events++
			if !emit(e) {
				return used, st
			}
		}
	}
	return used, st
}

// recordOverhead bounds the bytes of a record beside its command.
const recordOverhead = 64 << 10

// What splitRecord found at the start of its bytes.
const (
	whole      = iota // a record of this format
	unfinished        // the start of one, the rest not written yet
	garbled           // bytes that are no record, to skip
	newer             // a record of a newer format, to skip
)

// splitRecord splits the record at the start of rec into its fields; n is
// its length, or the bytes to skip when it is garbled or newer.
func splitRecord(rec []byte) (fields [][]byte, n, kind int) {
	i := bytes.IndexByte(rec, 0)
	if i < 0 {
		if !bytes.HasPrefix(rec, []byte("clai")[:min(len(rec), 4)]) {
			return nil, resync(rec), garbled
		}
		return nil, 0, unfinished
	}
	switch magic := rec[:i]; {
	case !bytes.HasPrefix(magic, []byte("clai")):
		return nil, resync(rec), garbled
	case string(magic) != spoolMagic:
		// A newer format ends its records as this one does; one left
		// unfinished ends where a record of this format starts.
		end := -1
		if j := bytes.Index(rec, []byte("\x00\n")); j >= 0 {
			end = j + 2
		}
		if j := bytes.Index(rec[1:], []byte(spoolMagic+"\x00")); j >= 0 && (end < 0 || 1+j < end) {
			end = 1 + j
		}
		if end < 0 {
			return nil, 0, unfinished
		}
		return nil, end, newer
	}
	fields = make([][]byte, 0, spoolFields)
	rest := rec
	for len(fields) < spoolFields {
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return nil, 0, unfinished
		}
		fields = append(fields, rest[:i])
		rest = rest[i+1:]
	}
	if len(rest) == 0 {
		return nil, 0, unfinished
	}
	if rest[0] != '\n' {
		return nil, resync(rec), garbled
	}
	return fields, len(rec) - len(rest) + 1, whole
}

// resyncMarks are where a record can start after garbled bytes, with the
// offset of its "clai" in each: after a whole record ("\0\n"), or wherever
// this format's magic and its NUL are, since a shell may have left the
// record before unfinished anywhere.
var resyncMarks = []struct {
	mark []byte
	at   int
}{
	{[]byte("\x00\nclai"), 2},
	{[]byte(spoolMagic + "\x00"), 0},
}

// resync is how many bytes of rec to skip to reach the next record: the
// earliest start of one past rec's first byte, else all of rec.
func resync(rec []byte) int {
	skip := len(rec)
	for _, m := range resyncMarks {
		if i := bytes.Index(rec[1:], m.mark); i >= 0 {
			skip = min(skip, 1+i+m.at)
		}
	}
	return skip
}

// spoolEvent is the command event of a record's fields.
func spoolEvent(f [][]byte) (Event, error) {
	pid, err1 := strconv.Atoi(string(f[4]))
	ts, err2 := strconv.ParseInt(string(f[5]), 10, 64)
	exit, err3 := strconv.Atoi(string(f[6]))
	duration, err4 := strconv.ParseInt(string(f[7]), 10, 64)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return Event{}, fmt.Errorf("spool record: %w", err)
	}
	cmd := string(f[9])
	ifNew := false
	switch string(f[1]) {
	case spoolCommand:
	case spoolBashHistory:
		cmd = fromBashHistory(cmd)
	case spoolBashSame:
		cmd, ifNew = fromBashHistory(cmd), true
	default:
		return Event{}, fmt.Errorf("spool record of type %q", f[1])
	}
	if len(cmd) > MaxLine {
		return Event{}, fmt.Errorf("spool record: command of %d bytes: %w", len(cmd), ErrTooLong)
	}
	if duration < 0 {
		duration = UnknownDuration
	}
	return Event{V: Version, Type: TypeCommand, Session: Lossy(string(f[3])), Shell: Lossy(string(f[2])), PID: pid,
		TSMillis: max(ts, 0), Cwd: Lossy(string(f[8])), Cmd: Lossy(cmd), Exit: exit, DurationMS: duration, IfNew: ifNew}, nil
}

// fromBashHistory is the command line in what `history 1` prints of it:
// blanks, its number, a '*' when it was edited or else a blank, a blank, the
// line and a newline.
func fromBashHistory(s string) string {
	s = strings.TrimSuffix(s, "\n")
	s = strings.TrimLeft(s, " \t")
	s = strings.TrimLeft(s, "0123456789")
	if strings.HasPrefix(s, "* ") || strings.HasPrefix(s, "  ") {
		s = s[2:]
	}
	return s
}

// Spool is the daemon's side of the spool of the runtime folder Dir: Take
// takes the files the hooks wrote and reads their records. It is safe for
// concurrent use.
type Spool struct {
	// Dir is the runtime folder.
	Dir string
	// Settle is how long a file taken is watched for a record a shell was
	// still writing (DefaultSpoolSettle when zero).
	Settle time.Duration
	// Now is the time; nil is the wall clock.
	Now func() time.Time

	mu     sync.Mutex
	seq    int64
	loaded bool
	// taken are the files taken and not yet removed, in the order taken.
	taken []*takenFile
}

// takenFile is a spool file taken and not yet removed. Its name in the
// taken folder is the spool file's, when it was taken (Unix nanoseconds),
// a sequence number and how many of its bytes were read, dot-separated: a
// daemon that stops before it removed the file leaves the next one where to
// go on.
type takenFile struct {
	file      string // where it is now
	name      string // the spool file's
	nanos     int64
	seq       int64
	used      int64
	at        time.Time
	truncated bool // counted once as too long
}

// path is where tf is to be in the runtime folder dir, as far as it was
// read.
func (tf *takenFile) path(dir string) string {
	return filepath.Join(dir, takenFolder, fmt.Sprintf("%s.%d.%d.%d", tf.name, tf.nanos, tf.seq, tf.used))
}

// parseTaken reads a taken file's name; ok is false for a name no daemon
// gave.
func parseTaken(file string) (tf *takenFile, ok bool) {
	parts := strings.Split(file, ".")
	if len(parts) < 4 {
		return nil, false
	}
	n := len(parts)
	nanos, err1 := strconv.ParseInt(parts[n-3], 10, 64)
	seq, err2 := strconv.ParseInt(parts[n-2], 10, 64)
	used, err3 := strconv.ParseInt(parts[n-1], 10, 64)
	if errors.Join(err1, err2, err3) != nil || used < 0 {
		return nil, false
	}
	return &takenFile{name: strings.Join(parts[:n-3], "."), nanos: nanos, seq: seq, used: used}, true
}

// PrepareSpool makes the spool folder of the runtime folder dir if it is
// missing, and checks that it is this user's alone (see rundir.Check): the
// hooks write the commands there, and the daemon learns what it finds there.
func PrepareSpool(dir string) error {
	if err := rundir.Prepare(filepath.Join(dir, SpoolFolder)); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

// Prepare makes the spool's folders if they are missing, and checks them as
// PrepareSpool does.
func (s *Spool) Prepare() error {
	if err := PrepareSpool(s.Dir); err != nil {
		return err
	}
	if err := rundir.Prepare(filepath.Join(s.Dir, takenFolder)); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

// SpoolBatch is the most events TakeBatches hands its commit at once.
const SpoolBatch = 500

// Take reads what the hooks appended since the last Take, calling emit for
// each command in the order its shell wrote them, as TakeBatches does with a
// commit that always succeeds.
func (s *Spool) Take(emit func(Event)) (SpoolStats, error) {
	return s.TakeBatches(func(events []Event) error {
		for _, e := range events {
			emit(e)
		}
		return nil
	})
}

// TakeBatches reads what the hooks appended since the last Take, handing
// commit the commands in the order their shell wrote them, SpoolBatch at most
// at once. Each spool file with something in it is moved aside and read; a
// shell appending next makes a new one. A file moved aside is read once more
// after Settle, in case its shell was writing a record when it was moved,
// then removed. What an earlier daemon moved aside is read from where it
// stopped. The spool's folders are checked at each Take, and made again when
// they were removed: a folder that became a link, or another user's, is not
// read.
//
// Nothing is lost when commit fails: the records it was given stay in their
// file, which is neither marked read past them nor removed, and TakeBatches
// stops there and returns the error (a CommitError); the next call hands
// them to commit again. The stats count only what was committed.
func (s *Spool) TakeBatches(commit func([]Event) error) (SpoolStats, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var st SpoolStats
	if err := s.Prepare(); err != nil {
		return st, err
	}
	now := s.now()
	if !s.loaded {
		s.loaded = true
		s.loadLeft(now)
	}
	kept := s.taken[:0]
	var failed error
	for i, tf := range s.taken {
		finished := now.Sub(tf.at) >= s.settle()
		rst, err := s.read(tf, commit, finished)
		st.add(rst)
		if err != nil {
			// This file and those taken after it wait for the next call.
			kept = append(kept, s.taken[i:]...)
			failed = err
			break
		}
		if finished {
			_ = os.Remove(tf.file)
			continue
		}
		kept = append(kept, tf)
	}
	clear(s.taken[len(kept):])
	s.taken = kept
	if failed != nil {
		return st, failed
	}
	names, err := readNames(filepath.Join(s.Dir, SpoolFolder))
	if err != nil {
		return st, fmt.Errorf("spool: %w", err)
	}
	var errs []error
	for _, name := range names {
		from := filepath.Join(s.Dir, SpoolFolder, name)
		if fi, err := os.Lstat(from); err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
			continue
		}
		s.seq++
		tf := &takenFile{name: name, nanos: now.UnixNano(), seq: s.seq, at: now}
		tf.file = tf.path(s.Dir)
		if err := os.Rename(from, tf.file); err != nil {
			errs = append(errs, fmt.Errorf("spool: %w", err))
			continue
		}
		s.taken = append(s.taken, tf)
		rst, err := s.read(tf, commit, false)
		st.add(rst)
		if err != nil {
			// The files left in the spool folder are taken next time.
			errs = append(errs, err)
			break
		}
	}
	return st, errors.Join(errs...)
}

// CommitError is the error of a commit that failed in TakeBatches: the
// events it was given stay in the spool.
type CommitError struct {
	// Events is how many events the commit was given.
	Events int
	Err    error
}

// Error says what went wrong.
func (e *CommitError) Error() string {
	return fmt.Sprintf("spool: committing %d events: %v (they stay in the spool)", e.Events, e.Err)
}

// Unwrap returns the error underneath.
func (e *CommitError) Unwrap() error { return e.Err }

// Pending counts what waits in the spool: the events of the records not yet
// committed, in the files taken and in those the hooks are appending to, and
// their bytes. It reads the files (each up to MaxSpoolFile).
func (s *Spool) Pending() (events int, bytes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	files := make([]string, 0, len(s.taken))
	offsets := make([]int64, 0, len(s.taken))
	for _, tf := range s.taken {
		files, offsets = append(files, tf.file), append(offsets, tf.used)
	}
	if names, err := readNames(filepath.Join(s.Dir, SpoolFolder)); err == nil {
		for _, name := range names {
			files, offsets = append(files, filepath.Join(s.Dir, SpoolFolder, name)), append(offsets, 0)
		}
	}
	for i, file := range files {
		data, err := readFrom(file, offsets[i])
		if err != nil {
			continue
		}
		_, st := ParseSpool(data, func(Event) {})
		events += st.Events
		bytes += int64(len(data))
	}
	return events, bytes
}

// loadLeft takes up the files an earlier daemon moved aside, oldest first.
func (s *Spool) loadLeft(now time.Time) {
	names, err := readNames(filepath.Join(s.Dir, takenFolder))
	if err != nil {
		return
	}
	for _, name := range names {
		tf, ok := parseTaken(name)
		if !ok {
			continue
		}
		tf.file, tf.at = filepath.Join(s.Dir, takenFolder, name), now
		s.taken = append(s.taken, tf)
	}
	slices.SortFunc(s.taken, func(a, b *takenFile) int {
		return cmp.Or(cmp.Compare(a.nanos, b.nanos), cmp.Compare(a.seq, b.seq))
	})
}

// read reads the records of the taken file tf past what was read of it,
// hands their events to commit in batches, and after each batch committed
// renames the file to say how far that is. When finished, a record left
// unfinished counts as bad. A commit that fails stops it, with a
// CommitError.
func (s *Spool) read(tf *takenFile, commit func([]Event) error, finished bool) (SpoolStats, error) {
	var st SpoolStats
	data, err := readFrom(tf.file, tf.used)
	if err != nil || len(data) == 0 {
		return st, nil
	}
	truncated := false
	if int64(len(data)) > MaxSpoolFile-tf.used {
		data, truncated = data[:MaxSpoolFile-tf.used], true
	}
	off := 0
	for off < len(data) {
		var batch []Event
		used, pst := parseSpool(data[off:], func(e Event) bool {
			batch = append(batch, e)
			return len(batch) < SpoolBatch
		})
		if used == 0 {
			break
		}
		if len(batch) > 0 {
			if err := commit(batch); err != nil {
				return st, &CommitError{Events: len(batch), Err: err}
			}
		}
		st.add(pst)
		off += used
		// The name says how far it was read, for a next daemon.
		tf.used += int64(used)
		if next := tf.path(s.Dir); os.Rename(tf.file, next) == nil {
			tf.file = next
		}
	}
	if truncated && !tf.truncated {
		tf.truncated = true
		st.TooLong++
	}
	if finished && off < len(data) {
		st.Bad++
	}
	return st, nil
}

// readFrom reads the regular file file from offset on, MaxSpoolFile-offset+1
// bytes at most (one more than a spool file is read, to tell it is longer);
// nothing when offset is past its end or past MaxSpoolFile.
func readFrom(file string, offset int64) ([]byte, error) {
	f, err := os.OpenFile(file, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() <= offset || offset >= MaxSpoolFile {
		return nil, nil
	}
	return io.ReadAll(io.NewSectionReader(f, offset, MaxSpoolFile-offset+1))
}

func (s *Spool) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Spool) settle() time.Duration {
	if s.Settle > 0 {
		return s.Settle
	}
	return DefaultSpoolSettle
}

// readNames lists the names in the folder dir, leaving out those that start
// with a dot.
func readNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return names, nil
}
