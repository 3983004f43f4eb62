package schema_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/clai-sh/clai/schema"
)

const schemaURL = "https://raw.githubusercontent.com/clai-sh/clai/main/schema/playbook.schema.json"

// compiled compiles the embedded schema once for all tests.
var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema.Playbook()))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
})

func compile(t *testing.T) *jsonschema.Schema {
	t.Helper()
	sch, err := compiled()
	if err != nil {
		t.Fatalf("compile schema: %v", err)
	}
	return sch
}

// validate reads the YAML playbook at path and validates it against the
// embedded schema. Problems reading or parsing the file fail the test; the
// returned error is the schema validation error, if any.
func validate(t *testing.T, path string) error {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Not yaml.YAMLToJSON: goccy/go-yaml v1.19.2 writes control characters
	// such as "\x1b" unescaped, which is not JSON. Decode to plain Go values
	// (maps with string keys, numbers, strings, lists), re-encode with
	// encoding/json and let the validator decode numbers as json.Number.
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: not valid YAML: %v", path, err)
	}
	js, err := json.Marshal(doc)
	if err != nil {
		t.Fatalf("%s: YAML has no JSON equivalent: %v", path, err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return compile(t).Validate(v)
}

func glob(t *testing.T, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestSchemaCompiles(t *testing.T) {
	t.Parallel()
	compile(t)

	var doc map[string]any
	if err := json.Unmarshal(schema.Playbook(), &doc); err != nil {
		t.Fatal(err)
	}
	if got, want := doc["$schema"], "https://json-schema.org/draft/2020-12/schema"; got != want {
		t.Errorf("$schema = %v, want %v", got, want)
	}
	if doc["$id"] != schemaURL {
		t.Errorf("$id = %v, want %v", doc["$id"], schemaURL)
	}
}

func TestPlaybookReturnsCopy(t *testing.T) {
	t.Parallel()
	a := schema.Playbook()
	if len(a) == 0 {
		t.Fatal("empty schema")
	}
	a[0] = 'X'
	if b := schema.Playbook(); b[0] == 'X' {
		t.Fatal("Playbook() returned the embedded slice, not a copy")
	}
}

// TestSchemaHygiene checks the schema's own conventions: every object schema
// that lists properties is closed, every property has a description, and
// every $defs entry is used.
func TestSchemaHygiene(t *testing.T) {
	t.Parallel()
	var doc map[string]any
	if err := json.Unmarshal(schema.Playbook(), &doc); err != nil {
		t.Fatal(err)
	}
	raw := string(schema.Playbook())
	defs, _ := doc["$defs"].(map[string]any)
	for name := range defs {
		if !strings.Contains(raw, `"#/$defs/`+name+`"`) {
			t.Errorf("$defs/%s is never referenced", name)
		}
	}
	var walk func(ptr string, v any)
	walk = func(ptr string, v any) {
		switch v := v.(type) {
		case []any:
			for i, e := range v {
				walk(ptr+"/"+strconv.Itoa(i), e)
			}
		case map[string]any:
			if props, ok := v["properties"].(map[string]any); ok && v["type"] == "object" {
				if v["additionalProperties"] != false {
					t.Errorf("%s: object schema with properties lacks additionalProperties: false", ptr)
				}
				for name, p := range props {
					if m, ok := p.(map[string]any); !ok || m["description"] == nil {
						t.Errorf("%s/properties/%s: no description", ptr, name)
					}
				}
			}
			for k, e := range v {
				walk(ptr+"/"+k, e)
			}
		}
	}
	walk("", doc)
}

func TestGoodPlaybooks(t *testing.T) {
	t.Parallel()
	fixtures := glob(t, "../testdata/schema/good-*.yaml")
	if len(fixtures) < 6 {
		t.Fatalf("found %d good fixtures, want at least 6", len(fixtures))
	}
	examples := append(glob(t, "../examples/*.yaml"), glob(t, "../examples/*.yml")...)
	if len(examples) == 0 {
		t.Log("no examples/*.yaml yet; testing the good fixtures only")
	}
	for _, path := range append(fixtures, examples...) {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			if err := validate(t, path); err != nil {
				t.Errorf("%s should be valid:\n%v", path, err)
			}
		})
	}
}

// TestBadPlaybooks checks that every bad fixture is rejected, and rejected for
// the reason it was written for. Each starts with two comment lines:
//
//	# how the playbook is broken
//	# at: /json/pointer/of/the/error
//
// The deepest errors must be exactly at that pointer, and no error may lie
// off the path from the pointer's top-level key down to it, so that a fixture
// broken in a second, accidental way fails the test.
func TestBadPlaybooks(t *testing.T) {
	t.Parallel()
	fixtures := glob(t, "../testdata/schema/bad-*.yaml")
	if len(fixtures) < 15 {
		t.Fatalf("found %d bad fixtures, want at least 15", len(fixtures))
	}
	for _, path := range fixtures {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			want := header(t, path)
			err := validate(t, path)
			if err == nil {
				t.Fatalf("%s should be invalid", path)
			}
			t.Log(err)
			var verr *jsonschema.ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("%s: not a validation error: %v", path, err)
			}
			var leaves [][]string
			collectLeaves(verr, &leaves)
			deepest := 0
			var stray []string
			for _, loc := range leaves {
				deepest = max(deepest, len(loc))
				onPath := len(loc) <= len(want) && slices.Equal(loc, want[:len(loc)])
				if !onPath || (len(want) > 0 && len(loc) == 0) {
					stray = append(stray, pointer(loc))
				}
			}
			if len(stray) > 0 || deepest != len(want) {
				t.Errorf("%s: want errors on the path to %q, deepest there; stray errors at %q:\n%v",
					path, pointer(want), stray, err)
			}
		})
	}
}

// header checks the two comment lines of a bad fixture and returns the
// instance location of the expected error.
func header(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var lines []string
	for len(lines) < 2 && sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) < 2 {
		t.Fatalf("%s: want two comment lines (reason, then '# at: POINTER')", path)
	}
	if reason := strings.TrimPrefix(lines[0], "# "); reason == lines[0] || strings.TrimSpace(reason) == "" {
		t.Fatalf("%s: first line must be a comment saying how the playbook is broken", path)
	}
	ptr, ok := strings.CutPrefix(lines[1], "# at: ")
	if !ok && lines[1] != "# at:" {
		t.Fatalf("%s: second line must be '# at: POINTER', got %q", path, lines[1])
	}
	ptr = strings.TrimSpace(ptr)
	if ptr == "" {
		return nil
	}
	if !strings.HasPrefix(ptr, "/") {
		t.Fatalf("%s: pointer %q must start with /", path, ptr)
	}
	return strings.Split(ptr[1:], "/")
}

func collectLeaves(e *jsonschema.ValidationError, out *[][]string) {
	if len(e.Causes) == 0 {
		*out = append(*out, e.InstanceLocation)
		return
	}
	for _, c := range e.Causes {
		collectLeaves(c, out)
	}
}

func pointer(loc []string) string {
	if len(loc) == 0 {
		return ""
	}
	return "/" + strings.Join(loc, "/")
}
