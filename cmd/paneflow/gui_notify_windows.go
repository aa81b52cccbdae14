//go:build !nogui && !client && windows

package main

import (
	"context"
	"sync"
	"time"

	"fyne.io/fyne/v2"

	"github.com/paneflow-go/paneflow/notify"
)

// toastTimeout bounds one of the window's toasts.
const toastTimeout = 10 * time.Second

// toastApp is the desktop app with Fyne's Windows notifications replaced
// by notify.Toast. Fyne's put the title and body into PowerShell source
// between double quotes, escaping only ` and ": an agent's question
// holding "$(...)" would run as PowerShell. notify.Toast passes them as
// escaped XML in the environment instead.
type toastApp struct {
	fyne.App
	logf func(string, ...any)
	wg   *sync.WaitGroup
}

// SendNotification shows n as a toast in the background (the window's
// callers hold its lock), bounded by toastTimeout.
func (a toastApp) SendNotification(n *fyne.Notification) {
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), toastTimeout)
		defer cancel()
		if err := (notify.Toast{}).Notify(ctx, n.Title, n.Content); err != nil {
			a.logf("paneflow: desktop notification %q: %v", n.Title, err)
		}
	}()
}

// guiApp returns the app the window runs on, and wait, which returns once
// the notifications being shown are (each bounded by toastTimeout).
func guiApp(a fyne.App, logf func(string, ...any)) (fyne.App, func()) {
	wg := new(sync.WaitGroup)
	return toastApp{App: a, logf: logf, wg: wg}, wg.Wait
}
