//go:build !linux

package terminal

import (
	"errors"
	"time"
)

// cpuDemand is not reported on this system (see the Linux version).
func (p *PTY) cpuDemand() (time.Duration, error) {
	return 0, errors.ErrUnsupported
}
