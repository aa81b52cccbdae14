//go:build client

package cli

import (
	"context"
	"errors"
)

// specVerbsInServer: this build hands up and flow to the server binary.
const specVerbsInServer = true

// errInServer is what runUp and runFlow return if called in this build
// anyway: the program must hand the verb over (Verb.InServer) instead.
var errInServer = errors.New("this paneflow is the command-line client; `up` and `flow` run in the server binary (paneflow-server) next to it")

func runUp(context.Context, *session, *input) error   { return errInServer }
func runFlow(context.Context, *session, *input) error { return errInServer }
