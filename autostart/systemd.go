package autostart

import (
	"fmt"
	"strings"
)

// SystemdName is the user unit's file name.
const SystemdName = "paneflow.service"

// SystemdUnit returns the text of the systemd user unit that runs argv
// (argv[0] absolute). Each argument is quoted for ExecStart (systemd's
// C-style escapes inside double quotes, `%` and `$` doubled so that no
// specifier or variable is expanded); an argument with a newline or
// another control character is refused.
func SystemdUnit(argv []string) ([]byte, error) {
	quoted := make([]string, len(argv))
	for i, a := range argv {
		if strings.ContainsFunc(a, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return nil, fmt.Errorf("autostart: the argument %q holds a control character", a)
		}
		r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `%`, `%%`, `$`, `$$`)
		quoted[i] = `"` + r.Replace(a) + `"`
	}
	return []byte(`# ` + Marker + `; ` + "`paneflow service uninstall`" + ` removes it.
[Unit]
Description=Paneflow server (terminal panes and coding agents that outlive the window)
Documentation=https://github.com/paneflow-go/paneflow

[Service]
Type=simple
ExecStart=` + strings.Join(quoted, " ") + `
# SIGTERM: the server saves its session, then ends its panes.
Restart=on-failure
RestartSec=2
TimeoutStopSec=30

[Install]
WantedBy=default.target
`), nil
}
