//go:build !linux

package ports

// Listening finds listening ports only on Linux (through /proc);
// elsewhere it reports none.
func Listening(roots []int) map[int][]int { return nil }

// Cache is the Linux cache of listening ports; elsewhere there are
// none to remember.
type Cache struct{}

// Listening reports no ports (see the package's [Listening]).
func (*Cache) Listening(roots []int) map[int][]int { return nil }
