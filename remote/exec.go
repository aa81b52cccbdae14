package remote

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
)

// Exec runs `paneflow args...` on h over ssh with the given streams and
// returns its exit status: for verbs that run on the host itself (up and
// flow run, whose specs, working directories, agents and git are the
// host's; trust and untrust, whose trust store is the host's). tty asks
// ssh for a terminal, so a question can be answered and Ctrl-C reaches
// the remote program. Cancelling ctx interrupts ssh. A host without
// paneflow is a *[NotInstalledError]; ssh's own failure (status 255) an
// *[SSHError].
func Exec(ctx context.Context, h Host, e Env, tty bool, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	cmd := h.command(e, tty, args...)
	cmd.Stdin, cmd.Stdout = stdin, stdout
	errb := &tailBuffer{max: 8 << 10}
	cmd.Stderr = io.MultiWriter(stderr, errb)
	if err := cmd.Start(); err != nil {
		return 0, &SSHError{Host: h, Err: err}
	}
	stop := context.AfterFunc(ctx, func() { cmd.Process.Signal(os.Interrupt) })
	defer stop()
	err := cmd.Wait()
	if err == nil {
		return 0, nil
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return 0, &SSHError{Host: h, Err: err}
	}
	switch code := ee.ExitCode(); code {
	case 127, 255:
		return code, classify(h, code, errb.String(), "")
	default:
		return code, nil
	}
}

// output runs sh -c script on h and returns its stdout; a failure is
// classified as [Exec]'s. stdin, if not nil, is its input.
func output(ctx context.Context, h Host, e Env, stdin io.Reader, script string, args ...string) (string, error) {
	cmd := h.shell(e, false, script, append([]string{"sh"}, args...)...)
	cmd.Stdin = stdin
	var out bytes.Buffer
	errb := &tailBuffer{max: 8 << 10}
	cmd.Stdout, cmd.Stderr = &out, errb
	if err := cmd.Start(); err != nil {
		return "", &SSHError{Host: h, Err: err}
	}
	stop := context.AfterFunc(ctx, func() { cmd.Process.Kill() })
	defer stop()
	if err := cmd.Wait(); err != nil {
		code := -1
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		if code == 255 {
			return out.String(), &SSHError{Host: h, Err: errors.New("ssh failed"), Stderr: errb.String()}
		}
		return out.String(), &SSHError{Host: h, Err: err, Stderr: lastLine(errb.String())}
	}
	return out.String(), nil
}
