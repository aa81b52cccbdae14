package notify

import (
	"context"
	"sync"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/subsystem"
)

// notifyTimeout bounds one notification (a D-Bus call, osascript).
const notifyTimeout = 10 * time.Second

// Options configures [New].
type Options struct {
	// Notifier shows the notifications; required.
	Notifier Notifier
	// Windows reports how many windows are attached now; the service
	// notifies only while it reports 0. Required.
	Windows func() int
	// PaneName names a pane in the text ("" or nil: the pane is not
	// named). It is called only for a state change that is notified.
	PaneName func(surface uint64) string
}

// Service is the "notify" subsystem: while no window is attached it
// shows a desktop notification for each agent state change that
// [Message] finds worth one. Create it with [New]; Init starts its one
// goroutine and Shutdown stops it and waits. Notifications are shown one
// at a time, in order; a failed one is logged once per run of failures
// and does not stop the next.
type Service struct {
	o    Options
	logf func(string, ...any)
	sub  *bus.Subscription
	wg   sync.WaitGroup
}

// New returns the service; it does nothing until Init.
func New(o Options) *Service { return &Service{o: o} }

var _ subsystem.Subsystem = (*Service)(nil)

// Name is "notify".
func (*Service) Name() string { return "notify" }

// Init subscribes to the agents' states and starts the service's
// goroutine.
func (s *Service) Init(h *subsystem.Host) error {
	s.logf = h.Logf
	s.sub = h.Bus.Subscribe("notify", bus.MatchTypes(bus.TypeAgentState), 256)
	s.wg.Add(1)
	go s.run()
	return nil
}

// Shutdown stops the service and waits for a notification being shown
// (bounded by notifyTimeout) or ctx.
func (s *Service) Shutdown(ctx context.Context) error {
	s.sub.Close()
	return subsystem.Wait(ctx, &s.wg)
}

func (s *Service) run() {
	defer s.wg.Done()
	var evs []bus.Event
	failing := false
	for {
		select {
		case <-s.sub.Ready():
		case <-s.sub.Done():
			return
		}
		evs, _ = s.sub.Drain(evs)
		for _, e := range evs {
			ev, ok := e.(bus.AgentState)
			if !ok || s.o.Windows() > 0 {
				continue
			}
			// Whether a state change is worth a notification does not
			// depend on the pane's name, and naming a pane can cost a
			// look at every pane (workspace.Surface.Info resolves the
			// display names of all of them): a fleet's agents change
			// state on every hook frame, so the name is looked up only
			// for a notification that will be shown.
			if _, _, ok := Message(ev, ""); !ok {
				continue
			}
			pane := ""
			if s.o.PaneName != nil && ev.SurfaceID != 0 {
				pane = s.o.PaneName(ev.SurfaceID)
			}
			title, body, _ := Message(ev, pane)
			ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
			err := s.o.Notifier.Notify(ctx, title, body)
			cancel()
			if err != nil && !failing && s.logf != nil {
				s.logf("paneflow: desktop notification %q: %v", title, err)
			}
			failing = err != nil
		}
	}
}
