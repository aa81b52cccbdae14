//go:build linux

package web

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/paneflow-go/paneflow/test/internal/servetest"
)

// TestServeWebOverTLS runs `paneflow serve --web` with a certificate and
// key: the pairing link is https, pairing over TLS sets the session
// cookie with the __Host- prefix, Secure, HttpOnly and SameSite=Strict,
// and the page's WebSocket (wss) says hello with that cookie and is
// refused without it. A client that does not trust the
// certificate cannot connect at all.
func TestServeWebOverTLS(t *testing.T) {
	dir := servetest.TempDir(t, "pft-")
	certFile, keyFile, pool := selfSigned(t, dir)
	s := &webServer{t: t, dir: dir, sock: filepath.Join(dir, "pf.sock")}
	s.env = append(servetest.Env(dir), "PANEFLOW_IPC_SCRIPTING=1", "PANEFLOW_SOCKET_PATH="+s.sock)
	s.srv = servetest.Start(t, servetest.Config{Bin: bin, Sock: s.sock, Dir: dir, Env: s.env, Size: "80x24",
		Args: []string{"--web", "127.0.0.1:0", "--web-tls-cert", certFile, "--web-tls-key", keyFile}})
	link := s.pairLink(false)
	if !strings.HasPrefix(link, "https://127.0.0.1:") {
		t.Fatalf("pairing link %q, want https", link)
	}
	base, tok, _ := strings.Cut(link, "/pair#")

	if _, err := http.Get(base + "/"); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("a client that does not trust the certificate: err = %v, want a certificate error", err)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	c := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	req, _ := http.NewRequest(http.MethodPost, base+"/pair", strings.NewReader(url.Values{"token": {tok}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cookies := resp.Cookies()
	if resp.StatusCode != http.StatusSeeOther || len(cookies) != 1 {
		t.Fatalf("pairing over TLS: %s with %d cookies, want 303 and the session cookie", resp.Status, len(cookies))
	}
	ck := cookies[0]
	if !strings.HasPrefix(ck.Name, "__Host-") || !ck.Secure || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/" || ck.Domain != "" {
		t.Errorf("session cookie %+v, want __Host-, Secure, HttpOnly, SameSite=Strict, Path=/ and no Domain", ck)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	wsURL := "wss" + strings.TrimPrefix(base, "https") + "/ws"
	if _, _, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPClient: &http.Client{Transport: tr}, HTTPHeader: http.Header{"Origin": {base}}}); err == nil {
		t.Errorf("a WebSocket without the cookie was accepted")
	}
	h := http.Header{"Origin": {base}, "Cookie": {ck.Name + "=" + ck.Value}}
	ws, _, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPClient: &http.Client{Transport: tr}, HTTPHeader: h})
	if err != nil {
		t.Fatalf("wss with the cookie: %v", err)
	}
	defer ws.CloseNow()
	_, data, err := ws.Read(ctx)
	var hello struct {
		T      string `json:"t"`
		Writes bool   `json:"writes"`
		URL    string `json:"url"`
	}
	if err != nil || json.Unmarshal(data, &hello) != nil || hello.T != "hello" || !hello.Writes || hello.URL != base {
		t.Errorf("the first message over wss: %s (%v), want hello with writes on and url %s", data, err, base)
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key under dir and
// returns their paths and a pool that trusts the certificate.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "paneflow test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}
