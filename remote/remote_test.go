package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
)

// The test binary doubles as ssh: with fakeSSHEnv set it ignores its
// arguments and is `paneflow bridge` for the socket the variable names
// (or, with fakeHelloEnv, says that hello and reads stdin to its end).
const (
	fakeSSHEnv   = "PANEFLOW_REMOTE_TEST_SOCKET"
	fakeHelloEnv = "PANEFLOW_REMOTE_TEST_HELLO"
)

func TestMain(m *testing.M) {
	if hello := os.Getenv(fakeHelloEnv); hello != "" {
		fmt.Println("Welcome! (a login shell's banner)")
		fmt.Println(hello)
		buf := make([]byte, 4096)
		for {
			if _, err := os.Stdin.Read(buf); err != nil {
				os.Exit(0)
			}
		}
	}
	if sock := os.Getenv(fakeSSHEnv); sock != "" {
		hello := Hello{Protocol: ProtocolVersion, GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, Version: "test"}
		err := Serve(context.Background(), os.Stdin, os.Stdout, hello, func(ctx context.Context) (net.Conn, error) {
			return ipc.DialSocket(ctx, sock)
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "bridge:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeEnv runs this test binary as ssh, with vars for it.
func fakeEnv(t *testing.T, vars ...string) Env {
	for _, kv := range vars {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	return Env{Getenv: func(k string) string {
		if k == EnvSSH {
			return os.Args[0]
		}
		return ""
	}}
}

func TestParseHost(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Host
		err  string
	}{
		{in: "ssh://alice@build.example:2222", want: Host{User: "alice", Name: "build.example", Port: 2222}},
		{in: "ssh://devbox", want: Host{Name: "devbox"}},
		{in: "bob@devbox", want: Host{User: "bob", Name: "devbox"}},
		{in: "ssh://[::1]:22", want: Host{Name: "::1", Port: 22}},
		{in: "http://devbox", err: "want ssh://"},
		{in: "ssh://devbox/path", err: "want ssh://"},
		{in: "ssh://u:pw@devbox", err: "no password"},
		{in: "ssh://devbox:0", err: "port must be"},
		{in: "ssh://-oProxyCommand=x", err: "not a host name"},
		{in: "ssh://-u@devbox", err: "not a host name"},
		{in: "ssh://dev$(x)box", err: "not a host name"},
	} {
		got, err := ParseHost(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("ParseHost(%q) = %+v, %v; want an error with %q", c.in, got, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("ParseHost(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	if s := (Host{User: "a", Name: "::1", Port: 22}).String(); s != "ssh://a@[::1]:22" {
		t.Errorf("String = %q", s)
	}
}

func TestShellQuote(t *testing.T) {
	if got := shellQuote(`it's "x" $y`); got != `'it'\''s "x" $y'` {
		t.Errorf("shellQuote = %s", got)
	}
}

// echoServer serves t.echo (its params back) and t.big (n bytes of text)
// on a fresh socket.
func echoServer(t *testing.T) *ipc.Server {
	reg := ipc.NewRegistry()
	reg.Register("t.echo", func(_ context.Context, p json.RawMessage) (any, error) { return p, nil })
	reg.Register("t.big", func(_ context.Context, p json.RawMessage) (any, error) {
		var n int
		json.Unmarshal(p, &n)
		return strings.Repeat("x", n), nil
	})
	return ipctest.Start(t, reg)
}

// TestConnCalls: many calls at once, a Mux and replies larger than a
// record, all as channels of one bridge (one "ssh").
func TestConnCalls(t *testing.T) {
	srv := echoServer(t)
	env := fakeEnv(t, fakeSSHEnv+"="+srv.Path)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Dial(ctx, Host{Name: "fake"}, env)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Hello().Version != "test" || c.Hello().Protocol != ProtocolVersion {
		t.Fatalf("hello %+v", c.Hello())
	}
	cl := &ipc.Client{Path: "ssh://fake", Dial: c.Open}
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for g := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				var out map[string]int
				if err := cl.Call(ctx, "t.echo", map[string]any{"g": g, "i": i}, &out); err != nil {
					errs <- err
					return
				}
				if out["g"] != g || out["i"] != i {
					errs <- fmt.Errorf("echo %d/%d = %v", g, i, out)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var big string
	if err := cl.Call(ctx, "t.big", 200_000, &big); err != nil || len(big) != 200_000 {
		t.Fatalf("t.big: %d bytes, %v", len(big), err)
	}
	m, err := ipc.DialMuxWith(ctx, "ssh://fake", c.Open)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var out string
	if err := m.Call(ctx, "t.echo", "via-mux", &out); err != nil || out != "via-mux" {
		t.Fatalf("mux echo = %q, %v", out, err)
	}
	// A call's deadline holds on a channel as on a socket.
	short, cancel2 := context.WithTimeout(ctx, time.Nanosecond)
	defer cancel2()
	time.Sleep(time.Millisecond)
	if err := cl.Call(short, "t.echo", 1, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("call past its deadline: %v", err)
	}
}

// TestConnNoServer: a channel the bridge cannot dial fails with why.
func TestConnNoServer(t *testing.T) {
	env := fakeEnv(t, fakeSSHEnv+"=/nonexistent/paneflow.sock")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Dial(ctx, Host{Name: "fake"}, env)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = (&ipc.Client{Path: "ssh://fake", Dial: c.Open}).Call(ctx, "t.echo", 1, nil)
	var ce *ChannelError
	if !errors.As(err, &ce) || !strings.Contains(ce.Error(), "/nonexistent/paneflow.sock") || !strings.Contains(ce.Error(), "is `paneflow serve` running there?") {
		t.Fatalf("call with no server: %v", err)
	}
}

// TestDialIncompatible: another bridge protocol is refused with the fix,
// and ssh is reaped.
func TestDialIncompatible(t *testing.T) {
	env := fakeEnv(t, fakeHelloEnv+"=PANEFLOW-BRIDGE 99 linux amd64 v9")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := Dial(ctx, Host{Name: "fake"}, env)
	var ie *IncompatibleError
	if !errors.As(err, &ie) || ie.Remote.Version != "v9" || !strings.Contains(err.Error(), "paneflow host install ssh://fake") {
		t.Fatalf("Dial = %v", err)
	}
}

func TestClassify(t *testing.T) {
	h := Host{Name: "h"}
	for _, c := range []struct {
		code   int
		stderr string
		want   string
	}{
		{127, "sh: 1: exec: /home/u/.local/bin/paneflow: not found\n", "paneflow is not installed on ssh://h (sh: 1: exec: /home/u/.local/bin/paneflow: not found); run `paneflow host install ssh://h`"},
		{2, "paneflow: unknown verb 'bridge'; see …\n", "too old to have `paneflow bridge`"},
		{255, "ssh: connect to host h port 22: Connection refused\n", "ssh to ssh://h: ssh failed: ssh: connect to host h port 22: Connection refused"},
		{1, "boom\n", "did not start (exit status 1): boom"},
	} {
		if got := classify(h, c.code, c.stderr, "").Error(); !strings.Contains(got, c.want) {
			t.Errorf("classify(%d, %q) = %q; want %q in it", c.code, c.stderr, got, c.want)
		}
	}
}

func TestPlatform(t *testing.T) {
	for in, want := range map[string]string{"Linux\nx86_64\n": "linux/amd64", "Darwin arm64": "darwin/arm64", "Linux aarch64": "linux/arm64", "SunOS i86pc": ""} {
		goos, goarch, ok := platform(in)
		got := goos + "/" + goarch
		if !ok {
			got = ""
		}
		if got != want {
			t.Errorf("platform(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRedialer: after ssh ends, the next Open dials a new one.
func TestRedialer(t *testing.T) {
	srv := echoServer(t)
	r := &Redialer{Host: Host{Name: "fake"}, Env: fakeEnv(t, fakeSSHEnv+"="+srv.Path)}
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl := &ipc.Client{Path: "ssh://fake", Dial: r.Open}
	var out string
	if err := cl.Call(ctx, "t.echo", "one", &out); err != nil || out != "one" {
		t.Fatalf("first call = %q, %v", out, err)
	}
	r.mu.Lock()
	first := r.c
	r.mu.Unlock()
	first.cmd.Process.Kill() // ssh drops
	<-first.Done()
	if err := cl.Call(ctx, "t.echo", "two", &out); err != nil || out != "two" {
		t.Fatalf("call after ssh dropped = %q, %v", out, err)
	}
	r.mu.Lock()
	second := r.c
	r.mu.Unlock()
	if second == first {
		t.Fatal("the Redialer kept the dead connection")
	}
}

func TestHelloFeatures(t *testing.T) {
	for _, c := range []struct {
		line     string
		version  string
		features []string
	}{
		{"PANEFLOW-BRIDGE 1 linux amd64 v1.2", "v1.2", nil},
		{"PANEFLOW-BRIDGE 1 linux amd64 v1.2 +tcp", "v1.2", []string{"tcp"}},
		{"PANEFLOW-BRIDGE 1 linux amd64 dev build +tcp +x", "dev build", []string{"tcp", "x"}},
		{"PANEFLOW-BRIDGE 1 linux amd64 v1 +", "v1 +", nil},
	} {
		h, ok := parseHello(c.line)
		if !ok || h.Version != c.version || !slices.Equal(h.Features, c.features) {
			t.Errorf("parseHello(%q) = %+v, %v; want version %q, features %q", c.line, h, ok, c.version, c.features)
		}
		if ok && c.features != nil {
			if back, _ := parseHello(strings.TrimSuffix(h.line(), "\n")); back.Version != h.Version || !slices.Equal(back.Features, h.Features) {
				t.Errorf("round trip of %q: %+v", c.line, back)
			}
		}
	}
}

// TestConnTCP: a port forward over the bridge reaches an HTTP server on
// the host's loopback; a port nothing listens on fails with why; a
// bridge that does not announce the feature is not sent the record.
func TestConnTCP(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s", r.URL.Path)
	})}
	go hs.Serve(l)
	defer hs.Close()
	port := l.Addr().(*net.TCPAddr).Port

	env := fakeEnv(t, fakeSSHEnv+"=/nonexistent/paneflow.sock")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Dial(ctx, Host{Name: "fake"}, env)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !c.Hello().Has(FeatureTCP) {
		t.Fatalf("the bridge did not announce %q: %+v", FeatureTCP, c.Hello())
	}
	cl := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return c.OpenTCP(ctx, port)
	}}}
	for _, path := range []string{"/a", "/b"} {
		resp, err := cl.Get("http://forwarded" + path)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(body) != "hello from "+path {
			t.Fatalf("GET %s = %q, %v", path, body, err)
		}
	}

	// A port nothing listens on: the channel closes with the bridge's why.
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	freePort := free.Addr().(*net.TCPAddr).Port
	free.Close()
	nc, err := c.OpenTCP(ctx, freePort)
	if err != nil {
		t.Fatal(err)
	}
	_, err = nc.Read(make([]byte, 1))
	nc.Close()
	var ce *ChannelError
	if !errors.As(err, &ce) || ce.Port != freePort || !strings.Contains(err.Error(), "nothing answers on port") {
		t.Fatalf("read of a forward to a closed port: %v", err)
	}
	if _, err := c.OpenTCP(ctx, 70000); err == nil {
		t.Fatal("OpenTCP(70000) did not fail")
	}

	// The socket's channels still work beside the forwards.
	err = (&ipc.Client{Path: "ssh://fake", Dial: c.Open}).Call(ctx, "t.echo", 1, nil)
	if !errors.As(err, &ce) || ce.Port != 0 {
		t.Fatalf("socket call after forwards: %v", err)
	}

	old, err := Dial(ctx, Host{Name: "fake"}, fakeEnv(t, fakeHelloEnv+"=PANEFLOW-BRIDGE 1 linux amd64 v0.9"))
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if _, err := old.OpenTCP(ctx, port); !errors.Is(err, ErrNoTCP) || !strings.Contains(err.Error(), "paneflow host install ssh://fake") {
		t.Fatalf("OpenTCP on a bridge without the feature: %v", err)
	}
}

// TestDialLoopback: the bridge's T dial takes only a decimal port.
func TestDialLoopback(t *testing.T) {
	for _, p := range []string{"0", "65536", "-1", "80x", "080", "", "127.0.0.2:80"} {
		if _, err := dialLoopback(p)(context.Background()); err == nil || !strings.Contains(err.Error(), "not a TCP port") {
			t.Errorf("dialLoopback(%q) = %v, want a refusal", p, err)
		}
	}
}
