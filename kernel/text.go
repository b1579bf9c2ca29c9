package kernel

import (
	"fmt"
	"html"

	"github.com/janpfeifer/gonb/gonbui"
)

// Printf prints a line of text in order with the tables, figures and
// headings a cell displays. fmt.Printf in a cell goes to the program's
// standard output, which Jupyter receives on another channel than
// displayed content, so a printed line can land above or below a heading
// displayed before it; Printf sends it the way the displays go. Outside a
// notebook it writes to standard output.
func Printf(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if InNotebook() {
		gonbui.DisplayHTML(textHTML(s))
		gonbui.Sync()
		return
	}
	fmt.Fprint(out(), s)
}

// textHTML renders printed text as a preformatted block in the style of a
// cell's standard output.
func textHTML(s string) string {
	for len(s) > 0 && s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	return `<pre style="margin:0;padding:0;background:none">` + html.EscapeString(s) + `</pre>`
}
