package workspace

import (
	"strings"

	"github.com/paneflow-go/paneflow/internal/vis"
	"github.com/paneflow-go/paneflow/terminal"
)

// PrefillBytes is what prefilling text (a spec's prompt) writes to a
// program with input modes m: text that is typed and never submitted,
// whatever it holds (issue 25 item 4: a prompt with a line break ran as a
// command in a shell pane, also over workspace.up with the scripting gate
// closed).
//
// When the program turned bracketed paste on, text goes as one bracketed
// paste, its line breaks kept (a program that reads pastes inserts them
// as text) and every other control character written out visibly as
// \xNN (package vis), so nothing in it can end the paste or act as a key.
// Otherwise, as for a plain shell or `cat`, there is no way to type a line
// break that does not submit, so line breaks are written out as \x0a too.
// "\r\n" counts as one line break.
func PrefillBytes(text string, m terminal.InputModes) []byte {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if m.BracketedPaste {
		return terminal.EncodePaste(vis.Text(text), m)
	}
	return []byte(vis.String(text))
}
