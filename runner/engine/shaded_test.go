package engine

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/runner/screen"
)

// TestShadedMenus reads menus marked by their shade alone from small screens
// drawn the ways dialog and whiptail draw them.
func TestShadedMenus(t *testing.T) {
	t.Parallel()
	const (
		rev, norm  = "\x1b[7m", "\x1b[27m"
		grey, blue = "\x1b[0;30;47m", "\x1b[0;37;44m"
	)
	tests := []struct {
		name   string
		screen string
		want   []string // per menu: its options, the current one in [brackets]
	}{
		{
			name:   "two options in reverse video, the longer one current",
			screen: "\x1b[2;3H" + rev + "1 A very long label" + norm + "\x1b[3;3H2 B",
			want:   []string{"[1 A very long label] | 2 B (alt: A very long label | B)"},
		},
		{
			name: "dialog without colours: a reverse panel, the tags' first letters and the current item set off",
			screen: rev + "\x1b[1;1H                         \x1b[2;1H  " + norm + "a" + rev + "pple   " + norm + "red" + rev + "     " +
				"\x1b[3;1H  " + norm + "b" + rev + "anana  yellow   \x1b[4;1H  " + norm + "c" + rev + "herry  small    \x1b[5;1H                         ",
			want: []string{"[apple   red] | banana  yellow | cherry  small (alt: red | yellow | small)"},
		},
		{
			name:   "every line shaded alike is no menu",
			screen: grey + "\x1b[1;1H          \x1b[2;1H one      \x1b[3;1H two      \x1b[4;1H          ",
		},
		{
			name:   "two lines set off are no menu",
			screen: "\x1b[1;1H" + rev + "one" + norm + "\x1b[2;1H" + rev + "two" + norm + "\x1b[3;1Hthree",
		},
		{
			name:   "a single line set off is no menu",
			screen: "\x1b[1;1H" + rev + " GNU nano 7.2 " + norm + "\x1b[3;1Htext",
		},
		{
			name: "whiptail checklist: the list on its own colour, the current box's inside red",
			screen: grey + "\x1b[1;1H                          \x1b[2;1H  " + blue + "[ ] docs  Documentation \x1b[3;1H" + grey + "  " + blue + "[\x1b[41m*" + blue + "] tests Test suite    \x1b[4;1H" + grey + "  " + blue + "[ ] ex    Examples      " +
				"\x1b[5;1H" + grey + "  " + blue + "                        ",
			want: []string{"[ docs  Documentation | [tests Test suite✓] | ex    Examples ] (alt: Documentation | Test suite | Examples)"},
		},
		{
			name:   "buttons, the current one lit",
			screen: grey + "\x1b[1;1H                    \x1b[2;1H  <Ok>  " + blue + "<Cancel>" + grey + "    \x1b[3;1H                    ",
			want:   []string{"buttons: Ok | [Cancel]"},
		},
		{
			name:   "buttons none of which is lit",
			screen: grey + "\x1b[1;1H                    \x1b[2;1H  <Ok>  <Cancel>    \x1b[3;1H                    ",
			want:   []string{"buttons: Ok | Cancel"},
		},
		{
			name:   "buttons all lit are unclear",
			screen: rev + "\x1b[1;1H                    \x1b[2;1H  " + norm + "<Yes>" + rev + "  " + norm + "< No >" + rev + "     \x1b[3;1H                    ",
			want:   []string{"buttons: Yes | No (unclear)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			scr := screen.New(8, 40)
			scr.Write([]byte(tt.screen))
			var got []string
			for _, m := range shadedMenus([]byte(scr.TextAtCursor()), scr) {
				got = append(got, describeForTest(m))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("menus:\n%s\nwant:\n%s\nscreen:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"), scr.Text())
			}
		})
	}
}

// describeForTest writes a menu as TestShadedMenus expects it.
func describeForTest(m menu) string {
	var labels, alts []string
	for _, o := range m.options {
		l := o.label
		if o.ticked {
			l += "✓"
		}
		if o.marked {
			l = "[" + l + "]"
		}
		labels = append(labels, l)
		if o.alt != "" && !m.buttons {
			alts = append(alts, o.alt)
		}
	}
	s := strings.Join(labels, " | ")
	switch {
	case m.buttons:
		s = "buttons: " + s
	case m.ticks != 0:
		s = string(m.ticks) + " " + s + " " + map[byte]string{'[': "]", '(': ")"}[m.ticks]
	}
	if len(alts) > 0 {
		s += " (alt: " + strings.Join(alts, " | ") + ")"
	}
	if m.unclear {
		s += " (unclear)"
	}
	return s
}
