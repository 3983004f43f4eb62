package schema_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/exitcode"
	"github.com/clai-sh/clai/runner/report"
	"github.com/clai-sh/clai/schema"
)

const (
	reportSchemaURL   = "https://raw.githubusercontent.com/clai-sh/clai/main/schema/report.schema.json"
	questionSchemaURL = "https://raw.githubusercontent.com/clai-sh/clai/main/schema/question.schema.json"
)

// compileSchema compiles the schema at url from the embedded schemas of a
// report and of a question, which the report's refers to.
func compileSchema(url string) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	for u, src := range map[string][]byte{reportSchemaURL: schema.Report(), questionSchemaURL: schema.Question()} {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(src))
		if err != nil {
			return nil, err
		}
		if err := c.AddResource(u, doc); err != nil {
			return nil, err
		}
	}
	return c.Compile(url)
}

// reportSchema compiles the embedded report schema once for all tests.
var reportSchema = sync.OnceValues(func() (*jsonschema.Schema, error) { return compileSchema(reportSchemaURL) })

// validateReport validates a JSON document against the report schema.
func validateReport(t *testing.T, doc []byte) error {
	t.Helper()
	sch, err := reportSchema()
	if err != nil {
		t.Fatalf("compile the report schema: %v", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, doc)
	}
	return sch.Validate(v)
}

// sampleReport is the report of a dry run as the runner writes it: would-sends,
// a danger hit, a prompt nobody answered, a rule that never fired, a secret
// send shown by reference.
func sampleReport() *report.Report {
	sum := sha256.Sum256([]byte("version: 1\nname: deploy\n"))
	danger := report.Event{TimeMS: 2500.917, Event: "danger", State: engine.Running, Rule: "drop-db",
		Excerpt: "About to run: DROP DATABASE prod;", Reason: "abort"}
	prompt := report.Event{TimeMS: 1800.5, Event: "prompt", State: engine.Running,
		Excerpt: "Proceed with migration? (yes/no) ", Reason: "the output stopped at a question for settle (300ms)"}
	return &report.Report{
		Version:    1,
		Playbook:   report.Playbook{Name: "deploy", Path: "playbooks/deploy.yaml", SHA256: hex.EncodeToString(sum[:])},
		Mode:       "dry-run",
		StartedAt:  time.Date(2025, 3, 14, 9, 26, 53, 589_793_000, time.UTC),
		DurationMS: 2501,
		Outcome:    engine.Aborted,
		ExitCode:   exitcode.Danger,
		Reason:     `danger rule "drop-db" matched "DROP DATABASE"`,
		Child:      &report.Child{Code: 137, Signal: "killed"},
		Timeline: []report.Event{
			{TimeMS: 0, Event: "start", State: engine.Starting, Reason: "deploy"},
			{TimeMS: 0.25, Event: "state", State: engine.Running, From: engine.Starting, Reason: "program started"},
			{TimeMS: 12.5, Event: "would-send", State: engine.Running, Step: "login", Excerpt: "Password: ", Sent: "secret env:DEPLOY_PASS"},
			{TimeMS: 40.1, Event: "would-send", State: engine.Running, Rule: "confirm", Excerpt: "Continue? [y/N]", Sent: "y\r",
				Screen: "Migrating 3 tables\n\nContinue? [y/N]"},
			prompt,
			{TimeMS: 1800.5, Event: "state", State: engine.Prompting, From: engine.Running, Reason: prompt.Reason},
			{TimeMS: 2400, Event: "input", State: engine.Prompting, Bytes: 4},
			danger,
			{TimeMS: 2500.917, Event: "state", State: engine.Aborted, From: engine.Prompting, Reason: `danger rule "drop-db" matched "DROP DATABASE"`},
			{TimeMS: 2500.917, Event: "finish", State: engine.Aborted, Reason: `danger rule "drop-db" matched "DROP DATABASE"`},
		},
		TimelineDropped: 3,
		Rules:           map[string]int{"confirm": 1, "drop-db": 1, "overwrite": 0},
		NeverFired:      []string{"overwrite"},
		DangerHits:      []report.Event{danger},
		// A report of a flood lists the first danger hits only.
		DangerHitsDropped: 2,
		Unanswered:        []report.Event{prompt},
		Questions: []ask.Question{{
			ID: "q1", Session: "5f3a9c1e22b0", Playbook: "deploy", Reason: ask.Prompt, Detail: prompt.Reason,
			Text: "Proceed with migration? (yes/no)", Options: []ask.Option{{Label: "yes"}, {Label: "no"}},
			Screen: "Migrating 3 tables\nProceed with migration? (yes/no)", ScreenHash: "0123456789abcdef",
			AskedAt: time.Date(2025, 3, 14, 9, 26, 55, 0, time.UTC),
			Closed: &ask.Closed{At: time.Date(2025, 3, 14, 9, 26, 56, 0, time.UTC), How: ask.Answered,
				By: "alice", Channel: ask.ChannelTerminal},
		}},
	}
}

