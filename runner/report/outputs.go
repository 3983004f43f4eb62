package report

import "fmt"

// OutputError is an output of a run that could not be written in full: the
// event log, the recording, or another of its reports.
type OutputError struct {
	// Output is what could not be written: "log", "recording" or "report".
	Output string `json:"output"`
	// Path is the file it was written to.
	Path string `json:"path"`
	// Error says why.
	Error string `json:"error"`
}

// AddOutputError notes in the report that an output of the run could not be
// written in full, and why. The exit code stays the run's own: the run did
// what it did, only its account of it is incomplete.
func (rep *Report) AddOutputError(output, path string, err error) {
	rep.OutputErrors = append(rep.OutputErrors, OutputError{Output: output, Path: path, Error: err.Error()})
}

// outputErrorText is the report's output errors as one line, for the summaries
// of the Markdown and HTML reports; empty when every output was written.
func (rep *Report) outputErrorText() string {
	text := ""
	for i, e := range rep.OutputErrors {
		if i > 0 {
			text += "; "
		}
		text += fmt.Sprintf("%s %s: %s", e.Output, e.Path, e.Error)
	}
	return text
}
