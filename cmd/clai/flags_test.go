package main

import (
	"strings"
	"testing"
)

func TestHoistFlags(t *testing.T) {
	t.Parallel()
	cmds := newApp(nil, nil, nil, "").Commands
	cases := map[string]string{
		"clai run pb.yaml --dry-run":                       "clai run --dry-run pb.yaml",
		"clai run pb.yaml --var a=1 --var b=2":             "clai run --var a=1 --var b=2 pb.yaml",
		"clai run pb.yaml --report=r.md -q":                "clai run --report=r.md -q pb.yaml",
		"clai run --log x pb.yaml -- --dry-run":            "clai run --log x pb.yaml -- --dry-run",
		"clai run pb.yaml --model sonnet":                  "clai run pb.yaml --model sonnet",
		"clai run pb.yaml one --quiet -- two":              "clai run --quiet pb.yaml one -- two",
		"clai lint a.yaml --format json b.yaml":            "clai lint --format json a.yaml b.yaml",
		"clai record --out s.cast -- sh -c 'echo --quiet'": "clai record --out s.cast -- sh -c 'echo --quiet'",
		"clai answer s --wait --choose N":                  "clai answer --wait --choose N s",
		"clai answer s --wait=2m yes":                      "clai answer --wait=2m s yes",
	}
	for in, want := range cases {
		if got := strings.Join(hoistFlags(strings.Fields(in), cmds), " "); got != want {
			t.Errorf("%s\n got %s\nwant %s", in, got, want)
		}
	}
}
