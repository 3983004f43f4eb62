package dashboard

import (
	"context"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/clai-sh/clai/runner/ask"
)

//go:embed assets
var assets embed.FS

// The bounds of an answer from the page.
const (
	maxAnswerBody = 16 << 10
	maxIDLen      = 128
	maxTextLen    = 4 << 10
	maxChooseLen  = 512
	maxChoices    = 32
	maxKeys       = 32
	maxKeyLen     = 32
	// writeTimeout bounds each write to a page: one that stops reading
	// is dropped.
	writeTimeout = 10 * time.Second
	// keepAlive is how often an event stream without events sends a
	// comment, so that a page that went away is noticed.
	keepAlive = 15 * time.Second
)

// tokenHeader is the header that may carry the token instead of the
// cookie.
const tokenHeader = "X-Clai-Token"

// contentSecurityPolicy lets the page load only its own script and style
// and talk only to its own server; no inline script or style, no frames.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler is the dashboard's page and API:
//
//	GET  /?token=T    sets the token's cookie and sends the page to /
//	GET  /            the page; /app.js, /app.css, /favicon.svg its script,
//	                  style and icon (also at /favicon.ico)
//	GET  /api/events  Server-Sent Events: "session" (a session's view),
//	                  "gone" ({"id"}: a session no longer shown)
//	POST /api/answer  {"session", "question", "screen_hash", and one of
//	                  "text", "choose", "choices", "keys"}: 200 ask.Sent, 409
//	                  ask.Refusal, 400 a bad request, 502 a session that
//	                  cannot be reached
//
// Every request must carry the token (the cookie, or the X-Clai-Token
// header), name the dashboard's address in Host and, when it has an Origin,
// come from the dashboard's own page.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", serveAsset("assets/index.html", "text/html; charset=utf-8"))
	mux.HandleFunc("GET /app.js", serveAsset("assets/app.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("GET /app.css", serveAsset("assets/app.css", "text/css; charset=utf-8"))
	// The page names its icon; a browser that asks for /favicon.ico anyway
	// gets the same.
	mux.HandleFunc("GET /favicon.svg", serveAsset("assets/favicon.svg", "image/svg+xml"))
	mux.HandleFunc("GET /favicon.ico", serveAsset("assets/favicon.svg", "image/svg+xml"))
	mux.HandleFunc("GET /api/events", s.serveEvents)
	mux.HandleFunc("POST /api/answer", s.serveAnswer)
	return s.guard(mux)
}

// cookieName is the token's cookie; cookies are shared by the ports of a
// host, so it names the port.
func (s *Server) cookieName() string { return "clai_dashboard_" + strconv.Itoa(s.cfg.Port) }

// guard lets through only requests for the dashboard's address, from its
// own page, with its token; each reply says the page may do nothing else.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		if !s.hostAllowed(r.Host) {
			httpError(w, http.StatusForbidden, fmt.Sprintf("the Host %q is not this dashboard's address", clip(r.Host, 100)))
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && origin != "http://"+r.Host {
			httpError(w, http.StatusForbidden, fmt.Sprintf("a request from %q is not from this dashboard's page", clip(origin, 100)))
			return
		}
		if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
			httpError(w, http.StatusForbidden, "a request from another site is not from this dashboard's page")
			return
		}
		if r.Method == http.MethodGet && r.URL.Path == "/" && r.URL.Query().Has("token") {
			s.login(w, r)
			return
		}
		if !s.tokenGiven(r) {
			httpError(w, http.StatusUnauthorized, "this dashboard needs its token: open the URL clai dashboard printed")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// login checks the token of the URL clai dashboard printed, keeps it in a
// cookie and sends the browser to the page without it in the address.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if !s.tokenMatches(r.URL.Query().Get("token")) {
		httpError(w, http.StatusUnauthorized, "this token is not this dashboard's: open the URL clai dashboard printed")
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name:     s.cookieName(),
		Value:    s.cfg.Token,
		Path:     "/",
		HttpOnly: true,
		SameSite: http.SameSiteStrictMode,
	})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// tokenGiven reports whether r carries the token, in its cookie or header.
func (s *Server) tokenGiven(r *http.Request) bool {
	if t := r.Header.Get(tokenHeader); t != "" {
		return s.tokenMatches(t)
	}
	c, err := r.Cookie(s.cookieName())
	return err == nil && s.tokenMatches(c.Value)
}

// tokenMatches compares t with the token in constant time.
func (s *Server) tokenMatches(t string) bool {
	return s.cfg.Token != "" && subtle.ConstantTimeCompare([]byte(t), []byte(s.cfg.Token)) == 1
}

