//go:build !race

package mcpe2e

const raceEnabled = false
