// Package mcpregistry checks a server.json entry for the MCP Registry
// (registry.modelcontextprotocol.io) the way the registry would on publish:
// the published schema's rules (rules.schema.json, transcribed with its
// source named) and the registry's semantic checks, except the two that need
// the network (namespace ownership and the image's label in its registry;
// the image tests check that label on the image this repository builds).
//
//	if err := mcpregistry.Check(deploy.ServerJSON); err != nil {
//		log.Fatal(err) // every problem, one per line
//	}
package mcpregistry
