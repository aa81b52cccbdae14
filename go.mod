module github.com/paneflow-go/paneflow

go 1.26.0

require (
	fyne.io/fyne/v2 v2.7.1
	github.com/BurntSushi/toml v1.6.0
	github.com/Microsoft/go-winio v0.6.4
	github.com/UserExistsError/conpty v0.1.4
	github.com/charmbracelet/x/ansi v0.11.9
	github.com/creack/pty v1.1.24
	github.com/google/go-cmp v0.7.0
	github.com/mattn/go-runewidth v0.0.31
	golang.org/x/sys v0.49.0
)

require (
	github.com/clipperhouse/displaywidth v0.11.0 // indirect
	github.com/clipperhouse/uax29/v2 v2.7.0 // indirect
	github.com/lucasb-eyer/go-colorful v1.4.1 // indirect
)
