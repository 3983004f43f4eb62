package statedir_test

import (
	"testing"

	"github.com/clai-sh/clai/internal/statedir"
)

func TestDir(t *testing.T) {
	t.Parallel()
	cases := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_STATE_HOME": "/s", "HOME": "/h"}, "/s/clai"},
		{map[string]string{"HOME": "/h"}, "/h/.local/state/clai"},
	}
	for _, c := range cases {
		got, err := statedir.Dir(func(k string) string { return c.env[k] })
		if err != nil || got != c.want {
			t.Errorf("Dir(%v) = %q, %v; want %q", c.env, got, err, c.want)
		}
	}
}
