// Package webtest drives a real browser against `paneflow serve --web`
// for the end-to-end tests (test/web, test/agents): Debian's headless
// Chromium over the DevTools protocol with chromedp, in a phone-sized
// window. A test skips when no Chromium is installed (scripts/deps.sh
// installs it). Every wait is bounded by [PollTimeout] and fails the test
// with the page's address and text.
package webtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// PollTimeout bounds a wait for the page to show something on a loaded
// machine; no test asserts that anything is fast.
const PollTimeout = 60 * time.Second

// PhoneWidth and PhoneHeight are the viewport: a 390×844 phone.
const PhoneWidth, PhoneHeight = 390, 844

// Chromium finds Debian's Chromium on PATH, or skips the test.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"chromium", "chromium-browser"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	t.Skip("no chromium on PATH (scripts/deps.sh installs it)")
	return ""
}

// Browser starts a headless Chromium with a phone-sized viewport and
// returns its context; the browser ends when the test does.
func Browser(t testing.TB) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(Chromium(t)),
		chromedp.NoSandbox, // the tests may run as root
		chromedp.WindowSize(PhoneWidth, PhoneHeight),
		chromedp.UserDataDir(t.TempDir()),
	)
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		acancel() // ends the browser process
	})
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(PhoneWidth, PhoneHeight)); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// Do runs chromedp actions within PollTimeout; what names them in a
// failure.
func Do(t testing.TB, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, PollTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v\n%s", what, err, state(ctx))
	}
}

// Get runs one chromedp action with a value within PollTimeout.
func Get[T any](t testing.TB, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, PollTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v\n%s", what, err, state(ctx))
	}
	return v
}

// Poll waits until the page's JavaScript expression is truthy.
func Poll(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(PollTimeout))
}

// state describes the page for a failure: its address and text.
func state(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	st, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + '\n' + document.body.innerText`))
	if err != nil {
		return "(the page's state could not be read: " + err.Error() + ")"
	}
	return "the page: " + st
}

// Pair opens a pairing link (`paneflow web pair`'s) and confirms it,
// ending on the overview with at least one pane listed.
func Pair(t testing.TB, ctx context.Context, link string) {
	t.Helper()
	Do(t, ctx, "pairing",
		chromedp.Navigate(link),
		chromedp.WaitVisible(chromedp.CSS("#pairbtn")),
		chromedp.Click(chromedp.CSS("#pairbtn")),
		chromedp.WaitVisible(chromedp.CSS("#panes .card")),
	)
}

// Base is the web client's address of a pairing link, ending in "/".
func Base(link string) string {
	base, _, _ := strings.Cut(link, "/pair#")
	return base + "/"
}

// Rows is the open pane's rows as the page shows them, right-trimmed,
// without the trailing empty ones.
func Rows(t testing.TB, ctx context.Context) []string {
	t.Helper()
	rows := Get(t, ctx, "reading the page's rows", chromedp.Evaluate[[]string](`window.paneflowRows()`))
	for len(rows) > 0 && rows[len(rows)-1] == "" {
		rows = rows[:len(rows)-1]
	}
	return rows
}

// Shot saves a screenshot of the viewport as name under
// $PANEFLOW_WEB_SHOTS, when that is set.
func Shot(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("PANEFLOW_WEB_SHOTS")
	if dir == "" {
		return
	}
	png := Get(t, ctx, "screenshot", chromedp.CaptureScreenshot())
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
