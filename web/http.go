package web

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
)

//go:embed static
var staticFS embed.FS

// asset is one embedded file, plain and gzipped.
type asset struct {
	ctype     string
	plain, gz []byte
	cacheable bool
}

// pages maps a URL path to its embedded file.
var pages = map[string]string{
	"/":        "static/index.html",
	"/pair":    "static/pair.html",
	"/app.js":  "static/app.js",
	"/app.css": "static/app.css",
}

// loadStatic reads and compresses the embedded files once.
func loadStatic() (map[string]asset, error) {
	out := make(map[string]asset, len(pages))
	for p, f := range pages {
		data, err := fs.ReadFile(staticFS, f)
		if err != nil {
			return nil, err
		}
		var gz bytes.Buffer
		w, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		w.Write(data)
		w.Close()
		out[p] = asset{ctype: mime.TypeByExtension(path.Ext(f)), plain: data, gz: gz.Bytes()}
	}
	return out, nil
}

// PageSize reports the embedded page's bytes (index, script, styles),
// plain and gzipped as served.
func PageSize() (plain, gzipped int, err error) {
	st, err := loadStatic()
	if err != nil {
		return 0, 0, err
	}
	for _, p := range []string{"/", "/app.js", "/app.css"} {
		plain += len(st[p].plain)
		gzipped += len(st[p].gz)
	}
	return plain, gzipped, nil
}

// csp keeps scripts to the page's own file: text from panes is never
// run, whatever it holds.
const csp = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// Handler returns the web client's HTTP handler (the server's; tests
// call it through httptest). Valid after Init started serving.
func (s *Service) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.serveStatic)
	mux.HandleFunc("GET /pair", s.serveStatic)
	mux.HandleFunc("GET /app.js", s.serveStatic)
	mux.HandleFunc("GET /app.css", s.serveStatic)
	mux.HandleFunc("POST /pair", s.servePair)
	mux.HandleFunc("GET /session", s.serveSession)
	mux.HandleFunc("GET /ws", s.serveWS)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin") // no-referrer would make the browser send Origin: null with the pairing form
		h.Set("X-Frame-Options", "DENY")
		if !s.hostAllowed(r.Host) {
			http.Error(w, "web: this server does not answer to host "+strconv.Quote(r.Host), http.StatusMisdirectedRequest)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// serveStatic serves an embedded file, gzipped when the browser takes it.
func (s *Service) serveStatic(w http.ResponseWriter, r *http.Request) {
	a, ok := s.static[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.ctype)
	h.Set("Cache-Control", "no-cache")
	h.Set("Vary", "Accept-Encoding")
	body := a.plain
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		body = a.gz
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}

// servePair is POST /pair: the page the link opened sends the link's
// token (from its fragment, which no server, proxy or log sees); a valid
// one is consumed and the browser gets its session cookie. Every attempt
// counts against the rate limit.
func (s *Service) servePair(w http.ResponseWriter, r *http.Request) {
	if !s.limit.allow(s.o.Now()) {
		w.Header().Set("Retry-After", "60")
		http.Error(w, "web: too many pairing attempts; wait a minute and run `paneflow web pair` again", http.StatusTooManyRequests)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !s.sameOrigin(r) {
		http.Error(w, "web: pairing from another site is refused", http.StatusForbidden)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "web: bad pairing form", http.StatusBadRequest)
		return
	}
	cookie, b, err := s.st.pair(r.PostForm.Get("token"), r.UserAgent())
	if err != nil {
		http.Error(w, "web: "+err.Error(), http.StatusForbidden)
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: s.st.cookieName(s.secure), Value: cookie, Path: "/",
		MaxAge: 400 * 24 * 3600, HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteStrictMode,
	})
	s.logf("paneflow: web: browser %s paired (read-only %v): %s", b.ID, b.ReadOnly, b.Agent)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// authenticate finds the paired browser of r's session cookie.
func (s *Service) authenticate(r *http.Request) (storeBrowser, bool) {
	c, err := r.Cookie(s.st.cookieName(s.secure))
	if err != nil {
		return storeBrowser{}, false
	}
	return s.st.browser(c.Value)
}

// notPaired is the 401 of a request without a valid session.
func notPaired(w http.ResponseWriter) {
	http.Error(w, "web: this browser is not paired with this server: run `paneflow web pair` and open the link it prints", http.StatusUnauthorized)
}

// sessionInfo is GET /session's answer: the page's own format.
type sessionInfo struct {
	ID       string `json:"id"`
	ReadOnly bool   `json:"ro"`
}

// serveSession is GET /session: who this browser is, or 401.
func (s *Service) serveSession(w http.ResponseWriter, r *http.Request) {
	b, ok := s.authenticate(r)
	if !ok {
		notPaired(w)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(sessionInfo{ID: b.ID, ReadOnly: b.ReadOnly})
}
