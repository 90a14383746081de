// Package signing signs and verifies what Relay issues, its ride options
// and its relay_context objects, so that a caller can hand them back and
// Relay can tell they are unchanged, its own, and the caller's.
//
// A signature is HMAC-SHA256 ([Alg]) over a canonical encoding: the bytes
// encoding/json gives for the generated struct (fields in schema order,
// one spelling per value; written by hand, byte for byte, because
// reflection was most of the cost), with the signature blanked and kid
// and alg kept, under a domain that keeps an option's signature from
// passing as a context's, and bound to the caller, the session and the
// journey ([Binding]). Any changed byte, or another binding, fails to
// verify; why it failed is never told.
//
// [Keys] are the operator's RELAY_SIGNING_KEYS, "kid:base64key,...": the
// first signs, every one verifies, so keys rotate by putting a new one
// first. Replicas share them; [RandomKeys] is for one process alone.
//
//	keys, err := signing.ParseKeys("2026-01:" + base64Key)
//	if err != nil { ... } // names RELAY_SIGNING_KEYS and the entry
//	b := signing.Binding{Actor: "anonymous", SessionID: "ses_1", JourneyID: "jny_1"}
//	err = keys.SignOption(b, &option)  // fills option.Verification
//	err = keys.VerifyOption(b, option) // nil: unchanged, and b's
package signing
