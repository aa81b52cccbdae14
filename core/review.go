package core

import (
	"path/filepath"
	"runtime"
	"time"

	"github.com/paneflow-go/paneflow/internal/spectrust"
	"github.com/paneflow-go/paneflow/internal/userdir"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/review"
)

// newReview builds the review subsystem, keeping its comment files in
// dir ("" when there is none: its methods say so) and reaching the panes through the socket at
// socketPath, as a client does.
func newReview(dir, socketPath string, getenv func(string) string) *review.Service {
	return review.New(review.Options{
		Dir: dir,
		// A repository's checks run once the user trusts its
		// .paneflow.toml, in the store `paneflow trust` writes.
		Trust: func(path string, data []byte) (spectrust.Status, error) {
			st, err := spectrust.Default(getenv, runtime.GOOS)
			if err != nil {
				return spectrust.Untrusted, err
			}
			return st.Check(path, data)
		},
		Dial: func(timeout time.Duration) proto.Caller {
			return &ipc.Client{Path: socketPath, Timeout: timeout}
		},
	})
}

// reviewDir resolves Options.ReviewDir: "" is the state directory's
// paneflow/review, "-" none.
func (o Options) reviewDir(getenv func(string) string, logf func(string, ...any)) string {
	switch o.ReviewDir {
	case "-":
		return ""
	case "":
		base, err := userdir.Base(userdir.State, getenv, runtime.GOOS)
		if err != nil {
			logf("paneflow: review: %v", err)
			return ""
		}
		return filepath.Join(base, "paneflow", "review")
	}
	return o.ReviewDir
}
