package schema_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/diag"
)

// schemaVerdict validates a file against the schema; any problem (YAML included) is
// a rejection.
func schemaVerdict(t *testing.T, data []byte) error {
	t.Helper()
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("yaml: %w", err)
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("json: %w", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		return err
	}
	return compile(t).Validate(v)
}

// TestSchemaAndLoaderAgree is the proof that the schema and the loader are one format:
// for every playbook the project holds (examples, presets, schema and lint fixtures),
// the schema rejects it exactly when the loader reports a structural finding.
func TestSchemaAndLoaderAgree(t *testing.T) {
	t.Parallel()
	var files []string
	for _, pattern := range []string{
		"../examples/*.yaml", "../playbooks/presets/*.yaml",
		"../testdata/schema/*.yaml", "../testdata/lint/*.yaml", "../testdata/replay/*.yaml",
	} {
		files = append(files, glob(t, pattern)...)
	}
	if len(files) < 20 {
		t.Fatalf("found only %d playbooks to compare", len(files))
	}
	for _, path := range files {
		t.Run(strings.TrimPrefix(filepath.ToSlash(path), "../"), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			schemaErr := schemaVerdict(t, data)
			_, findings := playbooks.Parse(path, data)
			var structural []string
			for _, f := range findings {
				if diag.IsStructural(f.Rule) {
					structural = append(structural, f.String())
				}
			}
			switch {
			case schemaErr != nil && len(structural) == 0:
				t.Errorf("the schema rejects it but the loader finds nothing structural:\n%v\nloader: %v", schemaErr, findings)
			case schemaErr == nil && len(structural) > 0:
				t.Errorf("the loader rejects it but the schema accepts it:\n%s", strings.Join(structural, "\n"))
			}
		})
	}
}
