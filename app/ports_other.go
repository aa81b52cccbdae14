//go:build !linux

package app

// listeningPorts finds listening ports only on Linux (through /proc);
// elsewhere it reports none, and panes show no port chips.
func listeningPorts(roots []int) map[int][]int { return nil }

// portCache is the Linux cache of listening ports; elsewhere there are
// none to remember.
type portCache struct{}

// listeningPorts reports no ports (see the package's listeningPorts).
func (*portCache) listeningPorts(roots []int) map[int][]int { return nil }
