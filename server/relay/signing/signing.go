package signing

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
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

// mac is the HMAC-SHA256, under kid's key, of the message of domain, b and
// the object that object writes.
func (k *Keys) mac(kid, domain string, b Binding, object func(*encoder)) (sum [sha256.Size]byte, err error) {
	pool, ok := k.signers[kid]
	if !ok {
		return sum, errBadSignature
	}
	s := pool.Get().(*signer)
	defer s.put(pool)
	s.enc.message(domain, b, object)
	if s.enc.err != nil {
		return sum, s.enc.err
	}
	s.mac.Reset()
	s.mac.Write(s.enc.buf)
	s.mac.Sum(s.sum[:0])
	return s.sum, nil
}

// sign sets v's kid and alg, then signs what object writes, which must
// read the object with those set.
func (k *Keys) sign(domain string, b Binding, v *mcptypes.Verification, object func(*encoder)) error {
	*v = mcptypes.Verification{Kid: k.kids[0], Alg: Alg}
	sum, err := k.mac(v.Kid, domain, b, object)
	if err != nil {
		return err
	}
	var sig [64]byte // room for the 43 characters, so that only the string is allocated
	v.Signature = string(base64.RawURLEncoding.AppendEncode(sig[:0], sum[:]))
	return nil
}

func (k *Keys) verify(domain string, b Binding, v mcptypes.Verification, object func(*encoder)) error {
	if v.Alg != Alg {
		return errBadSignature
	}
	// Only the one spelling Relay writes: the decoder also takes a last
	// character that differs in its unused bits, or a line break inside,
	// which would let an option whose signature text was changed verify.
	got, err := base64.RawURLEncoding.DecodeString(v.Signature)
	if err != nil || len(got) != sha256.Size || base64.RawURLEncoding.EncodeToString(got) != v.Signature {
		return errBadSignature
	}
	want, err := k.mac(v.Kid, domain, b, object)
	if err != nil || !hmac.Equal(got, want[:]) {
		return errBadSignature
	}
	return nil
}

// SignOption fills o.Verification for binding b.
func (k *Keys) SignOption(b Binding, o *mcptypes.RideOption) error {
	return k.sign(domainOption, b, &o.Verification, func(e *encoder) { e.option(blankOption(*o)) })
}

// VerifyOption reports whether o is unchanged since Relay signed it for b.
// It does not look at expiry.
func (k *Keys) VerifyOption(b Binding, o mcptypes.RideOption) error {
	return k.verify(domainOption, b, o.Verification, func(e *encoder) { e.option(blankOption(o)) })
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
	return k.sign(domainContext, contextBinding(actor, *c), &c.Verification, func(e *encoder) { e.context(blankContext(*c)) })
}

// VerifyContext reports whether c is a context Relay issued to actor.
func (k *Keys) VerifyContext(actor string, c mcptypes.RelayContext) error {
	return k.verify(domainContext, contextBinding(actor, c), c.Verification, func(e *encoder) { e.context(blankContext(c)) })
}

func contextBinding(actor string, c mcptypes.RelayContext) Binding {
	return Binding{Actor: actor, SessionID: c.SessionID, JourneyID: c.JourneyID}
}

func blankContext(c mcptypes.RelayContext) mcptypes.RelayContext {
	c.Verification.Signature = ""
	return c
}
