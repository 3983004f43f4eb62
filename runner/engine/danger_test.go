package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
)

// dangerRules parses danger rules, one per pattern given as YAML.
func dangerRules(t *testing.T, patterns ...string) []*playbooks.Danger {
	t.Helper()
	var y strings.Builder
	y.WriteString("version: 1\nname: d\nspawn: {command: [x]}\ndanger:\n")
	for i, p := range patterns {
		fmt.Fprintf(&y, "  - {name: d%d, match: %s}\n", i, p)
	}
	pb, findings := playbooks.Parse("test.yaml", []byte(y.String()))
	if pb == nil {
		t.Fatalf("playbook: %v", findings)
	}
	return pb.Danger
}

// fullScan is the scanner as it was before it learned where matches can lie:
// every read searches again from where each rule's last match ended.
type fullScan struct {
	limit int
	buf   []byte
	from  []int
	locs  locs
}

func (d *fullScan) scan(rules []*playbooks.Danger, text []byte) (hits []string) {
	if d.from == nil {
		d.from = make([]int, len(rules))
	}
	d.buf = append(d.buf, text...)
	for i, r := range rules {
		for d.from[i] < len(d.buf) {
			d.locs.reset()
			h, ok := d.locs.find(r.Match, d.buf[d.from[i]:])
			if !ok {
				break
			}
			start, end := d.from[i]+h.start, d.from[i]+h.end
			hits = append(hits, r.Name+":"+string(d.buf[start:end]))
			d.from[i] = max(end, start+1)
		}
	}
	if over := len(d.buf) - d.limit; over > 0 {
		d.buf = append(d.buf[:0], d.buf[over:]...)
		for i := range d.from {
			d.from[i] = max(0, d.from[i]-over)
		}
	}
	return hits
}

// TestDangerScanFindsWhatAFullSearchFinds feeds random text in random reads to
// the scanner and to one that searches all it keeps on every read: each read
// finds the same hits, in the same order.
func TestDangerScanFindsWhatAFullSearchFinds(t *testing.T) {
	t.Parallel()
	rules := dangerRules(t,
		`"rm -rf /"`, `{regex: 'x{2}y'}`, `{regex: 'a[^\n]*b'}`, `{regex: 'git\s+push\b[^\n]*\s(--force|-f)\b'}`,
		`{regex: '(^|\s)sudo\s'}`, `{regex: 'é.é'}`, `{regex: '\bab\b'}`, `{regex: 'ab\B'}`, `{regex: 'a\nb'}`,
		`{regex: 'cd$'}`, `{regex: '(?m)^ab'}`, `{regex: 'b.{0,3}c\b'}`, `{regex: '(?i)k[^\n]*s'}`)
	for _, c := range []struct {
		name     string
		alphabet []string
		limits   []int
	}{
		// Text the window cuts must not cut characters: a search from a
		// cut character reads a different one there, before and after.
		{"ascii, cut by the window", []string{"a", "b", "c", "d", "x", "y", "k", "s", " ", "\n", "rm -rf /", "git push ", "-f", "sudo "}, []int{8, 24, 64}},
		{"characters split across reads", []string{"a", "b", "é", "\u212a", "s", "\xff", "\xc3", " ", "\n", "x", "c", "d"}, []int{1 << 20}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(11, 12))
			total := 0
			for range 400 {
				limit := c.limits[r.IntN(len(c.limits))]
				d, ref := &dangerScanner{limit: limit}, &fullScan{limit: limit}
				var text strings.Builder
				for range r.IntN(200) {
					text.WriteString(c.alphabet[r.IntN(len(c.alphabet))])
				}
				rest := []byte(text.String())
				for len(rest) > 0 {
					n := 1 + r.IntN(min(len(rest), 20))
					read := rest[:n]
					rest = rest[n:]
					var got []string
					for _, h := range d.scan(rules, read) {
						got = append(got, h.rule.Name+":"+h.text)
					}
					want := ref.scan(rules, read)
					if !slices.Equal(got, want) {
						t.Fatalf("window %d, after %q: hits %q, a full search %q", limit, text.String()[:len(text.String())-len(rest)], got, want)
					}
					total += len(got)
				}
			}
			if total < 500 {
				t.Fatalf("only %d hits; the test proves little", total)
			}
		})
	}
}

// TestDangerScanSearchesOnlyWhatCanMatch counts the bytes the scanner searches
// over a long stream in small reads: about the stream for a rule whose matches
// are bounded or keep to a line, never the window at every read; and the
// window at most for one whose matches are not bounded.
func TestDangerScanSearchesOnlyWhatCanMatch(t *testing.T) {
	t.Parallel()
	const window, read = 8 << 10, 512
	line := strings.Repeat("git push origin main ", 3) + "\n"
	stream := []byte(strings.Repeat(line, (256<<10)/len(line)))
	for _, c := range []struct {
		pattern string
		most    int
	}{
		{`"rm -rf /"`, 2 * len(stream)},
		{`{regex: 'git[ \t]+push\b[^\n]*--force'}`, len(stream) + len(stream)/read*len(line)},
		{`{regex: '[^\n]*--force'}`, len(stream) + len(stream)/read*len(line)},
		{`{regex: 'git\s+push\b.*\s--force'}`, len(stream) + len(stream)/read*window},
	} {
		t.Run(c.pattern, func(t *testing.T) {
			t.Parallel()
			rules := dangerRules(t, c.pattern)
			d := &dangerScanner{limit: window}
			for off := 0; off < len(stream); off += read {
				d.scan(rules, stream[off:min(off+read, len(stream))])
			}
			if d.searched > c.most {
				t.Fatalf("searched %d bytes of a %d-byte stream, more than %d", d.searched, len(stream), c.most)
			}
		})
	}
}
