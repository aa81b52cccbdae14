package web

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/paneflow-go/paneflow/internal/atomicfile"
)

// pairTTL is how long a pairing link stays valid.
const pairTTL = 10 * time.Minute

// maxPending bounds the pairing links not yet used; a new one past it
// drops the oldest.
const maxPending = 16

// storeFile is the web client's file on disk: the per-server secret and
// the paired browsers (0600, in a 0700 directory).
type storeFile struct {
	// Secret keys the HMAC of every session cookie; a new secret ends
	// every session.
	Secret   string         `json:"secret"`
	Browsers []storeBrowser `json:"browsers"`
}

// storeBrowser is one paired browser on disk. Its cookie is not kept,
// only its HMAC under the secret.
type storeBrowser struct {
	ID       string    `json:"id"`
	MAC      string    `json:"mac"`
	ReadOnly bool      `json:"ro"`
	Agent    string    `json:"agent"`
	Paired   time.Time `json:"paired"`
	Seen     time.Time `json:"seen,omitzero"`
}

// pending is a pairing link not used yet.
type pending struct {
	readOnly bool
	expires  time.Time
}

// store holds the secret, the paired browsers and the pairing links. Its
// methods are safe for concurrent use.
type store struct {
	path string // "" keeps it in memory only (tests)
	now  func() time.Time

	mu      sync.Mutex
	secret  []byte
	list    []storeBrowser     // guarded by mu
	pending map[string]pending // by token, guarded by mu
}

// openStore reads path, or creates it with a fresh secret.
func openStore(path string, now func() time.Time) (*store, error) {
	s := &store{path: path, now: now, pending: make(map[string]pending)}
	var f storeFile
	if path != "" {
		data, err := os.ReadFile(path)
		switch {
		case err == nil:
			if err := json.Unmarshal(data, &f); err != nil {
				return nil, fmt.Errorf("web: %s: %v (remove it to start over: every browser pairs again)", path, err)
			}
		case !errors.Is(err, os.ErrNotExist):
			return nil, fmt.Errorf("web: %v", err)
		}
	}
	if f.Secret != "" {
		sec, err := base64.RawURLEncoding.DecodeString(f.Secret)
		if err != nil || len(sec) < 32 {
			return nil, fmt.Errorf("web: %s: the secret is not 32 bytes of base64 (remove the file to start over)", path)
		}
		s.secret, s.list = sec, f.Browsers
		return s, nil
	}
	s.secret = randomBytes(32)
	if err := s.saveLocked(); err != nil {
		return nil, err
	}
	return s, nil
}

// randomBytes returns n bytes from crypto/rand (which never fails).
func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// randomToken returns 32 random bytes in URL-safe base64.
func randomToken() string { return base64.RawURLEncoding.EncodeToString(randomBytes(32)) }

// saveLocked writes the file; s.mu must be held (or s not shared yet).
func (s *store) saveLocked() error {
	if s.path == "" {
		return nil
	}
	data, err := json.MarshalIndent(storeFile{Secret: base64.RawURLEncoding.EncodeToString(s.secret), Browsers: s.list}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("web: %v", err)
	}
	if err := atomicfile.Write(s.path, bytes.NewReader(data), 0o600); err != nil {
		return fmt.Errorf("web: saving %s: %v", s.path, err)
	}
	return nil
}

// mac is the HMAC-SHA256 of a cookie under the secret, in hex.
func (s *store) mac(cookie string) string {
	h := hmac.New(sha256.New, s.secret)
	h.Write([]byte(cookie))
	return hex.EncodeToString(h.Sum(nil))
}

// cookieName is this server's cookie name: browsers send a loopback
// cookie to every port of the host, so two servers must not share one.
func (s *store) cookieName(secure bool) string {
	sum := sha256.Sum256(s.secret)
	name := "paneflow-" + hex.EncodeToString(sum[:4])
	if secure {
		return "__Host-" + name
	}
	return name
}

// newPairing makes a one-time pairing token.
func (s *store) newPairing(readOnly bool) string {
	tok := randomToken()
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	for t, p := range s.pending {
		if !now.Before(p.expires) {
			delete(s.pending, t)
		}
	}
	for len(s.pending) >= maxPending {
		var oldest string
		for t, p := range s.pending {
			if oldest == "" || p.expires.Before(s.pending[oldest].expires) {
				oldest = t
			}
		}
		delete(s.pending, oldest)
	}
	s.pending[tok] = pending{readOnly: readOnly, expires: now.Add(pairTTL)}
	return tok
}

// pair consumes token and records a new browser; it returns the
// browser's session cookie. A token unknown, used or expired is an error.
func (s *store) pair(token, agent string) (cookie string, b storeBrowser, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pending[token]
	if !ok || token == "" {
		return "", b, errors.New("this pairing link is unknown or was used already: run `paneflow web pair` for a new one")
	}
	delete(s.pending, token)
	if !s.now().Before(p.expires) {
		return "", b, errors.New("this pairing link expired: run `paneflow web pair` for a new one")
	}
	cookie = randomToken()
	if len(agent) > 200 {
		agent = agent[:200]
	}
	b = storeBrowser{ID: hex.EncodeToString(randomBytes(4)), MAC: s.mac(cookie), ReadOnly: p.readOnly, Agent: agent, Paired: s.now().UTC()}
	s.list = append(s.list, b)
	if err := s.saveLocked(); err != nil {
		s.list = s.list[:len(s.list)-1]
		return "", storeBrowser{}, err
	}
	return cookie, b, nil
}

// browser finds the browser a session cookie belongs to and notes that
// it was seen (in memory; written with the next change).
func (s *store) browser(cookie string) (storeBrowser, bool) {
	if cookie == "" {
		return storeBrowser{}, false
	}
	m := s.mac(cookie)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.list {
		if hmac.Equal([]byte(s.list[i].MAC), []byte(m)) {
			s.list[i].Seen = s.now().UTC()
			return s.list[i], true
		}
	}
	return storeBrowser{}, false
}

// known reports whether browser id is still paired.
func (s *store) known(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.ContainsFunc(s.list, func(b storeBrowser) bool { return b.ID == id })
}

// browsers returns the paired browsers, oldest first.
func (s *store) browsers() []storeBrowser {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.list)
}

// revoke forgets browser id; it reports whether there was one.
func (s *store) revoke(id string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.list, func(b storeBrowser) bool { return b.ID == id })
	if i < 0 {
		return false, nil
	}
	s.list = slices.Delete(s.list, i, i+1)
	return true, s.saveLocked()
}

// limiter is a token bucket: burst attempts at once, then one per every.
// Its methods are safe for concurrent use.
type limiter struct {
	burst float64
	every time.Duration

	mu     sync.Mutex
	tokens float64
	last   time.Time
}

// allow takes one attempt at now; false means over the limit.
func (l *limiter) allow(now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last.IsZero() {
		l.tokens = l.burst
	} else if d := now.Sub(l.last); d > 0 {
		l.tokens = min(l.burst, l.tokens+float64(d)/float64(l.every))
	}
	l.last = now
	if l.tokens < 1 {
		return false
	}
	l.tokens--
	return true
}
