//go:build race

package terminal

// raceOn reports that the race detector is on (it changes what the heap holds).
const raceOn = true
