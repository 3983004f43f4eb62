package learned

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/pattern"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/suggest/normalize"
)

// ProposeLimit is the limit: of a proposed rule: a question the program
// asks more often in one run goes to people from then on.
const ProposeLimit = 20

// Proposal is a rule learned from the answers people repeated, with a test
// that proves it, or why none is proposed for a question.
type Proposal struct {
	Repeated
	// Name and Regex are the rule's, and its action: Line, or Choose (a
	// menu's entry by its label). Skipped says why there is no rule.
	Name, Regex, Line, Choose string
	Skipped                   string
	// Output is what the rule's test feeds the engine, Sent what it
	// expects typed.
	Output, Sent string
}

// Propose turns the answers people repeated to pb's questions into rules:
// each question's most given answer, when its share is minShare or more. A
// question a danger rule of pb matches, a menu's entry where the playbook
// does not match the screen (choose needs it), or an answer that would read
// as a template, gets no rule but the reason.
func Propose(pb *playbooks.Playbook, repeated []Repeated, minShare float64) []Proposal {
	taken := map[string]bool{}
	for _, r := range pb.Rules {
		taken[r.Name] = true
	}
	for _, t := range pb.Tests {
		taken[t.Name] = true
	}
	var out []Proposal
	for _, r := range repeated {
		p := Proposal{Repeated: r}
		switch {
		case r.Share < minShare:
			p.Skipped = fmt.Sprintf("people disagree: %q is %.0f%% of the answers", r.Text, 100*r.Share)
		case r.Kind == KindOption && pb.Settings.Match != playbooks.MatchScreen:
			p.Skipped = fmt.Sprintf("%q is a menu's entry: a choose: rule needs settings.match: screen", r.Text)
		case r.Kind == KindOption && !slices.Contains(r.Options, r.Text):
			p.Skipped = fmt.Sprintf("%q is a menu's entry, and the menu's options were not kept", r.Text)
		case ask.CheckText(r.Text) != nil:
			p.Skipped = fmt.Sprintf("the answer %q cannot be typed as a text answer: %v", r.Text, ask.CheckText(r.Text))
		case strings.Contains(r.Text, "{{"):
			p.Skipped = fmt.Sprintf("the answer %q would read as a template", r.Text)
		case dangerMatches(pb, r.Example) != "":
			p.Skipped = fmt.Sprintf("danger rule %q matches the question: it stays with people", dangerMatches(pb, r.Example))
		}
		if p.Skipped == "" {
			p.Name = uniqueName(ruleName(r.Template), taken)
			p.Regex = templateRegex(r.Template)
			p.act()
		}
		out = append(out, p)
	}
	return out
}

// act sets the proposal's action and its test: a line typed after the
// question, or a menu's entry chosen from the numbered menu the test shows
// under it, which choose reaches by its number.
func (p *Proposal) act() {
	if p.Kind != KindOption {
		p.Line, p.Output, p.Sent = p.Text, p.Example+" ", p.Text+"\r"
		return
	}
	var menu strings.Builder
	menu.WriteString(p.Example + "\n")
	for i, label := range p.Options {
		fmt.Fprintf(&menu, "  %d. %s\n", i+1, label)
	}
	p.Choose, p.Output = p.Text, menu.String()
	p.Sent = fmt.Sprintf("%d\r", slices.Index(p.Options, p.Text)+1)
}

// dangerMatches returns the name of the first danger rule of pb that
// matches text, or "".
func dangerMatches(pb *playbooks.Playbook, text string) string {
	for _, d := range pb.Danger {
		if d.Match == nil {
			continue
		}
		for _, p := range d.Match.Patterns {
			if p.Kind != pattern.EOF && p.FindInto([]byte(text), nil) != nil {
				return d.Name
			}
		}
	}
	return ""
}

// slotRegex is what a slot of a template matches: a word.
var slotRegex = map[string]string{
	normalize.SlotPath: `\S+`, normalize.SlotNum: `\S+`, normalize.SlotSHA: `\S+`, normalize.SlotURL: `\S+`, normalize.SlotMsg: `.+?`,
}