func reportJSON(t *testing.T, rep *report.Report) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := rep.Write(&b, "json"); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestReportValidates(t *testing.T) {
	t.Parallel()
	rep := sampleReport()
	if err := validateReport(t, reportJSON(t, rep)); err != nil {
		t.Fatalf("the runner's report does not validate: %v", err)
	}
	// A live run that ended done, and one whose program never started.
	rep.Mode, rep.Outcome, rep.ExitCode, rep.TimelineDropped = "live", engine.Done, 0, 0
	rep.Child = &report.Child{Code: 0}
	if err := validateReport(t, reportJSON(t, rep)); err != nil {
		t.Fatalf("live: %v", err)
	}
	rep.Child = nil
	rep.Timeline, rep.DangerHits, rep.Unanswered, rep.NeverFired, rep.Rules = []report.Event{}, []report.Event{}, []report.Event{}, []string{}, map[string]int{}
	if err := validateReport(t, reportJSON(t, rep)); err != nil {
		t.Fatalf("not started: %v", err)
	}
	// A run whose log, recording and other report were cut short.
	rep.AddOutputError("log", "/dev/full", errors.New("write /dev/full: no space left on device"))
	rep.AddOutputError("recording", "run.cast", errors.New("cast: write: file too large"))
	rep.AddOutputError("report", "run.md", errors.New("write run.md: file too large"))
	if err := validateReport(t, reportJSON(t, rep)); err != nil {
		t.Fatalf("output errors: %v", err)
	}
}

func TestBrokenReportsFail(t *testing.T) {
	t.Parallel()
	var good map[string]any
	if err := json.Unmarshal(reportJSON(t, sampleReport()), &good); err != nil {
		t.Fatal(err)
	}
	for name, breakIt := range map[string]func(doc map[string]any){
		"missing outcome":       func(doc map[string]any) { delete(doc, "outcome") },
		"unknown field":         func(doc map[string]any) { doc["screen"] = "…" },
		"unknown event field":   func(doc map[string]any) { doc["timeline"].([]any)[2].(map[string]any)["secret"] = "x" },
		"unknown playbook key":  func(doc map[string]any) { doc["playbook"].(map[string]any)["hash"] = "x" },
		"unknown outcome":       func(doc map[string]any) { doc["outcome"] = "finished" },
		"no hit left out":       func(doc map[string]any) { doc["danger_hits_dropped"] = 0 },
		"unknown event state":   func(doc map[string]any) { doc["danger_hits"].([]any)[0].(map[string]any)["state"] = "sleeping" },
		"unknown mode":          func(doc map[string]any) { doc["mode"] = "fast" },
		"version 2":             func(doc map[string]any) { doc["version"] = 2 },
		"short hash":            func(doc map[string]any) { doc["playbook"].(map[string]any)["sha256"] = "abc" },
		"rule count not number": func(doc map[string]any) { doc["rules"].(map[string]any)["confirm"] = "1" },
		"timeline null":         func(doc map[string]any) { doc["timeline"] = nil },
		"event without time":    func(doc map[string]any) { delete(doc["timeline"].([]any)[0].(map[string]any), "t_ms") },
		"bad started_at":        func(doc map[string]any) { doc["started_at"] = "yesterday" },
		"output errors empty":   func(doc map[string]any) { doc["output_errors"] = []any{} },
		"unknown output": func(doc map[string]any) {
			doc["output_errors"] = []any{map[string]any{"output": "screen", "path": "r", "error": "x"}}
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var doc map[string]any
			data, _ := json.Marshal(good)
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			breakIt(doc)
			broken, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			if err := validateReport(t, broken); err == nil {
				t.Fatalf("a report with %s validates", name)
			}
		})
	}
}

