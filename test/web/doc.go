// Package web tests the browser client of `paneflow serve --web` in a real
// browser: the built server, Debian's headless Chromium driven over the
// DevTools protocol by chromedp. A test pairs through the link `paneflow
// web pair` prints, reads the overview, opens a pane and compares every
// row the page shows with `paneflow read` of the pane, types into the
// composer, and takes phone-sized screenshots (into $PANEFLOW_WEB_SHOTS
// when set). The tests skip when no Chromium is installed
// (scripts/deps.sh installs it); they run on Linux only.
package web
