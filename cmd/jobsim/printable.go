package main

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// printable returns text with every control character other than newline
// and tab, and every byte that is not UTF-8, written as a Go escape (\x1b,
// \u0085). Names and messages come from the input: raw, an escape sequence
// in a pod name would drive the user's terminal instead of being shown.
// YAML and JSON output escape such characters by themselves.
func printable(text string) string {
	clean := true
	for _, r := range text {
		if r == utf8.RuneError || (unicode.IsControl(r) && r != '\n' && r != '\t') {
			clean = false
			break
		}
	}
	if clean {
		return text
	}
	var b strings.Builder
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, text[i])
		case r < 0x80 && unicode.IsControl(r) && r != '\n' && r != '\t':
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r) && r != '\n' && r != '\t':
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(text[i : i+size])
		}
		i += size
	}
	return b.String()
}
