//go:build e2e

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/clai-sh/clai/runner/ask"
)

// e2eReport is the part of clai's JSON report the agents' end-to-end tests
// read.
type e2eReport struct {
	Outcome  string         `json:"outcome"`
	ExitCode int            `json:"exit_code"`
	Reason   string         `json:"reason"`
	Rules    map[string]int `json:"rules"`
	Timeline []struct {
		TMs     float64 `json:"t_ms"`
		Event   string  `json:"event"`
		State   string  `json:"state"`
		Rule    string  `json:"rule"`
		Sent    string  `json:"sent"`
		Excerpt string  `json:"excerpt"`
		Reason  string  `json:"reason"`
		Screen  string  `json:"screen"`
	} `json:"timeline"`
	Questions []ask.Question `json:"questions"`
}

// readRunReport reads the report a clai run wrote to reportFile, and its
// event log, or says why there is none: the run's error and output (out),
// and the log.
func readRunReport(reportFile, logFile string, runErr error, out []byte) (*e2eReport, []byte, error) {
	log, _ := os.ReadFile(logFile)
	data, err := os.ReadFile(reportFile)
	if err != nil {
		return nil, log, fmt.Errorf("clai run: %v, no report: %v\n%s\nlog:\n%s", runErr, err, out, log)
	}
	var rep e2eReport
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, log, fmt.Errorf("report: %v", err)
	}
	return &rep, log, nil
}

// events counts the timeline's events of kind event.
func (r *e2eReport) events(event string) int {
	n := 0
	for _, e := range r.Timeline {
		if e.Event == event {
			n++
		}
	}
	return n
}

// sent reports whether rule sent exactly what.
func (r *e2eReport) sent(rule, what string) bool {
	for _, e := range r.Timeline {
		if e.Event == "send" && e.Rule == rule && e.Sent == what {
			return true
		}
	}
	return false
}

// sendsOn counts what rule sent on a screen that shows text.
func (r *e2eReport) sendsOn(rule, text string) int {
	n := 0
	for _, e := range r.Timeline {
		if e.Event == "send" && e.Rule == rule && strings.Contains(e.Screen, text) {
			n++
		}
	}
	return n
}

// refusedOn reports whether the danger rule refused (sent its keys) on a
// screen that shows text: the danger may have been seen first in the stream,
// before the dialog was drawn, and its refusal waits for the dialog.
func (r *e2eReport) refusedOn(rule, text string) bool {
	return r.sendsOn(rule, text) > 0
}

// handedOverNaming reports whether the run went to manual for a reason that
// names every one of texts.
func (r *e2eReport) handedOverNaming(texts ...string) bool {
	for _, e := range r.Timeline {
		all := e.Event == "state" && e.State == "manual"
		for _, text := range texts {
			all = all && strings.Contains(e.Reason, text)
		}
		if all {
			return true
		}
	}
	return false
}

// timeline lists the timeline's events, a line each.
func (r *e2eReport) timeline() string {
	var b strings.Builder
	for _, e := range r.Timeline {
		fmt.Fprintf(&b, "  %8.0fms %s %s %s %q %q %q\n", e.TMs, e.Event, e.State, e.Rule, e.Sent, e.Excerpt, e.Reason)
	}
	return b.String()
}

// questions lists the questions the run opened, each with its screen.
func (r *e2eReport) questions() string {
	var b strings.Builder
	for _, q := range r.Questions {
		how := "open"
		if q.Closed != nil {
			how = q.Closed.How
		}
		fmt.Fprintf(&b, "  %s %s %q (%s)\n%s\n", q.ID, q.Reason, q.Text, how, q.Screen)
	}
	return b.String()
}
