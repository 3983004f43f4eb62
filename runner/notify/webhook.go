package notify

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/files"
)

// The headers of a webhook's POST.
const (
	HeaderEvent     = "X-Clai-Event"
	HeaderDelivery  = "X-Clai-Delivery"
	HeaderSignature = "X-Clai-Signature-256"
)

// maxResponse is how much of a webhook's response is read (and dropped).
const maxResponse = 64 << 10

// webhookTarget posts the notification's JSON.
type webhookTarget struct {
	address string
	secret  []byte
	name    string
	mask    *mask
	client  *http.Client
}

func openWebhook(w *playbooks.Webhook, env Environment) (*webhookTarget, error) {
	address, values, err := expand(w.URL, env.Environ)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(address)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("webhook: the address is not an http or https URL")
	}
	t := &webhookTarget{address: address, name: "webhook " + u.Scheme + "://" + u.Host + "/…",
		client: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	if w.Secret != nil {
		secret, err := ReadSecret(*w.Secret, env)
		if err != nil {
			return nil, fmt.Errorf("webhook secret: %w", err)
		}
		t.secret = []byte(secret)
		values = append(values, secret)
	}
	t.mask = newMask(address, t.name, values...)
	return t, nil
}

func (t *webhookTarget) Name() string { return t.name }

// Sign returns the signature header's value for body under secret:
// sha256=HEX of its HMAC-SHA256.
func Sign(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

func (t *webhookTarget) Deliver(ctx context.Context, n *Notification) error {
	body, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("encode the notification: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.address, bytes.NewReader(body))
	if err != nil {
		return t.mask.err(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "clai")
	req.Header.Set(HeaderEvent, string(n.Event))
	req.Header.Set(HeaderDelivery, n.ID)
	if t.secret != nil {
		req.Header.Set(HeaderSignature, Sign(t.secret, body))
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return t.mask.err(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponse))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("%s: status %d", t.name, resp.StatusCode)
	}
	return nil
}

// ReadSecret reads an env: or file: secret as a playbook's are read; an
// empty one is an error.
func ReadSecret(ref playbooks.SecretRef, env Environment) (string, error) {
	resolve := env.ResolvePath
	if resolve == nil {
		resolve = func(path string) string { return path }
	}
	v, err := files.ReadSecret(ref, env.Environ, resolve)
	if err == nil && v == "" {
		err = fmt.Errorf("secret %s:%s: it is empty", ref.Source, ref.Name)
	}
	return v, err
}
