// Package notify shows desktop notifications for agents that need the
// user when no window is there to do it: the server's own notifier
// (issue 26, "notifications still reach the user" after the window is
// closed).
//
// [Message] is what a notification about an agent's state change says
// (the window's notifications use it too, so both say the same). A
// [Service] is the "notify" subsystem: it follows the bus's AgentState
// events and, while no window is attached ([Options.Windows] reports 0),
// hands the worthy ones to a [Notifier]. [Desktop] returns this system's
// notifier: the freedesktop.org Notifications service over the session
// D-Bus on Linux and the BSDs (what Fyne's window uses there), osascript's
// `display notification` on macOS, a toast through Windows PowerShell and
// WinRT's ToastNotificationManager on Windows ([Toast]).
//
// # Untrusted text
//
// A notification's title and body hold an agent's words (its question,
// its result), which a repository or a web page can steer. No notifier
// puts them in a command line or in source code: D-Bus carries them as
// call arguments, osascript gets them as `on run argv` arguments, and
// the Windows toast's constant PowerShell script reads them as escaped
// toast XML from an environment variable ([ToastXML], [ToastEnv]).
//
// What the package does not do: it keeps no history of notifications,
// has no actions on them (a click opens nothing), and does not decide
// whether a window is attached: the server's screen.attach streams do
// (package api).
package notify
