package playbooks

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/clai-sh/clai/internal/lazyre"
)

// durationSyntax is the duration grammar of the schema: Go durations without sign.
var durationSyntax = &lazyre.Regexp{Expr: `^(0|([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`}

// ParseDuration parses a playbook duration such as 300ms, 1.5s or 1h30m.
func ParseDuration(s string) (time.Duration, error) {
	if !durationSyntax.Get().MatchString(s) {
		return 0, fmt.Errorf("%q is not a duration", s)
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration: %w", s, err)
	}
	return d, nil
}

// duration decodes a duration: a string such as 300ms, or the integer 0.
func (d *decoder) duration(n ast.Node, what string) (time.Duration, bool) {
	switch v := d.resolve(n).(type) {
	case *ast.IntegerNode:
		if intValue(v) == 0 {
			return 0, true
		}
		d.errorAt(v, "duration", fmt.Sprintf(`add a unit: "%ss" or "%sms"`, v.String(), v.String()), "%s: %s has no unit", what, v.String())
		return 0, false
	case *ast.StringNode:
		dur, err := ParseDuration(strings.TrimSpace(v.Value))
		if err != nil {
			d.errorAt(v, "duration", "write a Go duration such as 300ms, 1.5s, 2m or 1h30m", "%s: %s", what, err.Error())
			return 0, false
		}
		return dur, true
	}
	d.typeError(d.resolve(n), what, "a duration such as 300ms")
	return 0, false
}

var sizeSyntax = &lazyre.Regexp{Expr: `^([0-9]+(?:\.[0-9]+)?)\s*(B|KB|KiB|MB|MiB|GB|GiB|k|K|M|G)?$`}

var sizeUnits = map[string]float64{
	"": 1, "B": 1,
	"KB": 1e3, "MB": 1e6, "GB": 1e9,
	"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30,
	"k": 1 << 10, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30,
}

// ParseSize parses a byte size such as 512, 8KiB or 1MiB.
func ParseSize(s string) (int64, error) {
	m := sizeSyntax.Get().FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, fmt.Errorf("%q is not a size", s)
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size: %w", s, err)
	}
	return int64(f * sizeUnits[m[2]]), nil
}

// size decodes a size: an integer number of bytes or a string with a unit.
func (d *decoder) size(n ast.Node, what string) (int64, bool) {
	switch v := d.resolve(n).(type) {
	case *ast.IntegerNode:
		i := intValue(v)
		if i < 1 {
			d.errorAt(v, "size", "write a positive number of bytes, or 8KiB", "%s must be at least 1 byte", what)
			return 0, false
		}
		return i, true
	case *ast.StringNode:
		sz, err := ParseSize(v.Value)
		if err != nil {
			d.errorAt(v, "size", "write a size such as 512, 8KiB or 1MiB", "%s: %s", what, err.Error())
			return 0, false
		}
		return sz, true
	}
	d.typeError(d.resolve(n), what, "a size such as 8KiB")
	return 0, false
}