// TestReportSchemaMatchesTheStructs: the schema names exactly the JSON fields of
// the report's Go types, and requires exactly those the runner always writes.
func TestReportSchemaMatchesTheStructs(t *testing.T) {
	t.Parallel()
	var doc map[string]any
	if err := json.Unmarshal(schema.Report(), &doc); err != nil {
		t.Fatal(err)
	}
	defs := doc["$defs"].(map[string]any)
	var questionDoc map[string]any
	if err := json.Unmarshal(schema.Question(), &questionDoc); err != nil {
		t.Fatal(err)
	}
	questionDefs := questionDoc["$defs"].(map[string]any)
	props := func(m map[string]any) map[string]any { return m["properties"].(map[string]any) }
	top := props(doc)
	child := top["child"].(map[string]any)["oneOf"].([]any)[1].(map[string]any)
	for _, c := range []struct {
		typ    reflect.Type
		object map[string]any
	}{
		{reflect.TypeFor[report.Report](), doc},
		{reflect.TypeFor[report.Playbook](), top["playbook"].(map[string]any)},
		{reflect.TypeFor[report.Child](), child},
		{reflect.TypeFor[report.Event](), defs["event"].(map[string]any)},
		{reflect.TypeFor[report.OutputError](), defs["output_error"].(map[string]any)},
		{reflect.TypeFor[ask.Question](), questionDoc},
		{reflect.TypeFor[ask.Option](), questionDefs["option"].(map[string]any)},
		{reflect.TypeFor[ask.Closed](), questionDefs["closed"].(map[string]any)},
	} {
		var fields, required []string
		for f := range c.typ.Fields() {
			tag := f.Tag.Get("json")
			name, opts, _ := strings.Cut(tag, ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			fields = append(fields, name)
			if !strings.Contains(opts, "omitempty") {
				required = append(required, name)
			}
		}
		var inSchema, requiredInSchema []string
		for name := range props(c.object) {
			inSchema = append(inSchema, name)
		}
		for _, r := range c.object["required"].([]any) {
			requiredInSchema = append(requiredInSchema, r.(string))
		}
		for _, l := range [][]string{fields, required, inSchema, requiredInSchema} {
			slices.Sort(l)
		}
		if !slices.Equal(fields, inSchema) {
			t.Errorf("%s: fields %v, the schema has %v", c.typ, fields, inSchema)
		}
		if !slices.Equal(required, requiredInSchema) {
			t.Errorf("%s: always written %v, the schema requires %v", c.typ, required, requiredInSchema)
		}
		if c.object["additionalProperties"] != false {
			t.Errorf("%s: additionalProperties is not false", c.typ)
		}
	}
	// The states of the schema are the runner's.
	var states []string
	for _, s := range defs["state"].(map[string]any)["enum"].([]any) {
		states = append(states, s.(string))
	}
	want := []string{string(engine.Starting), string(engine.Running), string(engine.Prompting), string(engine.Nudging),
		string(engine.Manual), string(engine.Done), string(engine.TimedOut), string(engine.Failed), string(engine.Aborted)}
	if !slices.Equal(states, want) {
		t.Errorf("states %v, want %v", states, want)
	}
}

func TestReportReturnsCopy(t *testing.T) {
	t.Parallel()
	a := schema.Report()
	if len(a) == 0 || !json.Valid(a) {
		t.Fatal("the report schema is empty or not JSON")
	}
	a[0] = 'X'
	if b := schema.Report(); b[0] == 'X' {
		t.Fatal("Report() returned the embedded slice, not a copy")
	}
}

// A question as the engine opens and closes it validates against the
// question schema, and one that breaks it does not; the reasons and the ways
// a question closes are the package's own.
func TestQuestionSchema(t *testing.T) {
	t.Parallel()
	sch, err := compileSchema(questionSchemaURL)
	if err != nil {
		t.Fatal(err)
	}
	q := sampleReport().Questions[0]
	open := q
	open.Closed = nil
	validate := func(q any) error {
		data, err := json.Marshal(q)
		if err != nil {
			t.Fatal(err)
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		return sch.Validate(v)
	}
	for _, good := range []ask.Question{q, open} {
		if err := validate(good); err != nil {
			t.Errorf("%+v: %v", good, err)
		}
	}
	bad := []func(q *ask.Question){
		func(q *ask.Question) { q.ID = "1" },
		func(q *ask.Question) { q.Reason = "whim" },
		func(q *ask.Question) { q.ScreenHash = "xyz" },
		func(q *ask.Question) { q.Options = nil },
		func(q *ask.Question) { q.Closed = &ask.Closed{At: q.AskedAt, How: "forgotten"} },
	}
	for i, breakIt := range bad {
		b := q
		breakIt(&b)
		if validate(b) == nil {
			t.Errorf("broken question %d validates: %+v", i, b)
		}
	}
	var doc map[string]any
	if err := json.Unmarshal(schema.Question(), &doc); err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, r := range doc["properties"].(map[string]any)["reason"].(map[string]any)["enum"].([]any) {
		reasons = append(reasons, r.(string))
	}
	want := []string{string(ask.Prompt), string(ask.Danger), string(ask.Limit), string(ask.Choose), string(ask.Interrupt), string(ask.Idle), string(ask.Tool)}
	if !slices.Equal(reasons, want) {
		t.Errorf("reasons %v, want %v", reasons, want)
	}
}
