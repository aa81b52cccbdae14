package app

import (
	"context"
	"fmt"
	"os"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/config"
	"github.com/paneflow-go/paneflow/proto"
)

// restartTimeout bounds restarting a lost server and reattaching to it
// (the server restores its session, resuming agents, before it answers).
const restartTimeout = 60 * time.Second

// stopTimeout bounds the system.shutdown call of "Stop everything".
const stopTimeout = 10 * time.Second

// reattacher is a backend that can attach again to a server restarted on
// the same socket (the attached backend).
type reattacher interface {
	Reattach(ctx context.Context) error
}

// serve runs the backend until Shutdown. When an attached window's server
// goes away (killed, crashed) the window keeps its last picture, says so
// in the banner with a "Restart server and restore" action, and on that
// action starts the server again (Options.RestartServer: it restores its
// session), reattaches and shows the restored panes.
func (s *shell) serve(ctx context.Context) error {
	for {
		err := s.b.Serve(ctx)
		r, ok := s.b.(reattacher)
		if err == nil || s.life.stopping.Load() {
			return nil // detached, or the server was asked to end
		}
		if !ok || s.o.RestartServer == nil {
			return err
		}
		select {
		case <-s.life.done:
			return nil
		default:
		}
		s.life.lost.Store(true)
		s.logf("paneflow: server lost: %v", err)
		msg := fmt.Sprintf("The Paneflow server on %s is gone (%v). The panes show what they last showed; "+
			"restarting it restores its session and resumes the agents that can be.", s.b.Endpoint(), err)
		s.do(func() {
			s.bannerActionLocked(msg, "Restart server and restore", s.requestRestart)
			s.probeBannerActionLocked()
		})
		for {
			select {
			case <-s.life.done:
				return nil
			case <-s.life.restart:
			}
			s.logf("paneflow: restarting the server on %s", s.b.Endpoint())
			rctx, cancel := context.WithTimeout(ctx, restartTimeout)
			err := s.o.RestartServer(rctx)
			if err == nil {
				err = r.Reattach(rctx)
			}
			cancel()
			if err == nil {
				break
			}
			s.logf("paneflow: restarting the server: %v", err)
			s.do(func() {
				s.bannerActionLocked("Restarting the server failed: "+err.Error(), "Try again", s.requestRestart)
			})
		}
		snap := takeSnapshot(s.b, nil)
		s.life.lost.Store(false)
		s.do(func() {
			s.reattachedLocked(snap)
			s.logf("paneflow: reattached socket=%s", s.b.Endpoint())
		})
	}
}

// probeBannerActionLocked writes where the banner's button is, in window
// pixels, when PANEFLOW_UI_PROBE=1 (the GUI tests click it).
func (s *shell) probeBannerActionLocked() {
	s.probePlacedLocked(func() (string, bool) {
		l, ok := s.probeLineLocked("banner-action", s.chrome.banner.action)
		return l, ok && s.chrome.banner.action.Visible() && s.chrome.banner.action.Size().Width > 0
	})
}

// probeBannerLocked writes, when PANEFLOW_UI_PROBE=1, where the banner is
// and what it says once it was laid out: its top, height and minimum
// height, and the top of what is below it (the toolbar's side), in window
// pixels, and the centre of its close button: `ui-probe banner y=…
// height=… min=… below=… close=X,Y text="…"` (the GUI tests check that
// the window was laid out again around it, and dismiss it).
func (s *shell) probeBannerLocked() {
	s.probePlacedLocked(func() (string, bool) {
		b := s.chrome.banner.root
		c, ok := s.w.Content().(*fyne.Container)
		if !ok || len(c.Objects) == 0 || !b.Visible() || b.Size().Height == 0 || s.a.Driver().CanvasForObject(b) == nil {
			return "", false
		}
		d, sc := s.a.Driver(), s.w.Canvas().Scale()
		px := func(v float32) int { return int(v * sc) }
		cl := d.AbsolutePositionForObject(s.chrome.banner.close).Add(fyne.NewPos(s.chrome.banner.close.Size().Width/2, s.chrome.banner.close.Size().Height/2))
		return fmt.Sprintf("ui-probe banner y=%d height=%d min=%d below=%d close=%d,%d text=%q",
			px(d.AbsolutePositionForObject(b).Y), px(b.Size().Height), px(b.MinSize().Height),
			px(d.AbsolutePositionForObject(c.Objects[0]).Y), px(cl.X), px(cl.Y), s.chrome.banner.text.Text), true
	})
}

