// Package validate checks tool arguments against the tools' JSON Schemas and
// words every failure the way the published endpoint does.
//
// The seed server validated with Zod, and its clients see Zod's wording:
//
//	Invalid params: pickup: String must contain at least 3 character(s)
//
// The contracts, though, are JSON Schemas (Draft 2020-12), so the checks are
// driven by the schema: [Compile] walks an input schema once at start-up and
// [Schema.Validate] applies its keywords (type, required, minLength,
// maxLength, minimum, maximum, exclusive bounds, enum, const, format,
// additionalProperties, items, minItems, maxItems, default), mapping each
// failing keyword to the reason Zod v3 gives for the equivalent check. A
// contract change therefore changes validation with no code change, and a
// keyword this package cannot honour makes [Compile] fail rather than be
// silently ignored.
//
// Why not only santhosh-tekuri/jsonschema: it validates correctly but reports
// failures by keyword location in no fixed order, while the contract is "the
// first failing field in schema property order, in Zod's words". The tests
// cross-check this package against that library so the two never disagree on
// what is valid.
//
// Example:
//
//	s, err := validate.Compile(schemaBytes)
//	if err != nil { ... }
//	args, err := s.Validate(raw) // args has defaults applied
//	var fe *validate.FieldError
//	if errors.As(err, &fe) {
//		// fe.Error() == "Invalid params: pickup: Required"
//	}
package validate
