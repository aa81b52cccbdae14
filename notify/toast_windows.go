package notify

import (
	"os/exec"
	"syscall"
)

// createNoWindow is CREATE_NO_WINDOW (winbase.h): the console program
// gets no console window (the server has none to share when it runs
// detached or from the logon task).
const createNoWindow = 0x08000000

// Desktop returns this system's notifier: [Toast].
func Desktop() (Notifier, error) { return Toast{}, nil }

// hideConsole starts cmd without a console window.
func hideConsole(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: createNoWindow, HideWindow: true}
}
