// Package jsontag answers, for the hand-written and generated JSON codecs
// (gen-contracts' encoders, the client's strict decoder, Trident's strict
// argument reading), how encoding/json reads a struct field's json tag:
// they must name a field exactly as encoding/json names it, or leave the
// field to encoding/json.
package jsontag

import (
	"strings"
	"unicode"
)

// ValidName is encoding/json's isValidTag: whether it takes the tag's name
// s as the member's name. An empty or invalid name is one it replaces by
// the Go field's name.
func ValidName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
