package autostart

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
)

// TaskPrefix begins the Windows logon task's name; the user's id (a SID)
// follows it, because task names are one namespace for the whole machine
// and two users of one computer each have their own task.
const TaskPrefix = "Paneflow server "

// TaskXML returns the Task Scheduler definition (the XML `schtasks
// /Create /XML` reads) of the logon task that runs argv (argv[0] an
// absolute path) for user (a SID, or DOMAIN\name), in dir.
//
// It is what `schtasks /Create /SC ONLOGON /TR ...` cannot express:
//   - the logon trigger names the user: a trigger for any user's logon
//     needs an administrator (MS-TSCH's rules for registering a logon
//     trigger), one naming the registering user does not;
//   - it runs as that user, in the session they log on to (an
//     interactive token, so notifications reach their desktop), with
//     least privilege;
//   - no 72-hour time limit, and it neither waits for nor stops at
//     battery power (schtasks' defaults for a laptop would end the server
//     when the charger is unplugged);
//   - normal process priority (a task's default, 7, is below normal, and
//     every agent the server starts would inherit it);
//   - a second start while it runs is ignored, and a failed start is
//     retried three times a minute apart.
//
// Each argument after argv[0] is quoted as Windows programs split their
// command line ([WindowsArg]). An argument with a control character, or
// with two % (Task Scheduler expands %NAME% in a task's command), is
// refused. The description carries [Marker] and a hash of the
// definition, so an install can tell an unchanged task of its own.
func TaskXML(argv []string, user, dir string) ([]byte, error) {
	if len(argv) == 0 || user == "" {
		return nil, fmt.Errorf("autostart: a logon task needs a program and a user")
	}
	for _, a := range append([]string{user, dir}, argv...) {
		if strings.ContainsFunc(a, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return nil, fmt.Errorf("autostart: %q holds a control character", a)
		}
		if strings.Count(a, "%") > 1 {
			return nil, fmt.Errorf("autostart: %q holds %%...%%, which Task Scheduler would expand", a)
		}
	}
	body := taskXMLBody(argv, user, dir)
	sum := sha256.Sum256([]byte(body))
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-16"?>
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo>
    <Author>Paneflow</Author>
    <Description>Runs the Paneflow server (terminal panes and coding agents that outlive the window) at logon. `)
	b.WriteString(Marker + "; `paneflow service uninstall` removes it. Definition " + TaskHash(sum[:]) + ".")
	b.WriteString("</Description>\n  </RegistrationInfo>\n")
	b.WriteString(body)
	b.WriteString("</Task>\n")
	return b.Bytes(), nil
}

// TaskHash is how a definition's hash is written in its description.
func TaskHash(sum []byte) string { return "pf-" + hex.EncodeToString(sum[:8]) }

// taskHashIn returns the definition hash written in a task's exported
// XML, or "".
func taskHashIn(exported string) string {
	_, after, ok := strings.Cut(exported, "Definition pf-")
	if !ok || len(after) < 16 {
		return ""
	}
	return "pf-" + after[:16]
}

// taskXMLBody is the definition after RegistrationInfo.
func taskXMLBody(argv []string, user, dir string) string {
	esc := func(s string) string {
		var b strings.Builder
		xml.EscapeText(&b, []byte(s))
		return b.String()
	}
	args := make([]string, len(argv)-1)
	for i, a := range argv[1:] {
		args[i] = WindowsArg(a)
	}
	wd := ""
	if dir != "" {
		wd = "\n      <WorkingDirectory>" + esc(dir) + "</WorkingDirectory>"
	}
	return `  <Triggers>
    <LogonTrigger>
      <Enabled>true</Enabled>
      <UserId>` + esc(user) + `</UserId>
    </LogonTrigger>
  </Triggers>
  <Principals>
    <Principal id="Author">
      <UserId>` + esc(user) + `</UserId>
      <LogonType>InteractiveToken</LogonType>
      <RunLevel>LeastPrivilege</RunLevel>
    </Principal>
  </Principals>
  <Settings>
    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>
    <AllowHardTerminate>true</AllowHardTerminate>
    <StartWhenAvailable>false</StartWhenAvailable>
    <RunOnlyIfNetworkAvailable>false</RunOnlyIfNetworkAvailable>
    <IdleSettings>
      <StopOnIdleEnd>false</StopOnIdleEnd>
      <RestartOnIdle>false</RestartOnIdle>
    </IdleSettings>
    <AllowStartOnDemand>true</AllowStartOnDemand>
    <Enabled>true</Enabled>
    <Hidden>false</Hidden>
    <RunOnlyIfIdle>false</RunOnlyIfIdle>
    <WakeToRun>false</WakeToRun>
    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>
    <Priority>5</Priority>
    <RestartOnFailure>
      <Interval>PT1M</Interval>
      <Count>3</Count>
    </RestartOnFailure>
  </Settings>
  <Actions Context="Author">
    <Exec>
      <Command>` + esc(argv[0]) + `</Command>
      <Arguments>` + esc(strings.Join(args, " ")) + `</Arguments>` + wd + `
    </Exec>
  </Actions>
`
}

// WindowsArg quotes one argument so that a Windows program's command-line
// parser (the C runtime's, CommandLineToArgvW, Go's os.Args) reads it
// back as it was: as is when it has no space, tab or double quote and is
// not empty; else in double quotes, a quote escaped with a backslash, and
// the backslashes before a quote or the closing quote doubled.
func WindowsArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"") {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			slashes++
		case '"':
			b.WriteString(strings.Repeat(`\`, slashes+1))
			slashes = 0
		default:
			slashes = 0
		}
		b.WriteByte(s[i])
	}
	b.WriteString(strings.Repeat(`\`, slashes))
	b.WriteByte('"')
	return b.String()
}

// utf16File encodes text as UTF-16LE with a byte-order mark: the form
// `schtasks /Create /XML` reads whatever the system's code page.
func utf16File(text []byte) []byte {
	u := utf16.Encode([]rune(string(text)))
	out := make([]byte, 2, 2+2*len(u))
	out[0], out[1] = 0xff, 0xfe
	for _, c := range u {
		out = append(out, byte(c), byte(c>>8))
	}
	return out
}

// decodeOutput reads a program's output that may be UTF-16LE (schtasks
// /Query /XML writes it so to a pipe on some systems) or bytes.
func decodeOutput(b []byte) string {
	le := bytes.HasPrefix(b, []byte{0xff, 0xfe})
	if le {
		b = b[2:]
	} else if len(b) >= 4 && b[1] == 0 && b[3] == 0 && b[0] != 0 {
		le = true
	}
	if !le {
		return string(b)
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return string(utf16.Decode(u))
}

// taskDisabled reports whether an exported task definition has its
// Settings' Enabled set to false (the trigger's own Enabled is ours,
// always true).
func taskDisabled(exported string) bool {
	var t struct {
		Enabled string `xml:"Settings>Enabled"`
	}
	// An XML that does not parse (a truncated export) reads as enabled:
	// schtasks would have failed instead.
	d := xml.NewDecoder(strings.NewReader(exported))
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	if d.Decode(&t) != nil {
		return false
	}
	return strings.TrimSpace(t.Enabled) == "false"
}
