// Package faultserver is an in-process MCP endpoint and OAuth token endpoint
// for client tests. It answers initialize, tools/list and tools/call the way
// the real server does (JSON, or an event stream when the call carries a
// progress token), and injects the failures a test queues: HTTP statuses
// with headers, a stream cut before its final frame, a reset connection,
// JSON-RPC errors and tool refusals. Its [Issuer] issues opaque tokens,
// rotates refresh tokens and revokes a whole family when a rotated token is
// reused, as Supabase does.
//
// It is deliberately small and scripted, not a second implementation of the
// server: tests say exactly which reply comes next and then check what the
// client sent.
package faultserver
