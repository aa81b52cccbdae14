package autostart

import (
	"bytes"
	"encoding/xml"
)

// LaunchdLabel is the launchd agent's label and file name (without
// .plist).
const LaunchdLabel = "dev.paneflow.server"

// LaunchdPlist returns the launchd agent that runs argv at login, keeps
// it running when it fails (not after a clean exit: `paneflow
// kill-server`), and appends its output to logPath.
func LaunchdPlist(argv []string, logPath string) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- ` + Marker + `; ` + "`paneflow service uninstall`" + ` removes it. -->
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + LaunchdLabel + `</string>
	<key>ProgramArguments</key>
	<array>
`)
	for _, a := range argv {
		b.WriteString("\t\t<string>")
		xml.EscapeText(&b, []byte(a))
		b.WriteString("</string>\n")
	}
	b.WriteString(`	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
	<key>ProcessType</key>
	<string>Interactive</string>
	<key>StandardOutPath</key>
	<string>`)
	xml.EscapeText(&b, []byte(logPath))
	b.WriteString(`</string>
	<key>StandardErrorPath</key>
	<string>`)
	xml.EscapeText(&b, []byte(logPath))
	b.WriteString(`</string>
</dict>
</plist>
`)
	return b.Bytes()
}
