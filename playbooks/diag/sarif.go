package diag

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
)

// SARIF 2.1.0 documents, as much of the format as clai fills in.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool    sarifTool     `json:"tool"`
		Results []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri,omitempty"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string        `json:"id"`
		ShortDescription     sarifMessage  `json:"shortDescription"`
		DefaultConfiguration sarifRuleConf `json:"defaultConfiguration"`
	}
	sarifRuleConf struct {
		Level string `json:"level"`
	}
	sarifMessage struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID    string          `json:"ruleId"`
		RuleIndex int             `json:"ruleIndex"`
		Level     string          `json:"level"`
		Message   sarifMessage    `json:"message"`
		Locations []sarifLocation `json:"locations"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical `json:"physicalLocation"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           sarifRegion   `json:"region"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn"`
	}
)

// WriteSARIF prints the findings as a SARIF 2.1.0 log whose driver describes every
// rule in the catalogue.
func WriteSARIF(w io.Writer, l List, tool ToolInfo) error {
	driver := sarifDriver{Name: tool.Name, Version: tool.Version, InformationURI: tool.URI}
	index := map[string]int{}
	for i, r := range rules {
		index[r.ID] = i
		driver.Rules = append(driver.Rules, sarifRule{
			ID:                   r.ID,
			ShortDescription:     sarifMessage{Text: r.Summary},
			DefaultConfiguration: sarifRuleConf{Level: sarifLevel(r.Severity)},
		})
	}
	run := sarifRun{Tool: sarifTool{Driver: driver}, Results: []sarifResult{}}
	for _, d := range l {
		text := d.Message
		if d.Hint != "" {
			text += " Hint: " + d.Hint
		}
		run.Results = append(run.Results, sarifResult{
			RuleID:    d.Rule,
			RuleIndex: index[d.Rule],
			Level:     sarifLevel(d.Severity),
			Message:   sarifMessage{Text: text},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
				ArtifactLocation: sarifArtifact{URI: sarifURI(d.File)},
				Region:           sarifRegion{StartLine: max(d.Line, 1), StartColumn: max(d.Col, 1)},
			}}},
		})
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{run},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

func sarifLevel(s Severity) string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// sarifURI turns a file path into a relative URI reference, as code-scanning tools want.
func sarifURI(path string) string {
	p := filepath.ToSlash(path)
	return strings.ReplaceAll(strings.ReplaceAll(p, "%", "%25"), " ", "%20")
}
