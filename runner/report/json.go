package report

import (
	"encoding/json"
	"io"
)

// This file renders a Report as JSON: the versioned, machine-readable format
// (schema/report.schema.json), whose fields are only ever added.

// writeJSON writes the report as indented JSON, one document and a newline.
func (rep *Report) writeJSON(w io.Writer) error {
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}
