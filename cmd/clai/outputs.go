package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/cast"
	"github.com/clai-sh/clai/runner/report"
)

// outputPaths are the files a run is asked to write, as given on the command
// line: its reports (one per format), the event log and the recording. An
// empty log or record is not asked for.
type outputPaths struct {
	reports     []string
	log, record string
}

// check refuses, before anything runs, the outputs a run could not write: a
// report of no known format, two reports of one format, two outputs in one
// file, and a report that cannot be made where it is asked for. A report's
// missing folder is created. The log and the recording are checked when they
// are opened, which is before the run too.
func (p outputPaths) check() error {
	for _, path := range p.reports {
		if _, err := report.FormatOf(path); err != nil {
			return usageError("--report: %v", err)
		}
	}
	if err := p.distinct(); err != nil {
		return err
	}
	byFormat := map[string]string{}
	for _, path := range p.reports {
		format, _ := report.FormatOf(path)
		if other, ok := byFormat[format]; ok {
			return usageError("--report %s and --report %s are both .%s: give one file per format", other, path, format)
		}
		byFormat[format] = path
	}
	for _, path := range p.reports {
		if err := report.CheckPath(path); err != nil {
			return usageError("--report %s cannot be written: %v", path, err)
		}
	}
	return nil
}

// distinct refuses two outputs that name the same file: each would overwrite
// the other.
func (p outputPaths) distinct() error {
	type output struct{ flag, path string }
	var all []output
	for _, path := range p.reports {
		all = append(all, output{"--report", path})
	}
	if p.log != "" {
		all = append(all, output{"--log", p.log})
	}
	if p.record != "" {
		all = append(all, output{"--record", p.record})
	}
	for i, a := range all {
		for _, b := range all[:i] {
			if sameFile(a.path, b.path) {
				return usageError("%s %s and %s %s name the same file: give each output a file of its own", b.flag, b.path, a.flag, a.path)
			}
		}
	}
	return nil
}

// sameFile reports whether paths a and b name one regular file, where each
// output would overwrite the other: the same path once made absolute, or two
// names of one existing file (a link). A device, as /dev/null, may take more
// than one output.
func sameFile(a, b string) bool {
	stA, errA := os.Stat(a)
	stB, errB := os.Stat(b)
	if errA == nil && !stA.Mode().IsRegular() || errB == nil && !stB.Mode().IsRegular() {
		return false
	}
	if errA == nil && errB == nil {
		return os.SameFile(stA, stB)
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}

// outputs are the files a run writes as it goes, beside its reports: the
// event log and the recording.
type outputs struct {
	log    *logFile
	record *recordFile
}

// close flushes and closes the outputs. One that could not be written in full
// is said on stderr, once, and noted in the report; the run's exit code stays
// its own.
func (o *outputs) close(stderr io.Writer, rep *report.Report) {
	if err := o.log.close(); err != nil {
		fmt.Fprintf(stderr, "clai: the event log %s is incomplete: %v\n", o.log.path, err)
		rep.AddOutputError("log", o.log.path, err)
	}
	if o.record != nil {
		if err := o.record.close(); err != nil {
			fmt.Fprintf(stderr, "clai: the recording %s is incomplete: %v\n", o.record.path, err)
			rep.AddOutputError("recording", o.record.path, err)
		}
	}
}

// writeReports writes the report to each path, in the format its extension
// names. A report that cannot be written is said on stderr and noted in the
// others, which are written again to say so; the run's exit code stays its
// own.
func writeReports(stderr io.Writer, rep *report.Report, paths []string) {
	var written []string
	for _, path := range paths {
		if err := rep.WriteFile(path); err != nil {
			fmt.Fprintf(stderr, "clai: the report %s was not written: %v\n", path, err)
			rep.AddOutputError("report", path, err)
			continue
		}
		written = append(written, path)
	}
	if len(written) == len(paths) {
		return
	}
	for _, path := range written {
		if err := rep.WriteFile(path); err != nil {
			fmt.Fprintf(stderr, "clai: the report %s does not list the reports that were not written: %v\n", path, err)
		}
	}
}

// recordFile is the recording of a run: a cast.Writer on its file.
type recordFile struct {
	*cast.Writer
	path   string
	f      *os.File
	closed bool
}

// openRecording creates the recording at path, its folder too if missing,
// and writes its header: a path that cannot take it fails here, before the
// program starts. The terminal is rows×cols unless the playbook sets its
// size.
func openRecording(path string, pb *playbooks.Playbook, rows, cols int) (*recordFile, error) {
	if sz := pb.Spawn.Size; sz != nil {
		rows, cols = sz.Rows, sz.Cols
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, usageError("--record %s cannot be written: %v", path, err)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, usageError("--record %s cannot be written: %v", path, err)
	}
	w, err := cast.NewWriter(f, cast.Header{Width: cols, Height: rows, Timestamp: time.Now().Unix(), Title: pb.Name,
		Env: map[string]string{"TERM": "xterm-256color", "SHELL": os.Getenv("SHELL")}})
	if err != nil {
		_ = f.Close()
		return nil, usageError("--record %s cannot be written: %v", path, err)
	}
	return &recordFile{Writer: w, path: path, f: f}, nil
}

// close writes what the recording holds and closes its file; it returns the
// first error of a write or of closing, which means the recording is
// incomplete. Only the first call does anything.
func (r *recordFile) close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	err := r.Writer.Close()
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	return err
}
