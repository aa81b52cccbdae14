package conform

import (
	"os"
	"testing"

	"github.com/paneflow-go/paneflow/test/internal/vtrelay"
)

// relayArg, as the test binary's first argument, makes it the relay
// (vtrelay.Main) instead of running tests: the terminals under test run
// it as their program.
const relayArg = "-vtrelay"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == relayArg {
		os.Exit(vtrelay.Main(os.Args[2:]))
	}
	os.Exit(m.Run())
}
