//go:build race

package shim

const raceEnabled = true
