package hookproto

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
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
