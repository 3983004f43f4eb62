package secretfilter

import (
	"math/rand/v2"
	"testing"
)

// TestRandomTokensAreFoundAndIdentifiersAreNot measures the high-entropy
// rule alone: the share of random tokens it finds, by alphabet and length,
// must be at least 98% (the docs give the figures), and identifiers made of
// words must not be taken.
func TestRandomTokensAreFoundAndIdentifiersAreNot(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(24, 2))
	for _, a := range []struct{ name, chars string }{
		{"base62", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"},
		{"lower+digits", "abcdefghijklmnopqrstuvwxyz0123456789"},
		{"upper+digits", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"},
	} {
		for _, n := range []int{20, 24, 32, 40, 64} {
			const samples = 2000
			found := 0
			for range samples {
				b := make([]byte, n)
				for i := range b {
					b[i] = a.chars[r.IntN(len(a.chars))]
				}
				if highEntropy(false, string(b)) {
					found++
				}
			}
			rate := float64(found) / samples
			t.Logf("%s, %d characters: %.2f%% found", a.name, n, 100*rate)
			if rate < 0.98 {
				t.Errorf("%s, %d characters: %.2f%% found, want 98%% at least", a.name, n, 100*rate)
			}
		}
	}
	for _, w := range []string{
		"TestRFC3339TimestampsParseCorrectlyWithZone2024", "TestGeneratedSecretsAreFoundInEveryPositionQuotingAndShell",
		"UserProfileSettingsPanel2", "HTTPServer2XXResponseHandler", "libavcodec58extra-dev", "AGPLv3LicenseHeaderCheck",
		"kubernetesdeploymentcontroller", "2b6f0d3e-8c1a-4f5b-9e7d-0a3c5b8d1f2e", "/home/ada/src/github.com/clai-sh/clai/runner",
		"2e2f659e5d1b4a7c8f0e3d6b9a1c4e7f2a5d8b0c", "sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31",
		"20240601123045123456789",
	} {
		if highEntropy(false, w) {
			t.Errorf("%q taken for a random token", w)
		}
	}
}
