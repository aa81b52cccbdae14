//go:build windows

package worktree

import (
	"context"
	"os/exec"
	"strconv"
)

func shellCommand(ctx context.Context, script string) *exec.Cmd {
	return exec.CommandContext(ctx, "cmd", "/C", script)
}

// killGroupOnCancel makes cancelling cmd's context end its whole process
// tree (taskkill /T), falling back to killing the shell alone.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.Cancel = func() error {
		if err := exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(cmd.Process.Pid)).Run(); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
}
