// Package draft2020 compiles one JSON Schema document for
// santhosh-tekuri/jsonschema as Draft 2020-12, the draft every contract is
// written in, so that the places that hold a document to its schema with the
// full validator (Relay's tool arguments and connector reports, the
// connector registry) compile it one way. It knows nothing of the document
// or of the endpoint it serves: the caller says which contract file it is.
//
// Trident's arguments are checked by server/trident/validate instead, which words
// failures as Zod does.
//
//	s, err := draft2020.Compile("connectors.schema.json", relaycontracts.ConnectorsSchema)
//	if err != nil { ... } // "connectors.schema.json: ..."
//	err = s.Validate(doc) // doc decoded with json.Decoder.UseNumber
package draft2020

import (
	"bytes"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Compile compiles doc, one self-contained schema document, as Draft
// 2020-12 where it does not name its draft ($schema), pinned rather than
// left to the library's default, with formats asserted: the contracts mean
// date-time, date and uri as checks, and Draft 2020-12 makes them
// annotations unless asked. name is the document's resource URL (a file
// name or a URL; a $id in doc is the base for its $refs) and heads any
// error, so that a broken contract is named when the server starts.
func Compile(name string, doc []byte) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	if err := c.AddResource(name, bytes.NewReader(doc)); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s, err := c.Compile(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}
