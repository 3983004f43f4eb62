package hookproto

import (
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
