package relay

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// untrusted cleans provider text (titles, descriptions) for the
// provider_text field: invalid UTF-8, control and format characters
// (including bidirectional overrides and zero-width joiners, which can hide
// text from a reader) are removed, whitespace runs collapse to one space,
// and the result is cut to max runes. It is carried as data in its own
// field and never interpolated into text meant as instructions.
func untrusted(s string, max int) *string {
	var b strings.Builder
	space := false
	n := 0
	for _, r := range strings.ToValidUTF8(s, "") {
		if r == utf8.RuneError {
			continue
		}
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			continue
		}
		if n >= max {
			break
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
			if n >= max {
				break
			}
		}
		b.WriteRune(r)
		n++
	}
	if b.Len() == 0 {
		return nil
	}
	out := b.String()
	return &out
}