// probePlacedLocked writes probe's line, when PANEFLOW_UI_PROBE=1, once
// it reports that what it looks at has a place: a widget has one once a
// frame laid it out, so it looks every 50 ms for up to 10 s (posted work
// alone can run many times before a frame). probe runs holding the lock.
func (s *shell) probePlacedLocked(probe func() (line string, placed bool)) {
	if os.Getenv("PANEFLOW_UI_PROBE") != "1" {
		return
	}
	go func() {
		for range 200 {
			select {
			case <-s.life.done:
				return
			case <-time.After(50 * time.Millisecond):
			}
			found := make(chan bool, 1)
			s.do(func() {
				l, ok := probe()
				if ok {
					fmt.Fprintln(os.Stderr, l)
				}
				found <- ok
			})
			select {
			case ok := <-found:
				if ok {
					return
				}
			case <-s.life.done:
				return
			}
		}
	}()
}

// bannerActionLocked shows msg in the banner with a button (see
// banner.showAction) and lays the window out again: the banner grows (or
// first appears) while nothing else may change on a lost server's window.
func (s *shell) bannerActionLocked(msg, label string, f func()) {
	s.chrome.banner.showAction(msg, label, f)
	s.w.Content().Refresh()
}

// requestRestart is the banner's restart action (on the UI goroutine).
func (s *shell) requestRestart() {
	s.life.requestRestart()
	s.guard(func() { s.bannerActionLocked("Restarting the server…", "", nil) })
}

// reattachedLocked shows the restarted server's model: every view of the
// lost server's panes is replaced (the new server numbers its panes
// afresh), and so is what the window knew about their agents.
func (s *shell) reattachedLocked(snap *snapshot) {
	if s.life.quitting {
		return
	}
	s.closeOverlaysLocked()
	s.closeViewsLocked()
	s.agents = agentBoard{now: s.agents.now}
	clear(s.panes.attention)
	clear(s.panes.groups)
	clear(s.panes.queued)
	s.pos.zoom, s.pos.focus = 0, 0
	s.chrome.banner.dismiss()
	s.bannerActionLocked("The server was restarted on "+s.b.Endpoint()+" and its session restored.", "", nil)
	s.applyLocked(snap, nil)
}

// quitRequestedLocked is the quit action. A window hosting the panes asks
// as its close button does (closeRequestedLocked); an attached one does
// what the config's quit_action says: ask "Detach (agents keep running)"
// or "Stop everything", or do one of them.
func (s *shell) quitRequestedLocked() {
	if !s.b.OutlivesWindow() {
		s.closeRequestedLocked()
		return
	}
	switch s.conf.cfg.QuitAction {
	case config.QuitDetach:
		s.quitLocked()
		return
	case config.QuitStop:
		s.stopEverythingLocked()
		return
	}
	var d *dialog.CustomDialog
	detach := widget.NewButton("Detach (agents keep running)", func() {
		d.Hide()
		s.guard(s.quitLocked)
	})
	detach.Importance = widget.HighImportance
	stop := widget.NewButton("Stop everything", func() {
		d.Hide()
		s.guard(s.stopEverythingLocked)
	})
	stop.Importance = widget.DangerImportance
	cancel := widget.NewButton("Cancel", func() { d.Hide() })
	msg := widget.NewLabel("Detach: the window closes; the server, its panes and agents keep running,\n" +
		"and the next window attaches to them.\n" +
		"Stop everything: the server saves its session and ends every pane's program.\n" +
		"(quit_action in the config file makes either the default.)")
	d = dialog.NewCustomWithoutButtons("Quit Paneflow?", msg, s.w)
	d.SetButtons([]fyne.CanvasObject{cancel, stop, detach})
	s.showDialogLocked(d, nil, detach.OnTapped, d.Hide) // Enter: the highlighted, safe answer
}

// stopEverythingLocked ends the server (system.shutdown: it saves its
// session, then closes every pane), then quits. The call runs off the UI
// goroutine; a failure is shown and the window stays.
func (s *shell) stopEverythingLocked() {
	if s.life.quitting {
		return
	}
	s.life.stopping.Store(true)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
		defer cancel()
		_, err := proto.Client{Caller: s.b.Caller(stopTimeout)}.Shutdown(ctx)
		s.do(func() {
			if err != nil {
				s.life.stopping.Store(false)
				s.chrome.banner.show("Stop everything: " + err.Error())
				return
			}
			s.logf("paneflow: stopped the server on %s", s.b.Endpoint())
			s.quitLocked()
		})
	}()
}
