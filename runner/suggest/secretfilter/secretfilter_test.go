package secretfilter_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/clai-sh/clai/runner/suggest/secretfilter"
)

const (
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower  = "abcdefghijklmnopqrstuvwxyz"
	digits = "0123456789"
	alnum  = upper + lower + digits
	b64url = alnum + "-_"
	hexa   = "0123456789abcdef"
)

func random(r *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// tokenFormats generate a random token of each known format.
var tokenFormats = map[string]func(r *rand.Rand) string{
	"aws-akia":   func(r *rand.Rand) string { return "AKIA" + random(r, upper+digits, 16) },
	"aws-asia":   func(r *rand.Rand) string { return "ASIA" + random(r, upper+digits, 16) },
	"github-ghp": func(r *rand.Rand) string { return "ghp_" + random(r, alnum, 36) },
	"github-gho": func(r *rand.Rand) string { return "gho_" + random(r, alnum, 36) },
	"github-ghu": func(r *rand.Rand) string { return "ghu_" + random(r, alnum, 36) },
	"github-ghs": func(r *rand.Rand) string { return "ghs_" + random(r, alnum, 36) },
	"github-ghr": func(r *rand.Rand) string { return "ghr_" + random(r, alnum, 36) },
	"github-pat": func(r *rand.Rand) string { return "github_pat_" + random(r, alnum, 22) + "_" + random(r, alnum, 59) },
	"gitlab":     func(r *rand.Rand) string { return "glpat-" + random(r, b64url, 20) },
	"slack": func(r *rand.Rand) string {
		return "xox" + random(r, "abprs", 1) + "-" + random(r, digits, 12) + "-" + random(r, alnum, 24)
	},
	"stripe-live": func(r *rand.Rand) string { return "sk_live_" + random(r, alnum, 24) },
	"stripe-rk":   func(r *rand.Rand) string { return "rk_live_" + random(r, alnum, 24) },
	"stripe-test": func(r *rand.Rand) string { return "sk_test_" + random(r, alnum, 24) },
	"npm":         func(r *rand.Rand) string { return "npm_" + random(r, alnum, 36) },
	"pypi":        func(r *rand.Rand) string { return "pypi-AgEIcHlwaS5vcmc" + random(r, b64url, 50) },
	"jwt": func(r *rand.Rand) string {
		return "eyJ" + random(r, b64url, 30) + ".eyJ" + random(r, b64url, 40) + "." + random(r, b64url, 43)
	},
	"private-key":   func(r *rand.Rand) string { return "-----BEGIN RSA PRIVATE KEY-----MIIE" + random(r, alnum, 40) },
	"random-base62": func(r *rand.Rand) string { return random(r, alnum, 20+r.IntN(45)) },
	"random-lower":  func(r *rand.Rand) string { return random(r, lower+digits, 24+r.IntN(40)) },
	"random-hex32":  func(r *rand.Rand) string { return random(r, hexa, 32) },
	"random-hex64":  func(r *rand.Rand) string { return random(r, hexa, 64) },
	"aws-secret":    func(r *rand.Rand) string { return random(r, alnum, 30) + "+" + random(r, alnum, 9) },
}

// password is a random password: short, of any letters, digits and a few
// punctuation marks, beginning with a letter or digit.
func password(r *rand.Rand) string {
	return random(r, alnum, 1) + random(r, alnum+"-_.%+,", 5+r.IntN(20))
}

// positions put a secret in a command, in every place it can be typed. A
// bare position holds only tokens a reader can tell from the token alone.
var positions = []struct {
	name   string
	bare   bool
	format string
}{
	{"argument", true, "gh auth login --with-token %s"},
	{"argument-last", true, "deploy-tool %s"},
	{"mysql-p", false, "mysql -uroot -p%s shop"},
	{"mysqldump-p", false, "mysqldump -u admin -p%s --all-databases"},
	{"password-eq", false, "psql --password=%s -h db"},
	{"password-space", false, "mysql --password %s -h db"},
	{"pgpassword", false, "PGPASSWORD=%s psql -h db -U app"},
	{"mysql-pwd", false, "MYSQL_PWD=%s mysql -h db"},
	{"sshpass", false, "sshpass -p %s ssh deploy@host"},
	{"url-userinfo", false, "git push https://user:%s@gitlab.example.com/x.git"},
	{"url-userinfo-clone", false, "git clone https://oauth2:%s@github.com/o/r"},
	{"auth-header", false, "curl -H 'Authorization: Bearer %s' https://api.example.com"},
	{"auth-header-dq", false, `curl -H "Authorization: token %s" https://api.example.com`},
	{"cookie-header", false, "curl -H 'Cookie: session=%s' https://example.com"},
	{"wget-header", false, "wget --header='Authorization: Basic %s' https://example.com/f"},
	{"env-prefix", false, "API_TOKEN=%s ./deploy.sh prod"},
	{"env-prefix-env", false, "env AWS_SECRET_ACCESS_KEY=%s aws s3 ls"},
	{"export", false, "export GITHUB_TOKEN=%s"},
	{"export-key", false, "export OPENAI_API_KEY=%s"},
	{"docker-env", false, "docker run -e POSTGRES_PASSWORD=%s postgres"},
	{"curl-user", false, "curl -u admin:%s https://example.com"},
	{"api-key-flag", false, "stripe --api-key %s customers list"},
	{"token-flag", false, "vault login -method=token --token %s"},
	{"redis", false, "redis-cli -h cache -a %s"},
	{"docker-login", false, "docker login -u me -p %s registry.example.com"},
	{"kubectl-literal", false, "kubectl create secret generic db --from-literal=password=%s"},
	{"aws-configure", false, "aws configure set aws_secret_access_key %s"},
}

// shells are the ways each shell writes assignments, sequences and quotes.
var shells = []struct {
	name  string
	seqs  []string // joining a command before and after
	quote []func(string) string
}{
	{"bash", []string{"; ", " && ", " | ", " || "}, []func(string) string{plain, single, double, ansiC}},
	{"zsh", []string{"; ", " && ", " | ", " || "}, []func(string) string{plain, single, double, ansiC}},
	{"fish", []string{"; ", "; and ", " && ", " | ", "; or "}, []func(string) string{plain, single, double}},
}

func plain(s string) string  { return s }
func single(s string) string { return "'" + s + "'" }
func double(s string) string { return `"` + s + `"` }
func ansiC(s string) string  { return "$'" + s + "'" }

// fishForms are what only fish writes.
var fishForms = []string{"set -gx GITHUB_TOKEN %s", "set -x API_SECRET %s", "env DB_PASSWORD=%s ./migrate"}

// quoteIn quotes secret as quote does, unless the position already quotes
// it (a header), where it is left as it is.
func quoteIn(format, secret string, quote func(string) string) string {
	if strings.Contains(format, "'%s") || strings.Contains(format, `"%s`) || strings.Contains(format, "'Authorization") || strings.Contains(format, "'Cookie") || strings.Contains(format, `"Authorization`) {
		return secret
	}
	return quote(secret)
}

// lines are the lines a secret makes: in every position, quoting and shell,
// alone and in one of the ways it can stand beside other commands (after
// sudo, in a subshell, after or before another command, as the shell
// joins them), picked by r.
func lines(r *rand.Rand, secret string, bare bool) []string {
	var out []string
	for _, sh := range shells {
		forms := []string{}
		for _, p := range positions {
			if p.bare && !bare {
				continue
			}
			forms = append(forms, p.format)
		}
		if sh.name == "fish" {
			forms = append(forms, fishForms...)
		}
		for _, f := range forms {
			for _, q := range sh.quote {
				cmd := fmt.Sprintf(f, quoteIn(f, secret, q))
				seq := sh.seqs[r.IntN(len(sh.seqs))]
				beside := []string{"sudo " + cmd, "(" + cmd + ")", "cd ~/src/app" + seq + cmd, cmd + seq + "echo done"}
				out = append(out, cmd, beside[r.IntN(len(beside))])
			}
		}
	}
	return out
}

func TestGeneratedSecretsAreFoundInEveryPositionQuotingAndShell(t *testing.T) {
	t.Parallel()
	f, err := secretfilter.Parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(24, 1))
	checked := 0
	for name, gen := range tokenFormats {
		for range 3 {
			secret := gen(r)
			for _, line := range lines(r, secret, true) {
				checked++
				if !f.Secret(line) {
					t.Errorf("%s: not found in %q", name, line)
				}
			}
		}
	}
	for range 30 {
		secret := password(r)
		for _, line := range lines(r, secret, false) {
			checked++
			if !f.Secret(line) {
				t.Errorf("password: not found in %q", line)
			}
		}
	}
	t.Logf("%d lines with a secret, all found", checked)
}

