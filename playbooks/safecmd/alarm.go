package safecmd

import (
	"regexp"
	"sync"
)

// alarms are shapes of text the presets' danger rules refuse wherever they
// show (rm -r /, sudo, curl … | sh, git push --force, chmod 777). A line that
// has one is left to a person even where it is only text (echo sudo, grep -r
// 'git push'), so that an approval never meets a danger rule: each is a little
// wider than the danger rule it stands for.
var alarms = sync.OnceValue(func() []alarmShape {
	return []alarmShape{
		{regexp.MustCompile(`rm\s+-`), "mentions rm -…"},
		{regexp.MustCompile(`(^|[^A-Za-z0-9_])(sudo|doas)([^A-Za-z0-9_]|$)`), "mentions sudo"},
		{regexp.MustCompile(`(curl|wget)\s`), "mentions curl or wget"},
		{regexp.MustCompile(`git\s+push`), "mentions git push"},
		{regexp.MustCompile(`chmod\s`), "mentions chmod"},
	}
})

// alarmShape is one of the alarms: the text it looks for, and why.
type alarmShape struct {
	re  *regexp.Regexp
	why string
}

// alarm returns why line looks like a command a danger rule refuses, or "".
func alarm(line string) string {
	for _, a := range alarms() {
		if a.re.MatchString(line) {
			return a.why + ", which the danger rules watch for"
		}
	}
	return ""
}
