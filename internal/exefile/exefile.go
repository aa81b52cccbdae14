// Package exefile writes executable files that this process, or one it
// starts, will run.
//
// A file that some process holds open for writing cannot be executed
// (execve fails with ETXTBSY, "text file busy"). os.WriteFile closes its
// descriptor before it returns, but a child forked by another goroutine
// while the descriptor was open keeps a copy of it until that child
// calls exec, so a program written and then started at once fails now and
// then in a process that starts others concurrently (a server starting
// panes, parallel tests). Write holds syscall.ForkLock for reading while
// the file is open, as the syscall package asks of code creating
// descriptors, so no fork happens meanwhile and no child inherits it.
package exefile

import (
	"io/fs"
	"os"
	"syscall"
)

// Write writes data to name with permissions perm (before the umask),
// creating or truncating it, as os.WriteFile does, with no child process
// of this one inheriting the descriptor open for writing. It is safe for
// concurrent use; it delays forks in this process while it writes.
func Write(name string, data []byte, perm fs.FileMode) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	return os.WriteFile(name, data, perm)
}