// corpus is ordinary commands, every one of which must be kept.
var corpus = []string{
	"git status", "git diff --stat", "git add -A", `git commit -m "fix the parser for quoted words"`,
	"git push origin main", "git push -u origin feature/secret-filter", "git pull --rebase",
	"git checkout 3f9a1c2", "git show 9b79e94", "git rebase -i HEAD~3",
	"git cherry-pick 2e2f659e5d1b4a7c8f0e3d6b9a1c4e7f2a5d8b0c", "git log --oneline -20",
	"git reset --hard 8002a1e0c7d34b5f9e1a2c3d4b5e6f7a8b9c0d1e", "git diff 2e2f659..9b79e94",
	"git clone https://github.com/clai-sh/clai.git", "git clone git@github.com:clai-sh/clai.git",
	"git remote add upstream https://gitlab.example.com/group/project.git",
	"git config --global user.name 'Ada Lovelace'", "git config --global user.signingkey ~/.ssh/id_ed25519.pub",
	"git stash pop", "git bisect good 5c1f2a9e", "git tag -a v1.4.2 -m 'release 1.4.2'",
	"go test ./...", "go test -race -run TestGeneratedSecretsAreFoundInEveryPositionQuotingAndShell ./runner/suggest/secretfilter",
	"go build -o bin/clai ./cmd/clai", "go mod tidy", "go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...",
	`go build -ldflags="-X main.version=v1.2.3 -s -w" ./cmd/clai`, "go get golang.org/x/tools/gopls@v0.16.2",
	"go test -run TestRFC3339TimestampsParseCorrectlyWithZone2024 ./internal/...",
	"npm install", "npm run build", "npm ci --no-audit", "npm test -- --watch", "npx vite --port 5173",
	"npm install @types/node@20.11.5 --save-dev", "yarn add react@18.2.0", "pnpm -r build",
	"make", "make test", "make -j4 build", "make KEY_FILE=./keys/dev.pem deploy",
	"cd ~/src/clai", "cd ..", "cd /var/log/nginx", "cd -",
	"vim runner/suggest/daemon/ingest.go", "vim ~/.config/clai/config.yaml", "nvim src/components/UserProfileSettingsPanel.tsx",
	"code .", "ls -la", "cat /etc/os-release", "tail -f /var/log/syslog", "grep -rn TODO --include=*.go .",
	"docker ps -a", "docker build -t registry.example.com/team/api:2024.06.1 .",
	"docker run --rm -it -v $PWD:/src -w /src golang:1.26-bookworm go test ./...",
	"docker pull nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31",
	"docker rm 4e1f2a3b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f",
	"docker exec -it 3c2b1a0f9e8d sh", "docker compose up -d --build",
	"kubectl get pods -n payments", "kubectl logs -f payments-api-7d9f8c6b5-x2k4p -n payments",
	"kubectl delete pod 2b6f0d3e-8c1a-4f5b-9e7d-0a3c5b8d1f2e", "kubectl describe node ip-10-0-12-34.eu-west-1.compute.internal",
	"kubectl get events --field-selector involvedObject.uid=6f1c2d3e-4b5a-4978-8e9f-0a1b2c3d4e5f",
	"kubectl set image deployment/api api=registry.example.com/api@sha256:4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c",
	"kubectl create secret generic db --from-file=./secrets/db.env", "kubectl rollout restart deployment/api",
	"helm upgrade --install api ./charts/api -f values-prod.yaml", "terraform plan -out=tfplan",
	"terraform apply -var-file=prod.tfvars", "ssh deploy@10.0.12.34", "ssh -i ~/.ssh/id_ed25519 admin@bastion.example.com",
	"scp build/app.tar.gz deploy@host:/srv/app/", "rsync -avz --delete dist/ host:/var/www/site/",
	"curl -s https://api.github.com/repos/clai-sh/clai/commits/2e2f659e5d1b4a7c8f0e3d6b9a1c4e7f2a5d8b0c",
	"curl -fsSL https://deb.nodesource.com/setup_20.x | sudo -E bash -", "curl -H 'Accept: application/json' https://api.example.com/health",
	"curl -X POST -H 'Content-Type: application/json' -d '{\"name\":\"x\"}' http://localhost:8080/items",
	"wget https://go.dev/dl/go1.26.0.linux-amd64.tar.gz", "tar xzf go1.26.0.linux-amd64.tar.gz -C /usr/local",
	"echo $PATH", "export PATH=$HOME/go/bin:$PATH", "export GOFLAGS=-mod=mod", "export GITHUB_TOKEN=$(gh auth token)",
	"export EDITOR=nvim", "DEBUG=1 make check", "export AWS_PROFILE=staging", "unset AWS_SESSION_TOKEN",
	"mysql -uroot -p shop", "mysql -h db -u app -p", "psql -h localhost -p 5432 -U app shop",
	"ssh-keygen -t ed25519 -C ada@example.com", "openssl req -new -key server.key -out server.csr",
	"gpg --list-secret-keys --keyid-format=long", "pass show email/work", "op read op://vault/item/password",
	"sha256sum -c go1.26.0.linux-amd64.tar.gz.sha256", "echo 0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31 | sha256sum -c",
	"python -m venv .venv", "source .venv/bin/activate", "pip install -r requirements.txt", "pytest -k test_parse_iso8601_timestamps -x",
	"cargo build --release", "cargo test --workspace", "rustup target add x86_64-unknown-linux-musl",
	"systemctl --user restart clai-daemon.service", "journalctl --user -u clai-daemon -f", "sudo apt-get install -y ripgrep",
	"rg -n 'func New' runner/", "find . -name '*.go' -newer go.mod", "du -sh node_modules", "htop", "clear", "exit",
	"for f in *.go; do gofmt -l $f; done", "fish_add_path ~/go/bin", "set -gx EDITOR nvim", "set -x GOPATH ~/go",
	"aws s3 cp s3://my-bucket/reports/2024-06-01.csv .", "aws sts get-caller-identity", "aws configure set region eu-west-1",
	"gh pr create --title 'suggest: filter secrets' --body-file pr.md", "gh run view 9876543210 --log",
	"git config --global credential.helper store", "ssh-add ~/.ssh/id_ed25519", "export NODE_OPTIONS=--max-old-space-size=4096",
	"docker login registry.example.com", "echo $GITHUB_TOKEN | docker login ghcr.io -u ada --password-stdin",
	"aws secretsmanager get-secret-value --secret-id prod/db", "kubectl get secret db -o jsonpath='{.data.password}'",
	"vault kv get secret/app", "npm config set registry https://registry.npmjs.org/", "psql postgres://app@localhost/shop",
	"git remote set-url origin git@github.com:clai-sh/clai.git", "helm repo add bitnami https://charts.bitnami.com/bitnami",
	"mysql --password -h db shop", "curl -u ada https://example.com/private", "export MYSQL_PWD=$(pass show db/root)",
	"SSH_KEY=./deploy.pem ./provision.sh", "./tool --token-file ~/.config/tool/token", "cd $OLDPWD", "PWD=/tmp ls",
	"jq '.items[] | .metadata.name' pods.json", "base64 -d <<< aGVsbG8=", "ffmpeg -i input.mp4 -vf scale=1280:720 out.mp4",
}

