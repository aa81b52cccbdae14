package notify

import "context"

// Notifier shows one desktop notification. Implementations must be safe
// for concurrent use; Notify may block (a D-Bus call, a process) up to
// ctx's deadline.
type Notifier interface {
	Notify(ctx context.Context, title, body string) error
}

// NotifierFunc adapts a function to [Notifier].
type NotifierFunc func(ctx context.Context, title, body string) error

// Notify calls f.
func (f NotifierFunc) Notify(ctx context.Context, title, body string) error {
	return f(ctx, title, body)
}

// appName is the application name notifications carry.
const appName = "Paneflow"
