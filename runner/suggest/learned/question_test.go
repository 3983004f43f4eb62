package learned

import "testing"

func TestTemplate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ text, want string }{
		{"Continue? [y/n] ", "Continue? [y/n]"},
		{"Overwrite /tmp/a/b.txt? [y/N]", "Overwrite <path>? [y/N]"},
		{"Delete   3 files  in ~/work?", "Delete <num> files in <path>?"},
		{"Delete 12 files in ./src/?", "Delete <num> files in <path>?"},
		{"Check out 9f8e7d6a (main)?", "Check out <sha> (main)?"},
		{"Job 123e4567-e89b-12d3-a456-426614174000 failed, retry?", "Job <sha> failed, retry?"},
		{"Open https://example.com/x?y=1 now?", "Open <url> now?"},
		{`Use "v1.2"? (yes/no)`, `Use "v1.2"? (yes/no)`},
		{"Port [8080]:", "Port [<num>]:"},
		{"Project name: (demo) ", "Project name: (demo)"},
		{"Really? [Y/n/a]", "Really? [Y/n/a]"},
		{"deadbeef or cafe?", "deadbeef or cafe?"},
		{"Overwrite notes.md? [y/N]", "Overwrite <path>? [y/N]"},
		{"Retry 0x1F times? (y/n)", "Retry <num> times? (y/n)"},
		{"", ""},
		{"(. ... ?.", "(. ... ?."},
	} {
		if got := Template(tc.text); got != tc.want {
			t.Errorf("Template(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}
