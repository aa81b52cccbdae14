package mcp

import "github.com/paneflow-go/paneflow/internal/fence"

// FenceAttr is one attribute of a fence's opening tag.
type FenceAttr struct{ Name, Value string }

// Fence wraps text (terminal output, untrusted) for an agent in the
// untrusted-output envelope of package internal/fence, which the flow
// engine's captures share:
//
//	<untrusted_terminal_output a="…" … id="<16 hex>">
//	text
//	</untrusted_terminal_output id="<16 hex>">
//
// The id is a fresh random 64-bit value per call; any closing tag inside
// text is defanged; attribute values lose the characters " < > CR and LF.
func Fence(text string, attrs ...FenceAttr) string {
	fa := make([]fence.Attr, len(attrs))
	for i, a := range attrs {
		fa[i] = fence.Attr(a)
	}
	return fence.Wrap(text, fa...)
}