func TestOrdinaryCommandsAreKept(t *testing.T) {
	t.Parallel()
	f, err := secretfilter.Parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, line := range corpus {
		if rule, ok := f.Find(line); ok {
			found++
			t.Errorf("%q taken for a secret by %s", line, rule)
		}
	}
	t.Logf("false positives: %d of %d ordinary commands", found, len(corpus))
}

func TestUserPatternsAreApplied(t *testing.T) {
	t.Parallel()
	f, err := secretfilter.Parse([]string{`corp-[0-9]{6}`, `(?i)hunter2`})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"login --id corp-123456", "echo HUNTER2"} {
		if rule, ok := f.Find(line); !ok || rule != secretfilter.RuleUser {
			t.Errorf("%q: %q %v, want the user's pattern", line, rule, ok)
		}
	}
	if f.Secret("login --id corp-12") {
		t.Error("corp-12 taken for a secret")
	}
}

func TestBadUserPatternsAreClearErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern, want string
	}{
		{"", "secret pattern 1: empty pattern"},
		{"(", "secret pattern 1: pattern \"(\": error parsing regexp"},
		{".*", "secret pattern 1: pattern \".*\" matches every command"},
		{strings.Repeat("a", secretfilter.MaxPattern+1), "pattern of 1025 bytes, at most 1024"},
	} {
		_, err := secretfilter.Parse([]string{tc.pattern})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("pattern %.20q: error %v, want %q", tc.pattern, err, tc.want)
		}
	}
	if _, err := secretfilter.Parse(make([]string, secretfilter.MaxPatterns+1)); err == nil {
		t.Error("too many patterns taken")
	}
}

func TestTheZeroFilterAppliesTheBuiltInRules(t *testing.T) {
	t.Parallel()
	var f *secretfilter.Filter
	if !f.Secret("export GITHUB_TOKEN=ghp_" + strings.Repeat("a1B2", 9)) {
		t.Error("a nil Filter missed a GitHub token")
	}
	if f.Secret("git status") {
		t.Error("a nil Filter took git status for a secret")
	}
}