// templateRegex returns a regex that matches the questions of template:
// its words as they are, its slots as any word, blanks as blanks.
func templateRegex(template string) string {
	words := strings.Fields(template)
	for i, w := range words {
		var b strings.Builder
		for w != "" {
			at, slot := firstSlot(w)
			if at < 0 {
				b.WriteString(regexp.QuoteMeta(w))
				break
			}
			b.WriteString(regexp.QuoteMeta(w[:at]))
			b.WriteString(slotRegex[slot])
			w = w[at+len(slot):]
		}
		words[i] = b.String()
	}
	return strings.Join(words, `\s+`)
}

// firstSlot returns where the first slot of word is and which, or -1.
func firstSlot(word string) (int, string) {
	at, found := -1, ""
	for slot := range slotRegex {
		if i := strings.Index(word, slot); i >= 0 && (at < 0 || i < at) {
			at, found = i, slot
		}
	}
	return at, found
}

// ruleName names the rule of a template: "learned-" and its first words, in
// lower case, slots left out.
func ruleName(template string) string {
	var words []string
	for _, w := range strings.Fields(template) {
		if at, _ := firstSlot(w); at >= 0 {
			continue
		}
		w = strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return unicode.ToLower(r)
			}
			return -1
		}, w)
		if w != "" {
			words = append(words, w)
		}
		if len(words) == 5 {
			break
		}
	}
	if len(words) == 0 {
		words = []string{"answer"}
	}
	return "learned-" + strings.Join(words, "-")
}

// uniqueName returns name, or name-2, name-3 … the first not taken, and
// takes it.
func uniqueName(name string, taken map[string]bool) string {
	n := name
	for i := 2; taken[n]; i++ {
		n = name + "-" + strconv.Itoa(i)
	}
	taken[n] = true
	return n
}

// WriteYAML writes the proposals as a playbook's rules: and tests:, to be
// pasted into it: each rule with its example and a test that proves it
// answers; what is not proposed is said in comments.
func WriteYAML(b *strings.Builder, playbook string, props []Proposal) {
	fmt.Fprintf(b, "# Rules learned from people's answers to the playbook %q (clai suggest rules).\n", playbook)
	var rules []Proposal
	for _, p := range props {
		if p.Skipped != "" {
			fmt.Fprintf(b, "# Not proposed for %q: %s.\n", p.Example, p.Skipped)
			continue
		}
		rules = append(rules, p)
	}
	if len(rules) == 0 {
		b.WriteString("# No answer was repeated enough to make a rule of.\n")
		return
	}
	b.WriteString("rules:\n")
	for _, p := range rules {
		fmt.Fprintf(b, "  - name: %s\n", p.Name)
		fmt.Fprintf(b, "    # people answered %s %d times, %.0f%% of the answers to this question\n", yamlQuote(p.Text), p.Count, 100*p.Share)
		fmt.Fprintf(b, "    match: {regex: '%s'}\n", strings.ReplaceAll(p.Regex, "'", "''"))
		if p.Choose != "" {
			fmt.Fprintf(b, "    choose: %s\n", yamlQuote(p.Choose))
		} else {
			fmt.Fprintf(b, "    line: %s\n", yamlQuote(p.Line))
		}
		fmt.Fprintf(b, "    limit: %d\n", ProposeLimit)
		fmt.Fprintf(b, "    examples: [%s]\n", yamlQuote(p.Example))
	}
	b.WriteString("tests:\n")
	for _, p := range rules {
		fmt.Fprintf(b, "  - name: %s answers\n", p.Name)
		fmt.Fprintf(b, "    output: %s\n", yamlQuote(p.Output))
		fmt.Fprintf(b, "    expect: {sent: %s, fired: [%s]}\n", yamlQuote(p.Sent), p.Name)
	}
}

// yamlQuote quotes s as a YAML double-quoted scalar: the escapes Go writes
// for a valid UTF-8 text (\", \\, \r, \t, \uNNNN …) are YAML's.
func yamlQuote(s string) string { return strconv.Quote(strings.ToValidUTF8(s, "\uFFFD")) }
