package brokenserver

import (
	"bytes"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Faults of pricing. Each models a server that gets one rule of the tariff
// wrong and is otherwise consistent with itself: the fare it states in
// structuredContent, in the text and in the booking link agree, so that
// only a suite that knows the tariff can tell.

// fareVariants are the pricing faults; [Variants] lists them with the others.
func fareVariants() []Variant {
	london, err := time.LoadLocation("Europe/London")
	if err != nil {
		panic("brokenserver: " + err.Error()) // the Go time zone database is embedded or installed
	}
	return []Variant{
		{
			Name: "band-in-utc", Defect: "picks the tariff band from the UTC clock instead of UK local time",
			MustFail: []string{"fare oracle"},
			// Upstream gets the instant whose UK wall clock reads what the
			// departure's UTC clock reads; its echo of departAt is put back.
			Request: func(ex *Exchange, _ Options) bool {
				ex.rewriteDepartAt(func(at time.Time) (time.Time, bool) {
					u := at.UTC()
					return time.Date(u.Year(), u.Month(), u.Day(), u.Hour(), u.Minute(), u.Second(), u.Nanosecond(), london), true
				})
				return false
			},
			Response: func(ex *Exchange, _ Options) { ex.restore() },
		},
		{
			Name: "ignores-departAt", Defect: "prices every trip at the time of the call, whatever departAt says",
			MustFail: []string{"fare oracle"},
			Request: func(ex *Exchange, _ Options) bool {
				ex.rewriteDepartAt(func(time.Time) (time.Time, bool) { return time.Time{}, false })
				return false
			},
			// It still echoes departAt.
			Response: func(ex *Exchange, _ Options) {
				orig := ex.departAt
				if orig == "" {
					return
				}
				ex.editMessages(func(m map[string]any) {
					if pre, ok := structured(m)["prefilled"].(map[string]any); ok {
						pre["departAt"] = orig
					}
				})
			},
		},
		{
			Name: "drops-pre-booking-fee", Defect: "forgets the pre-booking fee on trips booked ahead (departAt given)",
			MustFail: []string{"fare oracle"},
			Response: func(ex *Exchange, _ Options) {
				if _, args := ex.toolCall(); args["departAt"] == nil {
					return
				}
				ex.editMessages(func(m map[string]any) {
					reprice(m, func(fare float64, rules []string) (float64, []string) {
						return fare - 0.40, slices.DeleteFunc(rules, func(r string) bool { return strings.HasPrefix(r, "Pre-booking fee") })
					})
				})
			},
		},
		{
			Name: "local-8-seater-at-long-rate", Defect: "prices a local 8-seater hire at the 8-seater's long-distance multiplier (×4/3) instead of the local ×2",
			MustFail: []string{"fare oracle"},
			Response: func(ex *Exchange, _ Options) {
				ex.editMessages(func(m map[string]any) {
					reprice(m, func(fare float64, rules []string) (float64, []string) {
						i := slices.Index(rules, "8-seater local hire x2")
						if i < 0 {
							return fare, rules
						}
						extra := surchargesOf(rules)
						base := math.Round((fare - extra) * 100)
						rebased := math.Ceil(base*2/3/10) * 10 // ×(4/3)/2, up to 10p
						rules[i] = "8-seater rate applied"
						return (rebased + math.Round(extra*100)) / 100, rules
					})
				})
			},
		},
	}
}

// rewriteDepartAt replaces the departAt of a tools/call by what f returns
// for it (or removes it when f says false), and remembers the original, so
// that [Exchange.restore] can put the server's echo of it back.
func (ex *Exchange) rewriteDepartAt(f func(time.Time) (time.Time, bool)) {
	ex.editRequest(func(m map[string]any) {
		params, _ := m["params"].(map[string]any)
		args, _ := params["arguments"].(map[string]any)
		s, ok := args["departAt"].(string)
		if !ok {
			return
		}
		at, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return
		}
		ex.departAt = s
		if t, keep := f(at); keep {
			args["departAt"] = t.Format(time.RFC3339Nano)
			ex.sent = args["departAt"].(string)
		} else {
			delete(args, "departAt")
		}
	})
}

// restore puts the original departAt back wherever the reply echoes the
// rewritten one (prefilled.departAt, the booking link, the text).
func (ex *Exchange) restore() {
	if ex.sent == "" {
		return
	}
	for _, p := range [][2]string{{ex.sent, ex.departAt}, {url.QueryEscape(ex.sent), url.QueryEscape(ex.departAt)}} {
		ex.Body = bytes.ReplaceAll(ex.Body, []byte(p[0]), []byte(p[1]))
	}
}

// reprice changes the fare of a successful quote everywhere it is stated:
// fareGBP (estimate_fare's, or start_booking's quote), appliedRules, the
// fare= of bookingUrl and the text items.
func reprice(m map[string]any, f func(fare float64, rules []string) (float64, []string)) {
	sc := structured(m)
	if sc == nil {
		return
	}
	q := sc
	if inner, ok := sc["quote"].(map[string]any); ok {
		q = inner
	}
	old, ok := q["fareGBP"].(float64)
	if !ok {
		return
	}
	var rules []string
	raw, hasRules := sc["appliedRules"].([]any)
	for _, r := range raw {
		s, _ := r.(string)
		rules = append(rules, s)
	}
	fare, rules := f(old, rules)
	fare = math.Round(fare*100) / 100
	q["fareGBP"] = fare
	if hasRules {
		sc["appliedRules"] = rules
	}
	was, now := fmt.Sprintf("%.2f", old), fmt.Sprintf("%.2f", fare)
	if u, ok := sc["bookingUrl"].(string); ok {
		sc["bookingUrl"] = strings.Replace(u, "fare="+was, "fare="+now, 1)
	}
	res, _ := m["result"].(map[string]any)
	content, _ := res["content"].([]any)
	for _, c := range content {
		if item, ok := c.(map[string]any); ok {
			if t, ok := item["text"].(string); ok {
				t = strings.ReplaceAll(t, "£"+was, "£"+now)
				item["text"] = strings.ReplaceAll(t, "fare="+was, "fare="+now)
			}
		}
	}
}

var poundsRE = regexp.MustCompile(`\+£(\d+(?:\.\d+)?)$`)

// surchargesOf adds up the fixed amounts the rules name ("… +£10").
func surchargesOf(rules []string) float64 {
	total := 0.0
	for _, r := range rules {
		if m := poundsRE.FindStringSubmatch(r); m != nil {
			f, _ := strconv.ParseFloat(m[1], 64)
			total += f
		}
	}
	return total
}
