package notify

// Desktop returns [ErrUnsupported]: on Windows the server shows no
// notifications of its own yet (a window shows them while one is open).
func Desktop() (Notifier, error) { return nil, ErrUnsupported }
