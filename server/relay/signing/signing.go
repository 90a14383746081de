package signing

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
)

// Binding is who and what a signed object belongs to: the caller (actor),
// the session and the journey.
type Binding struct {
	Actor     string `json:"actor"`
	SessionID string `json:"session_id"`
	JourneyID string `json:"journey_id"`
}

// errBadSignature is every verification failure; callers say which object
// failed, never why the signature did not match.
var errBadSignature = errors.New("signing: signature does not verify")

// Domain separation: an option's signature can never pass as a context's.
const (
	domainOption  = "relay-option-v1"
	domainContext = "relay-context-v1"
)

// canonical is the signed message: the domain, the binding and the object
// with its signature blanked, marshalled by encoding/json from the generated
// struct. Re-marshalling a typed struct is canonical by construction: fields
// in schema order, no insignificant whitespace, one spelling per value, and
// unknown fields already refused by the input schema.
func canonical(domain string, b Binding, obj any) ([]byte, error) {
	return json.Marshal(struct {
		Domain  string  `json:"domain"`
		Binding Binding `json:"binding"`
		Object  any     `json:"object"`
	}{domain, b, obj})
}

func (k *Keys) mac(kid, domain string, b Binding, obj any) ([]byte, error) {
	key, ok := k.keys[kid]
	if !ok {
		return nil, errBadSignature
	}
	msg, err := canonical(domain, b, obj)
	if err != nil {
		return nil, err
	}
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return m.Sum(nil), nil
}

// sign sets v's kid and alg, then signs blank(), which must read the
// object with those set.
func (k *Keys) sign(domain string, b Binding, v *mcptypes.Verification, blank func() any) error {
	*v = mcptypes.Verification{Kid: k.kids[0], Alg: Alg}
	sum, err := k.mac(v.Kid, domain, b, blank())
	if err != nil {
		return err
	}
	v.Signature = base64.RawURLEncoding.EncodeToString(sum)
	return nil
}

func (k *Keys) verify(domain string, b Binding, v mcptypes.Verification, blank func() any) error {
	if v.Alg != Alg {
		return errBadSignature
	}
	got, err := base64.RawURLEncoding.DecodeString(v.Signature)
	if err != nil {
		return errBadSignature
	}
	want, err := k.mac(v.Kid, domain, b, blank())
	if err != nil || !hmac.Equal(got, want) {
		return errBadSignature
	}
	return nil
}

// SignOption fills o.Verification for binding b.
func (k *Keys) SignOption(b Binding, o *mcptypes.RideOption) error {
	return k.sign(domainOption, b, &o.Verification, func() any { return blankOption(*o) })
}

// VerifyOption reports whether o is unchanged since Relay signed it for b.
// It does not look at expiry.
func (k *Keys) VerifyOption(b Binding, o mcptypes.RideOption) error {
	return k.verify(domainOption, b, o.Verification, func() any { return blankOption(o) })
}

// blankOption is o with the signature removed but kid and alg kept, so that
// neither can be swapped without breaking the signature.
func blankOption(o mcptypes.RideOption) mcptypes.RideOption {
	o.Verification.Signature = ""
	return o
}

// SignContext fills c.Verification. A context binds its own session and
// journey to the actor.
func (k *Keys) SignContext(actor string, c *mcptypes.RelayContext) error {
	return k.sign(domainContext, contextBinding(actor, *c), &c.Verification, func() any { return blankContext(*c) })
}

// VerifyContext reports whether c is a context Relay issued to actor.
func (k *Keys) VerifyContext(actor string, c mcptypes.RelayContext) error {
	return k.verify(domainContext, contextBinding(actor, c), c.Verification, func() any { return blankContext(c) })
}

func contextBinding(actor string, c mcptypes.RelayContext) Binding {
	return Binding{Actor: actor, SessionID: c.SessionID, JourneyID: c.JourneyID}
}

func blankContext(c mcptypes.RelayContext) mcptypes.RelayContext {
	c.Verification.Signature = ""
	return c
}