// hostAllowed reports whether host (a request's Host) names the dashboard:
// its port, on a loopback name or address; when exposed, also on an IP
// address or this machine's name. A name another site's DNS points here
// (DNS rebinding) is refused.
func (s *Server) hostAllowed(host string) bool {
	name, port, err := net.SplitHostPort(host)
	if err != nil || port != strconv.Itoa(s.cfg.Port) {
		return false
	}
	name = strings.ToLower(name)
	if name == "localhost" {
		return true
	}
	if ip := net.ParseIP(name); ip != nil {
		return ip.IsLoopback() || s.cfg.Exposed
	}
	return s.cfg.Exposed && s.cfg.Hostname != "" && name == strings.ToLower(s.cfg.Hostname)
}

// serveAsset sends an embedded file.
func serveAsset(name, contentType string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		b, err := assets.ReadFile(name)
		if err != nil {
			httpError(w, http.StatusInternalServerError, err.Error())
			return
		}
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(b)
	}
}

// serveEvents streams every session's view, then each change, to a page.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	sub, snapshot, ok := s.hub.subscribe()
	if !ok {
		httpError(w, http.StatusServiceUnavailable, "too many pages watch this dashboard")
		return
	}
	defer s.hub.unsubscribe(sub)
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	write := func(m message) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		if m.event == "" {
			_, err := io.WriteString(w, ": keep-alive\n\n")
			return err == nil && rc.Flush() == nil
		}
		_, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", m.event, m.data)
		return err == nil && rc.Flush() == nil
	}
	if !write(message{}) {
		return
	}
	for _, m := range snapshot {
		if !write(m) {
			return
		}
	}
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-sub.dropped:
			return
		case m := <-sub.ch:
			if !write(m) {
				return
			}
		case <-tick.C:
			if !write(message{}) {
				return
			}
		}
	}
}

// answerRequest is an answer from the page.
type answerRequest struct {
	Session    string   `json:"session"`
	Question   string   `json:"question"`
	ScreenHash string   `json:"screen_hash"`
	Text       *string  `json:"text,omitempty"`
	Choose     string   `json:"choose,omitempty"`
	Choices    []string `json:"choices,omitempty"`
	Keys       []string `json:"keys,omitempty"`
}

// serveAnswer answers a session's question from the page, through the
// session's answer path.
func (s *Server) serveAnswer(w http.ResponseWriter, r *http.Request) {
	req, err := readAnswer(w, r)
	if err != nil {
		httpError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), queryTimeout)
	defer cancel()
	sent, err := s.src.Answer(ctx, req.Session, ask.Answer{
		Question:   req.Question,
		ScreenHash: req.ScreenHash,
		Text:       req.Text,
		Choose:     req.Choose,
		Choices:    req.Choices,
		Keys:       req.Keys,
		By:         s.cfg.User,
		Channel:    ask.ChannelDashboard,
	})
	var refusal *ask.Refusal
	switch {
	case errors.As(err, &refusal):
		writeJSON(w, http.StatusConflict, refusal)
	case err != nil:
		httpError(w, http.StatusBadGateway, err.Error())
	default:
		writeJSON(w, http.StatusOK, sent)
	}
}

// readAnswer reads and checks an answer's JSON body.
func readAnswer(w http.ResponseWriter, r *http.Request) (answerRequest, error) {
	var req answerRequest
	if ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || ct != "application/json" {
		return req, errors.New("an answer is a JSON body (Content-Type: application/json)")
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxAnswerBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, fmt.Errorf("the answer is not the JSON of an answer: %w", err)
	}
	if dec.More() {
		return req, errors.New("the answer has more than one JSON value")
	}
	return req, req.check()
}

// check bounds every field of the answer.
func (a answerRequest) check() error {
	switch {
	case a.Session == "" || len(a.Session) > maxIDLen:
		return fmt.Errorf("the answer needs its session's id (at most %d bytes)", maxIDLen)
	case a.Question == "" || len(a.Question) > maxIDLen:
		return fmt.Errorf("the answer needs its question's id (at most %d bytes)", maxIDLen)
	case len(a.ScreenHash) > maxIDLen:
		return fmt.Errorf("the screen hash is longer than %d bytes", maxIDLen)
	case a.Text != nil && len(*a.Text) > maxTextLen:
		return fmt.Errorf("the text is longer than %d bytes", maxTextLen)
	case len(a.Choose) > maxChooseLen:
		return fmt.Errorf("the option is longer than %d bytes", maxChooseLen)
	case len(a.Choices) > maxChoices:
		return fmt.Errorf("more than %d options chosen", maxChoices)
	case len(a.Keys) > maxKeys:
		return fmt.Errorf("more than %d keys", maxKeys)
	}
	for _, c := range a.Choices {
		if len(c) > maxChooseLen {
			return fmt.Errorf("an option is longer than %d bytes", maxChooseLen)
		}
	}
	for _, k := range a.Keys {
		if len(k) > maxKeyLen {
			return fmt.Errorf("a key name is longer than %d bytes", maxKeyLen)
		}
	}
	return nil
}

// writeJSON writes v as the JSON reply with status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// httpError replies {"error": msg} with status code.
func httpError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}

// clip cuts s to at most n bytes, for quoting what a request sent.
func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
