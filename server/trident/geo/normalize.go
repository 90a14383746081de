package geo

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file turns free text into the comparable form both the index keys and
// the queries use: lower case, ASCII-folded, apostrophes dropped ("Hunter's"
// -> "hunters"), "&" spelled "and", every other punctuation mark a word
// break, and a few spelling variants made one ("saint" -> "st"). Commas,
// semicolons, brackets and slashes also split the text into segments, the
// parts of an address ("Street, Town, Postcode") that matching respects.

// token is one word of a normalised query: norm[start:end], in segment seg.
type token struct {
	start, end int
	seg        int
}

// parsed is a normalised query. Tokens of one segment are separated by
// exactly one space in norm, so any run of them is a substring of norm and
// can be looked up without allocating.
type parsed struct {
	norm string
	toks []token
	// upperSeg[i] reports whether segment i was written in capitals with no
	// lower-case letter, as IATA codes are ("GLA", not "gla" or "Gla").
	upperSeg []bool
}

func (p *parsed) text(from, to int) string { return p.norm[p.toks[from].start:p.toks[to-1].end] }
func (p *parsed) tok(i int) string         { return p.norm[p.toks[i].start:p.toks[i].end] }

// foldRune maps a lower-case non-ASCII letter to its ASCII spelling, for the
// accented letters in GeoNames' UK and Irish names; "" means keep the rune.
func foldRune(r rune) string {
	switch r {
	case 'à', 'á', 'â', 'ã', 'ä', 'å', 'ā':
		return "a"
	case 'æ':
		return "ae"
	case 'ç':
		return "c"
	case 'è', 'é', 'ê', 'ë', 'ē':
		return "e"
	case 'ì', 'í', 'î', 'ï', 'ī':
		return "i"
	case 'ñ':
		return "n"
	case 'ò', 'ó', 'ô', 'õ', 'ö', 'ø', 'ō':
		return "o"
	case 'œ':
		return "oe"
	case 'ù', 'ú', 'û', 'ü', 'ū':
		return "u"
	case 'ý', 'ÿ', 'ŷ':
		return "y"
	case 'ŵ':
		return "w"
	case 'ß':
		return "ss"
	}
	return ""
}

func isSegmentBreak(r rune) bool {
	switch r {
	case ',', ';', '(', ')', '[', ']', '{', '}', '|', '/', '\\', '\n', '\r':
		return true
	}
	return false
}

func isApostrophe(r rune) bool {
	switch r {
	case '\'', '\u2019', '\u2018', '`', '\u00b4':
		return true
	}
	return false
}

// canonicalWord returns the spelling both sides of a lookup use for words
// with common variants.
func canonicalWord(w string) string {
	switch w {
	case "saint":
		return "st"
	case "center":
		return "centre"
	case "intl":
		return "international"
	}
	return w
}

// parse normalises s. It never fails: text with no letters or digits gives
// no tokens.
func parse(s string) parsed {
	// Both lists in one allocation, sized for a typical address (a longer
	// one grows them as usual), and the text built on the stack, copied
	// once into norm.
	space := new(struct {
		toks [12]token
		segs [4]bool
	})
	p := parsed{toks: space.toks[:0], upperSeg: space.segs[:0]}
	var bufSpace [160]byte
	buf := bufSpace[:0]
	seg := 0
	segHasTok, segLower, segUpper := false, false, false
	tokStart := -1

	endTok := func() {
		if tokStart < 0 {
			return
		}
		w := string(buf[tokStart:])
		if c := canonicalWord(w); c != w {
			buf = append(buf[:tokStart], c...)
		}
		p.toks = append(p.toks, token{start: tokStart, end: len(buf), seg: seg})
		tokStart = -1
		segHasTok = true
	}
	endSeg := func() {
		endTok()
		if segHasTok {
			p.upperSeg = append(p.upperSeg, segUpper && !segLower)
			seg++
		}
		segHasTok, segLower, segUpper = false, false, false
	}
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9'):
			segLower = segLower || r >= 'a'
			if tokStart < 0 {
				if len(buf) > 0 {
					buf = append(buf, ' ')
				}
				tokStart = len(buf)
			}
			buf = append(buf, byte(r))
		case r >= 'A' && r <= 'Z':
			segUpper = true
			if tokStart < 0 {
				if len(buf) > 0 {
					buf = append(buf, ' ')
				}
				tokStart = len(buf)
			}
			buf = append(buf, byte(r+'a'-'A'))
		case isApostrophe(r), r >= utf8.RuneSelf && unicode.Is(unicode.Cf, r):
			// Joined: "hunter's" -> "hunters"; soft hyphens and zero-width
			// characters are invisible, so they break nothing.
		case r == '&':
			endTok()
			if len(buf) > 0 {
				buf = append(buf, ' ')
			}
			tokStart = len(buf)
			buf = append(buf, "and"...)
			endTok()
		case isSegmentBreak(r):
			endSeg()
		case r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if unicode.IsUpper(r) {
				segUpper = true
			} else {
				segLower = true
			}
			lr := unicode.ToLower(r)
			if tokStart < 0 {
				if len(buf) > 0 {
					buf = append(buf, ' ')
				}
				tokStart = len(buf)
			}
			if f := foldRune(lr); f != "" {
				buf = append(buf, f...)
			} else {
				buf = utf8.AppendRune(buf, lr)
			}
		default:
			endTok()
		}
	}
	endSeg()
	p.norm = string(buf)
	return p
}

// normalize returns the normalised form of a name, its words joined by single
// spaces, with segment breaks treated as word breaks. Index keys are built
// with it.
func normalize(s string) string {
	p := parse(s)
	if len(p.toks) == 0 {
		return ""
	}
	var b strings.Builder
	for i := range p.toks {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p.tok(i))
	}
	return b.String()
}

// Postcodes. A UK postcode is an outward code (area letters, district digits,
// optional letter or digit: "G84", "PA3", "SW1A") and an inward code (digit,
// two letters: "7HL").

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// splitOutward reports whether w has the shape of an outward code, returning
// its area letters.
func splitOutward(w string) (area string, ok bool) {
	n := 0
	for n < len(w) && n < 2 && isLetter(w[n]) {
		n++
	}
	if n == 0 || n >= len(w) || !isDigit(w[n]) {
		return "", false
	}
	rest := w[n+1:]
	switch {
	case rest == "":
	case len(rest) == 1 && (isDigit(rest[0]) || isLetter(rest[0])):
	default:
		return "", false
	}
	return w[:n], true
}

func isInward(w string) bool {
	return len(w) == 3 && isDigit(w[0]) && isLetter(w[1]) && isLetter(w[2])
}

// formatPostcode writes an outward and inward code the way Royal Mail does.
func formatPostcode(outward, inward string) string {
	if inward == "" {
		return strings.ToUpper(outward)
	}
	return strings.ToUpper(outward) + " " + strings.ToUpper(inward)
}
