package engine

import (
	"github.com/clai-sh/clai/playbooks/pattern"
)

// streamView is the view of stream matching: the window, the stripped output
// not yet answered, at most settings.window bytes. What an answer used up
// leaves the window, so everything the window holds is fresh.
type streamView struct {
	limit int
	// window is the stripped output not yet consumed, in backing.
	window  []byte
	backing []byte
	// aside is how many bytes at the end of the window are rows drawn
	// elsewhere (see addElsewhere).
	aside int
	// recent is the latest output, answered or not, for the messages that
	// quote it.
	recent recentOutput
}

// add adds stripped text to the window, keeping only the newest bytes. The
// window is a slice of a backing array four times its size, so dropping old text is
// a reslice and the bytes are moved only when the array is used up.
func (v *streamView) add(text []byte) {
	v.aside = 0
	v.recent.add(text)
	if v.backing == nil {
		v.backing = make([]byte, 0, 4*v.limit)
		v.window = v.backing
	}
	if len(text) >= v.limit {
		v.window = append(v.backing[:0], text[len(text)-v.limit:]...)
		return
	}
	if over := len(v.window) + len(text) - v.limit; over > 0 {
		v.window = v.window[over:]
	}
	if cap(v.window)-len(v.window) < len(text) {
		n := copy(v.backing[:cap(v.backing)], v.window)
		v.window = v.backing[:n]
	}
	v.window = append(v.window, text...)
}

// addElsewhere adds rows drawn again elsewhere than where the program waits
// (a clock, a spinner) in place of those the last such output added, if
// they still end the window: the window keeps one version of a clock, not
// its every tick, which would push the prompt out of it.
func (v *streamView) addElsewhere(text []byte) {
	v.window = v.window[:len(v.window)-min(v.aside, len(v.window))]
	v.add(text)
	v.aside = min(len(text), len(v.window))
}

// promptText is the window less the rows drawn elsewhere that end it.
func (v *streamView) promptText() []byte { return v.window[:len(v.window)-v.aside] }

// text returns the window.
func (v *streamView) text() []byte { return v.window }

// find returns the leftmost match: the window holds only what came after the
// last answer.
func (v *streamView) find(l *locs, m *pattern.Matcher, text []byte) (hit, bool) {
	return l.find(m, text)
}

// consume drops the window up to end.
func (v *streamView) consume(end int) {
	v.window = v.window[end:]
	v.aside = min(v.aside, len(v.window))
}

// answered empties the window.
func (v *streamView) answered(bool) { v.window, v.aside = v.window[:0], 0 }

// denied empties the window.
func (v *streamView) denied() { v.window, v.aside = v.window[:0], 0 }

// tail returns the last few hundred bytes of output, answered or not.
func (v *streamView) tail(redact func(string) string) string {
	const n = 300
	return lastChars(redact(v.recent.text()), n)
}
