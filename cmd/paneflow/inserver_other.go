//go:build !client

package main

import "fmt"

// runInServer is never reached in this build: only the client build marks
// verbs cli.Verb.InServer.
func runInServer(_ *invocation, argv []string) error {
	return fmt.Errorf("%s: this build should run the verb itself", argv[0])
}
