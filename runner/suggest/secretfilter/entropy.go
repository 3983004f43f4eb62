package secretfilter

import (
	"math"
	"strings"

	"github.com/clai-sh/clai/internal/lazyre"
)

// Thresholds of highEntropy.
const (
	// minAlnum is the shortest piece of letters and digits looked at;
	// minHex the shortest piece of hexadecimal digits.
	minAlnum = 20
	minHex   = 32
	// alnumBits is the least Shannon entropy, in bits a character, of an
	// alphanumeric piece, and hexBits of a hexadecimal one (at most 4).
	alnumBits = 3.5
	hexBits   = 3.0
	// A piece with minPairs pairs of letters or more, at least one pair for
	// two of its characters, maxEnglish of them or more common in English, is
	// made of words.
	minPairs   = 8
	maxEnglish = 0.7
	// gitObjectHex is the length of a SHA-1 object name.
	gitObjectHex = 40
)

// hashAware are the programs whose hexadecimal words are object names or
// checksums, never secrets: git's commits, containers' and images' ids.
var hashAware = map[string]bool{
	"git": true, "tig": true, "gh": true, "docker": true, "podman": true, "nerdctl": true, "crictl": true, "ctr": true, "kubectl": true,
	"sha1sum": true, "sha256sum": true, "sha512sum": true, "md5sum": true, "b2sum": true, "shasum": true, "cosign": true, "skopeo": true,
}

// digestPrefix is a digest's algorithm before its hexadecimal digits.
var digestPrefix = &lazyre.Regexp{Expr: `(?i)(?:sha1|sha256|sha384|sha512|md5|blake2b?):$`}

// highEntropy tells whether the word w holds a long
// random-looking piece. w is cut into pieces at every character that is no
// letter, digit or +, so that paths, UUIDs, versions, host names and
// pod-name-7d9f8c6b5-x2k4p stay short. A piece is random-looking when it is
//
//   - hexadecimal, at least 32 characters of at least 3 bits each, and
//     neither a SHA-1 object name (40), nor after a digest's algorithm
//     (sha256:…), nor in a line that runs a program whose words are hashes
//     (hashy: git, docker, kubectl, sha256sum…);
//   - else at least 20 letters and digits, both, with at least 3.7 bits a
//     character and the kind of character (lower, upper, digit) changing at
//     30% of them at least, which CamelCaseNames123 do not.
//
// A short or all-letter password is not found here but by where it stands
// (a password flag, a secret-named assignment).
func highEntropy(hashy bool, w string) bool {
	start := -1
	for i := 0; i <= len(w); i++ {
		if i < len(w) && isPieceChar(w[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && randomPiece(hashy, w[:start], w[start:i]) {
			return true
		}
		start = -1
	}
	return false
}

func isPieceChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+'
}

// randomPiece tells whether piece, after before in its word, looks random.
func randomPiece(hashy bool, before, piece string) bool {
	if isHex(piece) {
		if len(piece) < minHex || len(piece) == gitObjectHex || hashy || digestPrefix.Get().MatchString(before) {
			return false
		}
		return entropy(piece) >= hexBits
	}
	if len(piece) < minAlnum || strings.Trim(piece, "0123456789+") == "" {
		return false
	}
	if pairs, common := englishPairs(piece); pairs >= minPairs && 2*pairs >= len(piece) && float64(common) >= maxEnglish*float64(pairs) {
		// Words: TestParseRFC3339Timestamps, kubernetesdeploymentcontroller.
		return false
	}
	return entropy(piece) >= min(alnumBits, math.Log2(float64(len(piece)))-1.3)
}

// commonPairs are the letter pairs most frequent in English words, which
// make most of the pairs of identifiers and few of random text's.
const commonPairs = "th he in er an re on at en nd ti es or te of ed is it al ar st to nt ng se ha as ou io le ve co me de hi ri ro ic ne ea ra ce li ch ll be ma si om ur ca el ta la ns di fo ho pe ec pr no ct us ac ot il tr ly nc et ut ss so rs un lo wa ge ie wh ee wi em ad ol rt po we na ul ni ts mo ow pa im mi ai sh ir su id os iv ia am fi ci vi pl ig tu ev ld ry mp fe bl ab gh ty op wo sa ay ex ke fr oo av ag if ap gr od bo sp rd do uc bu ei ov by rm ep tt oc fa ef cu rn sc gi da yo cr cl du ga qu ue ff ba ey ls va um pp ua up lu go ht ru ug ds lt pi rc rr eg au ck ew mu br bi pt ak pu ui rg ib tl ny ki rk ys ob mm fu ph og ms ye ud mb ip ub oi rl gu dr hr cc ft wn nu af hu nn eo vo rv nf xp gn sm fl iz ok nl my gl aw sy oa ps rv"

// commonPair tells, by letters from a, whether a pair is in commonPairs.
var commonPair = func() (t [26][26]bool) {
	for _, p := range strings.Fields(commonPairs) {
		t[p[0]-'a'][p[1]-'a'] = true
	}
	return t
}()

// englishPairs counts the pairs of letters in a row in s as words make
// them: lower-case, or an upper-case letter then a lower-case one (a lower-case
// letter then an upper-case one, or two upper-case ones, are a word's end or
// an acronym); and of those the common ones.
func englishPairs(s string) (pairs, common int) {
	isLower := func(c byte) bool { return c >= 'a' && c <= 'z' }
	isUpper := func(c byte) bool { return c >= 'A' && c <= 'Z' }
	for i := 1; i < len(s); i++ {
		a, b := s[i-1], s[i]
		if !isLower(b) || !isLower(a) && !isUpper(a) {
			continue
		}
		pairs++
		if commonPair[(a|0x20)-'a'][b-'a'] {
			common++
		}
	}
	return pairs, common
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// entropy is the Shannon entropy of s's bytes, in bits a byte.
func entropy(s string) float64 {
	var n [256]int
	for i := 0; i < len(s); i++ {
		n[s[i]]++
	}
	h := 0.0
	for _, c := range n {
		if c > 0 {
			p := float64(c) / float64(len(s))
			h -= p * math.Log2(p)
		}
	}
	return h
}
